#include "check/checker.h"

#include <algorithm>

#include "check/fix_hint.h"
#include "util/printable.h"

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

const Checkers& BuiltinCheckers() {
  static const Checkers checkers = [] {
    Checkers all;
    AddSettlementCheckers(all);
    AddPublishCheckers(all);
    AddLifecycleCheckers(all);
    AddCommitCheckers(all);
    AddDeliveryCheckers(all);
    AddRetryCheckers(all);
    AddSandboxCheckers(all);
    AddServerFaultCheckers(all);
    return all;
  }();
  return checkers;
}

Error Misconfigured(const CheckInput& in, const std::string& field, const std::string& what) {
  return Error::BadInput(Printable(in.scenario.file.string() + ": " + field + ": " + what, 1000));
}

bool LastAttemptSucceeded(const CheckInput& in) {
  for (auto it = in.events.rbegin(); it != in.events.rend(); ++it) {
    if (it->type == event::kExit) return ExitOf(*it).code == 0;
  }
  return false;
}

Result<Verdict> RunOwnCheck(const std::string& name, const SqlCheck& check,
                            const std::filesystem::path& workdir,
                            const ServiceAddresses& services) {
  if (!check.command.empty()) return RunCommandCheck(name, check, workdir);
  if (check.service.empty()) return RunSqlCheck(name, check, workdir);
  if (!check.queue.empty()) return RunServiceQueueCheck(name, check, services);
  return RunServiceSqlCheck(name, check, services);  // SQL, or keys of a redis service
}

Result<std::vector<Verdict>> CheckTrial(const CheckInput& input, const Checkers& checkers) {
  std::vector<Verdict> out;
  for (const auto* list : {&input.scenario.must_hold, &input.scenario.expected_violations}) {
    for (const auto& name : *list) {
      auto own = input.scenario.checks.find(name);
      if (own != input.scenario.checks.end()) {
        auto at_end = RunOwnCheck(name, own->second, input.workdir, input.services);
        if (!at_end) return at_end.error();
        if (!own->second.after_every_crash) {
          out.push_back(std::move(at_end.value()));
          continue;
        }
        auto verdict = OverEveryCrash(name, input, std::move(at_end.value()));
        if (!verdict) return verdict.error();
        out.push_back(std::move(verdict.value()));
        continue;
      }
      auto verdict = checkers.at(name)(input);
      if (!verdict) return verdict.error();
      out.push_back(std::move(verdict.value()));
    }
  }
  for (Verdict& v : out) {
    if (!v.held) v.hint = FixHint(v.invariant, input.events, input.scenario.check);
  }
  return out;
}

}  // namespace killpoint
