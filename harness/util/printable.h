// Makes any text safe to print as part of one message line: control characters (newlines
// included) and bytes that are not valid UTF-8 become \xNN escapes; valid UTF-8 is kept.
// Messages built from user input (file names, JSON keys, values) pass through it, so that an
// error is always exactly one line on a terminal.
#pragma once

#include <string>
#include <string_view>

namespace killpoint {

// At most `max_size` bytes (plus "..." when cut), never cutting an escape or a UTF-8 character.
std::string Printable(std::string_view text, size_t max_size = std::string::npos);

}  // namespace killpoint
