// state_readable (the job can start again) and converges (with faults stopped it succeeds).
#include <SQLiteCpp/SQLiteCpp.h>

#include <nlohmann/json.hpp>

#include "check/checker.h"
#include "history/event_registry.h"
#include "util/atomic_file.h"
#include "util/path_probe.h"
#include "util/printable.h"

namespace killpoint {
namespace {

namespace fs = std::filesystem;

// How much of a job's stderr a converges verdict quotes: its end, where a traceback names
// the exception.
constexpr size_t kStderrQuoted = 240;
constexpr int kIntegrityRows = 10;  // problems PRAGMA integrity_check lists at most

// A job's stderr in one line: its trailing newlines dropped, then its last kStderrQuoted bytes
// from a line's start where one is near ("..." before them when cut), escaped.
std::string StderrLine(std::string s) {
  s = LinesJoined(s);
  if (s.size() <= kStderrQuoted) return Printable(s);
  size_t from = s.size() - kStderrQuoted;
  if (size_t line = s.find(" | ", from); line != std::string::npos && line < s.size() - 40)
    from = line + 3;
  while (from < s.size() && (static_cast<unsigned char>(s[from]) & 0xC0) == 0x80) ++from;
  return "..." + Printable(s.substr(from));
}

// No state file named (check.state_file): the job keeps none, nothing to read.
std::optional<std::string> StateFileProblem(const CheckInput& in) {
  if (in.scenario.check.state_file.empty()) return std::nullopt;
  fs::path state = in.workdir / in.scenario.check.state_file;
  Result<bool> present = Present(state);
  if (!present) return present.error().message;
  if (!present.value()) return std::nullopt;
  auto text = ReadFile(state);
  if (!text) return text.error().message;
  auto parsed = nlohmann::json::parse(text.value(), nullptr, false);
  if (!parsed.is_discarded() && parsed.is_object()) return std::nullopt;
  return in.scenario.check.state_file + " is not a JSON object after the last attempt; its " +
         std::to_string(text.value().size()) + " bytes are '" + Printable(text.value(), 60) + "'";
}

std::optional<std::string> DatabaseProblem(const CheckInput& in) {
  try {
    auto d = OpenJobDatabase(in.workdir / in.scenario.check.db);
    if (!d) return std::nullopt;
    // Its first problems, cut like every explanation (issue 33: thousands of characters).
    SQLite::Statement q(*d, "PRAGMA integrity_check(" + std::to_string(kIntegrityRows) + ")");
    std::string result;
    while (q.executeStep()) result += (result.empty() ? "" : "\n") + q.getColumn(0).getString();
    if (result == "ok") return std::nullopt;
    return Printable(in.scenario.check.db + " fails PRAGMA integrity_check: " + LinesJoined(result),
                     kExplanationBytes);
  } catch (const SQLite::Exception& e) {
    return in.scenario.check.db + " cannot be opened: " + e.what();
  }
}

Verdict StateReadable(const CheckInput& in) {
  if (auto problem = StateFileProblem(in)) return Verdict::Violated("state_readable", *problem);
  if (auto problem = DatabaseProblem(in)) return Verdict::Violated("state_readable", *problem);
  return Verdict::Held("state_readable", "the state the job reads on start is intact");
}

Verdict Converges(const CheckInput& in) {
  for (const auto& date : in.Dates()) {
    const Event* last = nullptr;
    int attempts = 0;
    for (const auto& e : in.events) {
      // An overlap's second or third instance (docs/faults.md) is not an attempt of its own.
      if (e.type == event::Exit::kType && e.biz_date == date && InstanceOf(e) == 1)
        last = &e, ++attempts;
    }
    const event::Exit exit = last ? Read<event::Exit>(*last) : event::Exit{};
    if (!last || exit.code != 0) {
      std::string how = last ? "exited with code " + std::to_string(exit.code) : "never ran";
      std::string err = last ? StderrLine(exit.stderr_tail) : "";
      return Verdict::Violated("converges",
                               date +
                                   " did not succeed even after the fault-free final pass: "
                                   "after " +
                                   std::to_string(attempts) + " attempts the last " + how +
                                   (err.empty() ? "" : " (stderr: " + err + ")"));
    }
  }
  return Verdict::Held("converges", "every date ended with a successful attempt");
}

}  // namespace

void AddLifecycleCheckers(std::map<std::string, Checker>& out) {
  out["state_readable"] = StateReadable;
  out["converges"] = Converges;
}

}  // namespace killpoint
