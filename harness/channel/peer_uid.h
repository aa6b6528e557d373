// Who is at the other end of a loopback TCP connection: the uid that owns the peer's socket,
// asked of the kernel (NETLINK_SOCK_DIAG, as ss(8) does) by the connection's four-tuple. The
// harness serves its control channel and its downstream on 127.0.0.1, which every local user
// can reach: a connection from another user is refused (issue 34: another user's "HIT
// after_publish" made the harness kill on cue, and its POST /publish was recorded as the job's).
#pragma once

#include <netinet/in.h>
#include <sys/types.h>

#include "util/result.h"

namespace killpoint {

// The owner of the socket at `peer` connected to our `local` (both IPv4 loopback). An error when
// the kernel does not know the connection (it closed meanwhile) or cannot be asked.
Result<uid_t> LoopbackPeerUid(const sockaddr_in& peer, const sockaddr_in& local);

// The same for an accepted socket: its peer and local addresses from getpeername/getsockname.
Result<uid_t> PeerUidOf(int fd);

// Whether this kernel answers LoopbackPeerUid: asked once per process, on a loopback
// connection of its own. Where it does not (no tcp_diag, a container that may not load it),
// peers cannot be told apart, every peer is served as the harness's own, and a line on stderr
// says that another user is not kept out there (docs/hardening.md).
bool PeerUidsKnowable();

}  // namespace killpoint
