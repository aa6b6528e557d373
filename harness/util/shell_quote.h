// A word as a POSIX shell reads it back unchanged: for the commands killpoint prints to be
// copied (replay lines) and runs itself (git).
#pragma once

#include <string>

namespace killpoint {

// `s` as it is when every character is one a shell takes literally (letters, digits and
// `_@%+=:,./-`), else in single quotes (a quote inside as '\''); '' for the empty string.
std::string ShellQuote(const std::string& s);

}  // namespace killpoint
