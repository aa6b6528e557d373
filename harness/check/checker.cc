#include "check/checker.h"

#include <algorithm>

#include "check/fix_hint.h"
#include "history/event_registry.h"
#include "util/path_probe.h"
#include "util/printable.h"

namespace killpoint {

std::vector<std::string> CheckInput::Dates() const {
  std::vector<std::string> out;
  for (const auto& run : plan.runs) {
    if (std::find(out.begin(), out.end(), run.biz_date) == out.end()) out.push_back(run.biz_date);
  }
  return out;
}

void ThrowUnlessSqliteCanOpen(const std::filesystem::path& file) {
  // SQLite opens the database, and its -journal, -wal and -shm beside it by name, following
  // symlinks: each must be a regular file, or absent but the database itself. A FIFO would
  // block SQLite's open for ever; a loop, a dangling link or a folder fails here with its
  // reason rather than in SQLite's "unable to open database file".
  for (const char* side : {"", "-journal", "-wal", "-shm"}) {
    std::filesystem::path path = file;
    path += side;
    Result<bool> present = Present(path);
    if (!present) throw SQLite::Exception(present.error().message);
    if (!present.value() && *side) continue;
    std::error_code ec;
    std::filesystem::file_status st = std::filesystem::status(path, ec);
    if (ec) throw SQLite::Exception("cannot open " + path.string() + ": " + ec.message());
    if (!std::filesystem::is_regular_file(st))
      throw SQLite::Exception("cannot open " + path.string() + ": it is not a regular file");
  }
}

std::optional<SQLite::Database> OpenJobDatabase(const std::filesystem::path& file) {
  Result<bool> present = Present(file);
  if (!present) throw SQLite::Exception(present.error().message);
  if (!present.value()) return std::nullopt;
  ThrowUnlessSqliteCanOpen(file);
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
    if (it->type == event::Exit::kType) return Read<event::Exit>(*it).code == 0;
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
