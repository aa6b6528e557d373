// A scenario's own checks over every crash state (SqlCheck::after_every_crash; docs/scenarios.md,
// "Checked after every crash"): run by the trial runner after each kill and its persistence
// model, recorded in crash_check events, and folded into the check's verdict at the end.
#include <algorithm>
#include <system_error>

#include "check/checker.h"
#include "history/event_registry.h"
#include "util/printable.h"

namespace killpoint {
namespace {

namespace fs = std::filesystem;

// The files SQLite reads to recover `db`: the database, a hot rollback journal, a WAL.
constexpr const char* kDbFiles[] = {"", "-journal", "-wal"};

Status CopyDatabase(const std::string& db, const fs::path& work, const fs::path& scratch) {
  std::error_code ec;
  for (const char* suffix : kDbFiles) {
    fs::path from = work / (db + suffix);
    if (!fs::is_regular_file(from, ec)) continue;  // absent, or no file: the check says so
    fs::path to = scratch / (db + suffix);
    fs::create_directories(to.parent_path(), ec);
    if (!ec) fs::copy_file(from, to, fs::copy_options::overwrite_existing, ec);
    if (ec)
      return Error::Harness("cannot copy " + from.string() +
                            " to check a crash state: " + ec.message());
  }
  return Ok();
}

// The sandbox `work` as the crash left it, into `to`: folders, regular files and symlinks (as
// links); fifos, sockets and devices are left out, as no check reads them.
Status CopyTree(const fs::path& work, const fs::path& to) {
  std::error_code ec;
  fs::create_directories(to, ec);
  for (auto it = fs::recursive_directory_iterator(
           work, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    fs::path target = to / it->path().lexically_relative(work);
    fs::file_status st = it->symlink_status(ec);
    if (ec) break;
    if (fs::is_symlink(st)) {
      fs::copy_symlink(it->path(), target, ec);
    } else if (fs::is_directory(st)) {
      fs::create_directories(target, ec);
    } else if (fs::is_regular_file(st)) {
      fs::copy_file(it->path(), target, fs::copy_options::overwrite_existing, ec);
    }
    if (ec) break;
  }
  if (ec) {
    return Error::Harness("cannot copy " + work.string() +
                          " to check a crash state: " + ec.message());
  }
  return Ok();
}

const Verdict* VerdictOf(const Event& e, const std::string& name, Verdict& slot) {
  for (const auto& v : Read<event::CrashCheck>(e).verdicts) {
    auto invariant = v.is_object() ? v.find("invariant") : v.end();
    if (invariant == v.end() || *invariant != name) continue;
    // A damaged entry reads as a violation that says so, never as an exception.
    auto held = v.find("held");
    auto why = v.find("explanation");
    slot = {
        name, held != v.end() && held->is_boolean() && held->get<bool>(),
        why != v.end() && why->is_string() ? why->get<std::string>() : "(no explanation recorded)",
        ""};
    return &slot;
  }
  return nullptr;
}

// "after the crash at write:ledger.db-wal#2 (2026-11-01 attempt 1, torn)": the point as
// `killpoint points` names it, its n-th hit with #n.
std::string Where(const Event& e) {
  const event::CrashCheck c = Read<event::CrashCheck>(e);
  std::string point = c.point + (c.hit > 1 ? "#" + std::to_string(c.hit) : "");
  return "after the crash at " + Printable(point, 200) + " (" + e.biz_date + " attempt " +
         std::to_string(e.attempt) + ", " + (c.model ? std::string(NameOf(*c.model)) : "?") + ")";
}

}  // namespace

Result<nlohmann::json> CheckCrashState(const Scenario& scenario, const fs::path& work,
                                       const fs::path& scratch, const ServiceAddresses& services) {
  nlohmann::json verdicts = nlohmann::json::array();
  for (const auto& [name, check] : scenario.checks) {
    if (!check.after_every_crash) continue;
    if (!check.service.empty()) {  // the server survived the job: its state is the crash state
      auto verdict = RunOwnCheck(name, check, work, services);
      if (!verdict) return verdict.error();
      verdicts.push_back(verdict.value());
      continue;
    }
    fs::path copy = scratch / name;  // each check its own copy: a check may roll a journal back
    if (!check.command.empty()) {    // a command may read any file: the whole sandbox
      if (Status s = CopyTree(work, copy); !s) return s.error();
      auto verdict = RunCommandCheck(name, check, copy);
      if (!verdict) return verdict.error();
      verdicts.push_back(verdict.value());
      continue;
    }
    if (Status s = CopyDatabase(check.db, work, copy); !s) return s.error();
    for (const auto& [alias, db] : check.attach) {
      if (Status s = CopyDatabase(db, work, copy); !s) return s.error();
    }
    verdicts.push_back(RunSqlCheck(name, check, copy));
  }
  return verdicts;
}

Result<Verdict> OverEveryCrash(const std::string& name, const CheckInput& in, Verdict at_end) {
  int kills = 0, states = 0, failed = 0;
  const Event* first = nullptr;
  Verdict first_verdict, slot;
  for (const Event& e : in.events) {
    if (e.type == event::Kill::kType) ++kills;
    if (e.type != event::CrashCheck::kType) continue;
    const Verdict* v = VerdictOf(e, name, slot);
    if (v == nullptr) continue;
    ++states;
    if (v->held) continue;
    if (failed++ == 0) first = &e, first_verdict = *v;
  }
  if (kills > 0 && states == 0) {
    return Error::Harness(name + " is checked after every crash, but none of the trial's " +
                          std::to_string(kills) +
                          " kills was followed by a check (TrialOptions::crash_checks is not set)");
  }
  if (first != nullptr) {
    std::string more = failed > 1 ? " (violated in " + std::to_string(failed) + " of " +
                                        std::to_string(states) + " crash states)"
                                  : "";
    return Verdict::Violated(name, Where(*first) + ", a reader saw: " + first_verdict.explanation +
                                       more + (at_end.held ? "" : "; at the end too"));
  }
  if (!at_end.held) return at_end;
  return Verdict::Held(name,
                       "held after each of " + std::to_string(states) + " crashes and at the end");
}

}  // namespace killpoint
