#include "proc/server_log.h"

#include <regex>
#include <sstream>
#include <vector>

namespace killpoint {

std::string LogExcerpt(const std::string& log, size_t bytes) {
  if (log.size() <= bytes) return log;
  constexpr size_t kMostLines = 8;
  constexpr size_t kLineChars = 300;
  static const std::regex kWhy(
      "got signal|[Aa]ssertion|PANIC|terminated by signal|Failed process was running|^Query "
      "\\(|Segmentation fault|Aborted");
  std::vector<std::string> why;
  std::istringstream in(log.substr(0, log.size() - bytes));
  for (std::string line; std::getline(in, line);) {
    if (!std::regex_search(line, kWhy)) continue;
    if (line.size() > kLineChars) line = line.substr(0, kLineChars) + "...";
    why.push_back(std::move(line));
  }
  std::string out;
  size_t first = why.size() > kMostLines ? why.size() - kMostLines : 0;
  for (size_t i = first; i < why.size(); ++i) out += why[i] + "\n";
  return out + "..." + log.substr(log.size() - bytes);
}

}  // namespace killpoint
