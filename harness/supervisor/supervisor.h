// killpoint-supervise: the kernel-boundary interception backend (docs/supervisor.md).
//
//   killpoint-supervise -- CMD ARGS...
//
// Runs CMD under a seccomp filter whose file-system system calls are handed to this process
// (SECCOMP_RET_USER_NOTIF). The filter is installed before CMD is exec'd and is inherited by
// every thread and process CMD makes, whatever their language, linking or environment, so the
// supervisor sees all of them in one order: the order it answers them in. It speaks the syscall
// shim's side of the failpoint protocol (docs/failpoint-protocol.md, v1.1 to v1.7) with the
// same crash point names (docs/syscall-shim.md), so the harness treats it as the shim.
//
// The supervisor is single-threaded: one notification is handled at a time, and while one is
// held (its HIT waits for the harness), every other notified call of the job waits in the
// kernel. A call on a sandbox file is performed by the supervisor itself (through a duplicate of
// the job's descriptor, pidfd_getfd) and answered with its result, so the supervisor knows when
// it is done: that is how a kill can follow or split an operation, and how a write through an
// O_SYNC or O_DSYNC descriptor is known durable.
//
// Not thread-safe, no signal handling: everything runs on the one loop of main.cc.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace killpoint::supervisor {

// KILLPOINT_* as the harness sets them for the shim (docs/syscall-shim.md).
struct Config {
  std::string ctl;                    // KILLPOINT_CTL, HOST:PORT
  std::string workdir;                // KILLPOINT_WORKDIR, lexically normalized and absolute
  std::string workdir_real;           // its realpath
  bool one_way = false;               // KILLPOINT_ARMED was set (v1.2)
  std::string armed;                  // its value: "" arms no single point
  std::vector<std::string> wait_ops;  // KILLPOINT_WAIT_OPS
  bool skip_sync = false;  // KILLPOINT_SKIP_FSYNC=1: sandbox syncs answered without the kernel
  std::string shadow;      // KILLPOINT_SHADOW: the durability journal's folder (journal.h)
  bool active = false;     // both KILLPOINT_CTL and KILLPOINT_WORKDIR set
};
Config ReadConfig();

// ---- names.cc: paths and crash point names, the shim's rules ----

// Lexical normalization of an absolute path ("." and ".." removed, repeated '/'); nullopt when
// `path` is not absolute.
std::optional<std::string> Normalize(std::string_view path);
// The sandbox-relative form of an absolute path ("." for the root), or nullopt when outside.
std::optional<std::string> Relpath(const Config& config, std::string_view abs);
// "<op>:<a>[:<b>]", every character outside [A-Za-z0-9_.:/-] of a and b replaced by '_', cut at
// the protocol's longest name.
std::string PointName(std::string_view op, std::string_view a, std::string_view b = {});

// ---- wire.cc: the harness's control channel ----

enum class Answer { kContinue, kAfter, kPartial };
struct Reply {
  Answer answer = Answer::kContinue;
  uint64_t partial = 0;  // PARTIAL's n
};

struct Point {
  std::string name;
  int pid = 0;
  bool is_write = false;  // carries its size; PARTIAL is allowed
  uint64_t bytes = 0;
  int64_t offset = -1;  // v1.7: a write's file offset, sent with its HIT ("at:"); -1: unknown
  bool excl = false;    // v1.3: an exclusive create
  bool wait = false;    // waits even when one way: the harness must read the sandbox here
};

class Channel {
 public:
  explicit Channel(const Config& config) : config_(config) {}
  ~Channel();
  // Sends HIT and returns the answer, or queues a one-way SEEN (v1.2) and returns kContinue.
  // Exits 70 (as the shim does) on ERROR, EOF or a bad answer, after killing the job.
  Reply Hit(const Point& p);
  // Whether Hit waits for an answer (a HIT) rather than queueing a one-way SEEN.
  bool Waits(const Point& p) const;
  // After kAfter or kPartial: DONE with the bytes that reached the file; waits for CONTINUE.
  void Done(const Point& p, uint64_t done_bytes);
  // v1.5: `op` changed `path`, outside the sandbox; one way, once per (op, path).
  void Outside(std::string_view op, int pid, std::string_view path);
  // v1.6: `call` was refused (io_uring_setup): what the supervisor cannot follow. One way.
  void Refused(std::string_view call, int pid);
  // Sends what is queued; at the job's end.
  void Flush();

 private:
  void Connect(const std::string& at);
  void Send(const std::string& at);
  std::string ReadLine(const std::string& at);
  std::string Exchange(const char* kind, const Point& p, uint64_t bytes);

  const Config& config_;
  int fd_ = -1;
  std::string out_;  // lines not sent yet
  std::string in_;   // bytes read past the last answer
  std::vector<std::string> outside_sent_;
};

// Prints "killpoint supervisor: <message>" to stderr, kills the job's process group and exits 70.
[[noreturn]] void Fatal(const std::string& message);

}  // namespace killpoint::supervisor
