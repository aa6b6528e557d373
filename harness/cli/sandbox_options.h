// The options of every command that runs trials about where their sandboxes live: a folder of
// the user's, or by default RAM; and --real-disk for runs that want the disk and its fsyncs.
#pragma once

#include <CLI/CLI.hpp>
#include <string>

#include "run/sandbox.h"

namespace killpoint {

struct SandboxArgs {
  std::string root;        // --sandbox-root; empty: a new folder (RAM unless real_disk)
  bool real_disk = false;  // --real-disk

  SandboxStorage Storage() const { return StorageFor(real_disk); }
};

inline void AddSandboxOptions(CLI::App* cmd, SandboxArgs* args) {
  cmd->add_option("--sandbox-root", args->root,
                  "Folder for the trials' sandboxes (default: a new one in /dev/shm when it is RAM "
                  "with 512 MiB "
                  "free, else in $TMPDIR)");
  cmd->add_flag("--real-disk", args->real_disk,
                "Put the sandboxes in $TMPDIR (unless --sandbox-root) and let every fsync of the "
                "job reach the "
                "disk; by default the syscall shim answers them itself, as the persistence models "
                "decide what a "
                "crash keeps");
}

}  // namespace killpoint
