// What the supervisor does with each notified call: find whether it touches the sandbox, name
// its crash point, ask the harness, then perform it (or let the kernel run it) and answer.
#pragma once

#include <sys/types.h>

#include <ctime>
#include <map>
#include <utility>

#include "supervisor/journal.h"
#include "supervisor/supervisor.h"
#include "supervisor/target.h"

namespace killpoint::supervisor {

// What the supervisor remembers from one call to the next: the unnamed files (O_TMPFILE) of the
// sandbox synced before they had a name, with their size and mtime then, so that the name
// linkat gives one later is known to lead to durable content if nothing changed since; and the
// durability journal, when the harness asked for one.
struct Memory {
  struct Stamp {
    off_t size = 0;
    timespec mtime{};
  };
  std::map<std::pair<dev_t, ino_t>, Stamp> synced_unnamed;
  Journal journal;
};

// Handles one notification completely: the job's call is answered (or the job killed) on return.
void HandleCall(const Config& config, Channel& channel, Memory& memory, const Target& call);

}  // namespace killpoint::supervisor
