// One line of the failpoint wire protocol (docs/failpoint-protocol.md), as a job sends it:
//   HIT <name> [<pid> [<bytes>]]    the job waits before the point for an answer
//   DONE <name> [<pid> [<bytes>]]   after AFTER or PARTIAL: the operation is done, waits again
//   SEEN <name> [<pid> [<bytes>]]   v1.2: the point was passed, reported one way, no answer
//   HIT|SEEN <name> <pid> excl      v1.3: an open that creates its file exclusively
//   HIT|SEEN <name> <pid> <bytes> unseen:<op>   v1.4: a write the shim did not see, noticed
//                                   at <op> (close, fsync, fdatasync, dup2, rename, exit...)
//   HIT|SEEN <name> <pid> <bytes> at:<offset>   v1.7: a write and the file offset it lands at
//                                   (at most 18 digits; before unseen:, never on DONE)
//   REFUSED <call> <pid>            v1.6: the supervisor refused the system call <call>, one way
//   OUTSIDE <op> <pid> <path>       v1.5: <op> changed <path>, outside the sandbox, one way;
//                                   the path's bytes outside '!'..'~' and '%' sent as %XX.
//                                   Decoded, with what is not printable UTF-8 escaped
//                                   (util/printable.h); the hit's name is the path
// A name is [A-Za-z0-9_.:/-]+, a pid at most 9 digits, bytes at most 18; a trailing '\r' is
// allowed. Pure and allocation-light: the control channel parses every line with it.
#pragma once

#include <optional>
#include <string_view>

#include "channel/control_channel.h"

namespace killpoint {

// The hit the line reports, or nothing when the line is not one of these forms.
std::optional<FailpointHit> ParseProtocolLine(std::string_view line);

}  // namespace killpoint
