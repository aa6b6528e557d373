// Makes any text safe to print as part of one message line: control characters (newlines
// included) and bytes that are not valid UTF-8 become \xNN escapes; valid UTF-8 is kept, but
// for the code points that are invisible or reorder the text around them (bidi overrides and
// isolates, zero-width characters, C1 controls: IsInvisibleCodePoint), which become \uXXXX, so
// that a message shows what a name or an output really holds.
// Messages built from user input (file names, JSON keys, values) pass through it, so that an
// error is always exactly one line on a terminal.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace killpoint {

// At most `max_size` bytes (plus "..." when cut), never cutting an escape or a UTF-8 character.
std::string Printable(std::string_view text, size_t max_size = std::string::npos);

// A program's output on one line: its lines (\r\n or \n) joined by " | ", blank ones and the
// trailing newline dropped, so that a report shows "a | b" where Printable would show "a\x0ab".
// Nothing is escaped here: Printable still follows.
std::string LinesJoined(std::string_view text);

// True for a code point a terminal or a browser shows as nothing, or that reorders the text
// around it: C1 controls, bidi marks, embeddings, overrides and isolates, zero-width spaces and
// joiners, the BOM.
bool IsInvisibleCodePoint(uint32_t cp);

// The length (2 to 4) of the valid UTF-8 sequence starting at s[i] (a byte >= 0x80), with its
// code point in `cp`; 0 if the bytes there are no valid UTF-8.
size_t Utf8At(std::string_view s, size_t i, uint32_t& cp);

}  // namespace killpoint
