#include "check/checker.h"

#include <algorithm>

namespace killpoint {

std::vector<std::string> CheckInput::Dates() const {
  std::vector<std::string> out;
  for (const auto& run : plan.runs) {
    if (std::find(out.begin(), out.end(), run.biz_date) == out.end()) out.push_back(run.biz_date);
  }
  return out;
}

std::optional<SQLite::Database> OpenJobDatabase(const std::filesystem::path& file) {
  if (!std::filesystem::exists(file)) return std::nullopt;
  return SQLite::Database(file.string(), SQLite::OPEN_READWRITE);
}

const std::map<std::string, Checker>& BuiltinCheckers() {
  static const std::map<std::string, Checker> checkers = [] {
    std::map<std::string, Checker> all;
    AddSettlementCheckers(all);
    AddPublishCheckers(all);
    AddLifecycleCheckers(all);
    AddCommitCheckers(all);
    AddRetryCheckers(all);
    return all;
  }();
  return checkers;
}

std::vector<Verdict> CheckTrial(const CheckInput& input) {
  std::vector<Verdict> out;
  for (const auto* list : {&input.scenario.must_hold, &input.scenario.expected_violations}) {
    for (const auto& name : *list) out.push_back(BuiltinCheckers().at(name)(input));
  }
  return out;
}

}  // namespace killpoint
