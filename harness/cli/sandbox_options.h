// The options of every command that runs trials about where their sandboxes live: a folder of
// the user's, or by default RAM; and --real-disk for runs that want the disk and its fsyncs.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "channel/interception.h"
#include "run/sandbox.h"
#include "scenario/scenario.h"
#include "suite/suite.h"
#include "util/result.h"

namespace killpoint {

struct SandboxArgs {
  std::string root;        // --sandbox-root; empty: a new folder (RAM unless real_disk)
  bool real_disk = false;  // --real-disk

  std::string intercept;  // --intercept; empty: DefaultInterception()

  SandboxStorage Storage() const { return StorageFor(real_disk); }
};

// --intercept NAME as an Interception: empty is the machine's default; seccomp where the kernel
// does not allow it is an error (exit 2) naming why.
inline Result<Interception> InterceptionOf(const std::string& name) {
  if (name.empty()) return DefaultInterception();
  std::optional<Interception> i = ParseInterception(name);
  if (!i) return Error::BadInput("--intercept: '" + name + "' is neither seccomp nor preload");
  if (*i == Interception::kSeccomp) {
    if (Status s = SeccompAvailable(); !s) return s.error();
  }
  return *i;
}

// --intercept, for every command that runs a job (docs/supervisor.md).
inline void AddInterceptOption(CLI::App* cmd, std::string* name) {
  cmd->add_option("--intercept", *name,
                  "How the job's file-system calls become crash points: seccomp (a supervisor "
                  "that sees every process, thread and language) or preload (the LD_PRELOAD "
                  "shim on libc); default: seccomp where the kernel allows it")
      ->check(CLI::IsMember({"seccomp", "preload"}));
}

// The line `explore` and `replay` print: the backend that intercepted the scenario's jobs, or
// that none did (InterceptionUsed: a scenario without syscall points, models other than process
// or writes_in_sandbox needs none).
inline std::string InterceptionLine(const Scenario& s, Interception intercept) {
  std::string used = InterceptionUsed(s, intercept);
  if (used == kNoInterception) return "interception: none (the scenario needs none)\n";
  return "interception: " + used + "\n";
}

inline void AddSandboxOptions(CLI::App* cmd, SandboxArgs* args) {
  cmd->add_option("--sandbox-root", args->root,
                  "Folder in which the run makes its own for the trials' sandboxes, removed at "
                  "its end unless --keep (default: in /dev/shm when it is RAM with 512 MiB "
                  "free, else in $TMPDIR)");
  cmd->add_flag("--real-disk", args->real_disk,
                "Put the sandboxes in $TMPDIR (unless --sandbox-root) and let every fsync of the "
                "job reach the "
                "disk; by default the syscall shim answers them itself, as the persistence models "
                "decide what a "
                "crash keeps");
  AddInterceptOption(cmd, &args->intercept);
}

}  // namespace killpoint
