#include "history/history_log.h"

#include <sstream>

#include "util/atomic_file.h"

namespace killpoint {

std::string FormatTrialHistory(int trial, const std::vector<Event>& events) {
  std::string out;
  for (const auto& e : events) {
    nlohmann::json j = e;
    j["trial"] = trial;
    out += j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    out += '\n';
  }
  return out;
}

Status AppendTrialHistory(const std::filesystem::path& log, int trial,
                          const std::vector<Event>& events) {
  return AppendDurably(log, FormatTrialHistory(trial, events));
}

Result<std::map<int, std::vector<Event>>> ReadHistoryLog(const std::filesystem::path& log) {
  auto text = ReadFile(log);
  if (!text) return text.error();
  return ParseHistoryLog(text.value(), log.string());
}

Result<std::map<int, std::vector<Event>>> ParseHistoryLog(std::string_view s,
                                                          const std::string& source) {
  std::map<int, std::vector<Event>> out;
  size_t start = 0, line_no = 0;
  while (start < s.size()) {
    size_t end = s.find('\n', start);
    if (end == std::string::npos) break;  // torn tail of an interrupted append
    ++line_no;
    try {
      nlohmann::json j = nlohmann::json::parse(s.substr(start, end - start));
      out[TrialOfJournalLine(j)].push_back(j.get<Event>());
    } catch (const nlohmann::json::exception& e) {
      return Error::BadInput(source + ":" + std::to_string(line_no) +
                             ": not a history event: " + e.what());
    }
    start = end + 1;
  }
  return out;
}

}  // namespace killpoint
