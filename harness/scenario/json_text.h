// Checks the JSON text of a scenario before it is turned into a document, with the field path
// of whatever is wrong: a syntax error, a number that overflows a double (1e400), a key listed
// twice in one object (nlohmann_json would silently keep the last), nesting deeper than any
// scenario needs. Reading is an event stream (SAX), so nothing is recursive and no hostile
// input can exhaust the stack.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace killpoint {

inline constexpr size_t kMaxJsonDepth = 32;

// "job.command[1]: ..." when the text is not an acceptable scenario document; nothing if it is.
std::optional<std::string> CheckJsonText(std::string_view text);

}  // namespace killpoint
