// What the supervisor does with each notified call: find whether it touches the sandbox, name
// its crash point, ask the harness, then perform it (or let the kernel run it) and answer.
#pragma once

#include "supervisor/supervisor.h"
#include "supervisor/target.h"

namespace killpoint::supervisor {

// Handles one notification completely: the job's call is answered (or the job killed) on return.
void HandleCall(const Config& config, Channel& channel, const Target& call);

}  // namespace killpoint::supervisor
