// A scenario's own invariant as a command (SqlCheck::command; docs/scenarios.md, "Command
// checks"): `git fsck`, a CSV's rows against the state, a checksum. It runs with the sandbox
// being checked as its working directory and $KILLPOINT_WORKDIR, its output captured beside it;
// exit 0 held, another exit violated with its stdout and stderr as the explanation, a
// timeout violated and said so. A program that cannot be started is the scenario's mistake:
// exit 2, like a SQL check that names a table the job never writes.
#include <fstream>
#include <sstream>
#include <system_error>

#include "check/checker.h"
#include "proc/process.h"
#include "util/printable.h"

namespace killpoint {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kOutputBytes = 64 * 1024;  // kept of each stream

// What a stream of the command said, on one line.
std::string Head(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return LinesJoined(text.str());  // one line, rather than escaped newlines in every report
}

std::string Substituted(std::string arg, const std::string& workdir) {
  const std::string token = "{workdir}";
  for (size_t at = arg.find(token); at != std::string::npos;
       at = arg.find(token, at + workdir.size())) {
    arg.replace(at, token.size(), workdir);
  }
  return arg;
}

}  // namespace

Result<Verdict> RunCommandCheck(const std::string& name, const SqlCheck& check,
                                const fs::path& workdir) {
  std::error_code ec;
  fs::path work = fs::absolute(workdir, ec);
  SpawnRequest r;
  for (const std::string& arg : check.command) r.argv.push_back(Substituted(arg, work.string()));
  r.env["KILLPOINT_WORKDIR"] = work.string();
  r.cwd = work;
  // Beside the sandbox, never in it: the state under check stays as the job left it.
  r.stdout_path = work.parent_path() / ("check-" + name + ".out");
  r.stderr_path = work.parent_path() / ("check-" + name + ".err");
  r.max_output_bytes = kOutputBytes;
  auto process = Spawn(r);
  if (!process) {
    return Error::BadInput("checks." + name + ".command: " + process.error().message);
  }
  ExitStatus status = process.value()->Wait(std::chrono::milliseconds(check.timeout_ms));
  std::string out = Head(r.stdout_path), err = Head(r.stderr_path);
  fs::remove(r.stdout_path, ec);
  fs::remove(r.stderr_path, ec);
  if (status.interrupted) return Error::Harness("interrupted while checks." + name + " ran");
  if (status.exited && status.code == 0) {
    return Verdict::Held(name,
                         Printable(out.empty() ? "the command exited 0" : out, kExplanationBytes));
  }
  // git fsck, like many tools, names what it found on stderr and what it merely noticed on
  // stdout: both, stdout first.
  std::string said = out;
  if (!err.empty()) said += (said.empty() ? "" : "; ") + std::string("stderr: ") + err;
  std::string how = status.timed_out ? "did not finish within " + std::to_string(check.timeout_ms) +
                                           " ms and was killed"
                                     : status.Describe();
  std::string why = (check.says.empty() ? "" : check.says + ": ") + "the command " + how +
                    (said.empty() ? "" : ": " + said);
  return Verdict::Violated(name, Printable(why, kExplanationBytes));
}

}  // namespace killpoint
