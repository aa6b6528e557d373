// Business dates as the job contract writes them: YYYY-MM-DD, a real calendar date.
#ifndef KILLPOINT_JOBS_COMMON_BIZ_DATE_H_
#define KILLPOINT_JOBS_COMMON_BIZ_DATE_H_

#include <chrono>
#include <optional>
#include <string>

namespace killpoint::jobs {

// Parses text written exactly as YYYY-MM-DD; nullopt for any other form or a date that does
// not exist (2026-02-30).
inline std::optional<std::chrono::year_month_day> ParseBizDate(const std::string& text) {
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') return std::nullopt;
  for (int i : {0, 1, 2, 3, 5, 6, 8, 9}) {
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
  }
  std::chrono::year_month_day date{std::chrono::year(std::stoi(text.substr(0, 4))),
                                   std::chrono::month(std::stoul(text.substr(5, 2))),
                                   std::chrono::day(std::stoul(text.substr(8, 2)))};
  if (!date.ok()) return std::nullopt;
  return date;
}

}  // namespace killpoint::jobs

#endif  // KILLPOINT_JOBS_COMMON_BIZ_DATE_H_
