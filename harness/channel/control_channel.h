// The harness's end of the failpoint wire protocol (docs/failpoint-protocol.md): a TCP
// listener on 127.0.0.1; a job sends "HIT <name> <pid>\n" and waits for "CONTINUE\n". To crash
// the job at the point, the handler kills it and the channel never answers. The syscall shim
// (v1.1) may also be told "AFTER" (do it, then report "DONE <name> <pid>") or "PARTIAL <n>"
// (write only n bytes, then report DONE), so that a crash can follow or split an operation.
// A shim told which point is armed (v1.2) reports every other point as "SEEN <name> <pid>",
// which the channel hands to the handler and never answers.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "util/result.h"

namespace killpoint {

struct FailpointHit {
  std::string name;
  int pid = 0;         // as the job reported it; 0 when it sent none
  bool done = false;   // a DONE line: the operation the harness let through has completed
  bool seen = false;   // a SEEN line (v1.2): passed and reported one way, never answered
  int64_t bytes = -1;  // the shim's size of a write, when it sent one; -1 otherwise
  // v1.7: the file offset the write lands at (its position, or the file's size for an
  // O_APPEND write), when the interception sent it ("at:<offset>", never on DONE); -1 otherwise.
  int64_t offset = -1;
  bool excl = false;  // v1.3: an open that creates its file exclusively (O_CREAT|O_EXCL)
  // v1.4: a write the shim did not see (stdio, a raw syscall), noticed when the file had
  // changed at this operation of the same process ("close", "fsync", "dup2", "exit"...);
  // empty for a real call. The data is in the file already (docs/syscall-shim.md).
  std::string unseen;
  // v1.5: an OUTSIDE line, the op ("open", "rename", "unlink"...) that changed the file at
  // `name`, an absolute path outside the sandbox (decoded; channel/protocol_line.h). Always seen
  // (one way). Empty for a point.
  std::string outside;
  // v1.6: a REFUSED line: the system call (`name`) the supervisor refused, since what it does
  // would run unseen (io_uring_setup). Always one way.
  bool refused = false;
  uint64_t connection = 0;  // the channel's number for the connection, to answer a held hit
};

// What the handler decided. kKilled: it killed the job, the hit is never answered. kHold: the
// job is held at the point (a pause or an overlap, docs/faults.md); someone answers it later
// with ControlChannel::Answer, and meanwhile the channel goes on serving other connections.
struct HitAnswer {
  enum Kind { kContinue, kAfter, kPartial, kKilled, kHold } kind = kContinue;
  int64_t bytes = 0;  // for kPartial

  static HitAnswer Continue() { return {}; }
  static HitAnswer Killed() { return {kKilled, 0}; }
};

class ControlChannel {
 public:
  // Called on the channel's own thread, one hit at a time. Returns the answer; kKilled after
  // killing the job (the connection is then closed unanswered).
  using Handler = std::function<HitAnswer(const FailpointHit&)>;

  static Result<std::unique_ptr<ControlChannel>> Start(Handler handler);
  virtual ~ControlChannel() = default;

  // "127.0.0.1:PORT", the value of KILLPOINT_CTL.
  virtual std::string Address() const = 0;
  // Connections refused so far because another user was at the other end (or, for a HIT, a
  // peer that closed before it could be told): docs/hardening.md, "Who can reach the harness".
  virtual int RefusedPeers() const = 0;

  // Waits until every connection has been closed by its job and all it sent was handed to
  // the handler, or `timeout` passed; true when idle. Once the job has exited, one-way
  // reports may still be in flight: the runner waits here before it records the exit.
  virtual bool WaitIdle(std::chrono::milliseconds timeout) = 0;

  // Answers a hit the handler held (kHold), from any thread; kKilled closes its connection
  // unanswered. Does nothing once that connection has closed (its job died meanwhile).
  virtual void Answer(uint64_t connection, HitAnswer answer) = 0;
  // A worker's channel serves one trial after another (run/trial_services.h): closes the
  // connections left of the trial before, unanswered, forgets what they sent and the answers
  // queued for them, and hands hits to `handler` from now on; an empty handler closes every
  // connection that sends a hit (between trials). Returns once it is done: the old handler is
  // not called after that. Call it only while no process of the trial can connect any more.
  virtual void Reset(Handler handler) = 0;
};

}  // namespace killpoint
