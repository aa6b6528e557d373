#include "reports/terminal.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>

namespace killpoint {

bool IsTerminal(int fd) { return ::isatty(fd) == 1; }

bool ColorWanted(bool is_terminal, const char* no_color) {
  return is_terminal && (no_color == nullptr || *no_color == '\0');
}

bool ColorWanted(int fd) { return ColorWanted(IsTerminal(fd), std::getenv("NO_COLOR")); }

size_t TerminalColumns(int fd) {
  struct winsize w {};
  if (::ioctl(fd, TIOCGWINSZ, &w) == 0 && w.ws_col > 0) return w.ws_col;
  return 80;
}

}  // namespace killpoint
