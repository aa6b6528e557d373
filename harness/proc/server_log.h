// What a server's log says when it dies under a trial, for the harness's error message. A crash
// report ends in a stack trace and the server's variables (MariaDB's optimizer switch alone is
// a line of over a thousand characters), which push the lines that say why out of any tail:
// the signal, the assertion, the query it was running.
#pragma once

#include <cstddef>
#include <string>

namespace killpoint {

// The log's last `bytes`; before them, when the log is longer, up to 8 of the lines that say
// why a server died (a signal, an assertion, PostgreSQL's PANIC or a killed backend and its
// statement, MariaDB's `Query (...)`), in their order and each cut at 300 characters.
std::string LogExcerpt(const std::string& log, size_t bytes);

}  // namespace killpoint
