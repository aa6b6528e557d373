// What killpoint asks of the terminal it prints to: is it one, may it color, how wide is it.
#pragma once

#include <cstddef>

namespace killpoint {

bool IsTerminal(int fd);

// Colors only on a terminal, and never when NO_COLOR is set to anything but the empty string
// (https://no-color.org).
bool ColorWanted(bool is_terminal, const char* no_color);
bool ColorWanted(int fd);  // ColorWanted(IsTerminal(fd), getenv("NO_COLOR"))

// The terminal's width in columns; 80 when it cannot be told.
size_t TerminalColumns(int fd);

}  // namespace killpoint
