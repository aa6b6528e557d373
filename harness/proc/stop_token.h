// A request to stop the run, and the signal that made it. The harness's own source is fed by its
// SIGINT/SIGTERM handlers (InterruptToken in proc/interrupt.h); a test makes a StopSource of its
// own and stops a trial, a suite or a wait whenever it likes, without a signal.
//
// Not std::stop_source: request_stop is not async-signal-safe (it may lock and runs callbacks),
// and a stop here carries its signal, which the run reports ("interrupted by SIGINT") and exits
// with. RequestStop only stores a lock-free atomic and writes one byte to a self-pipe, so a
// signal handler may call it; a waiter polls fd() beside its other descriptors.
#pragma once

#include <atomic>

namespace killpoint {

class StopSource;

// Cheap to copy; the source must outlive it. A default token never stops.
class StopToken {
 public:
  StopToken() = default;

  // 0 until a stop was requested, then the signal it was requested with. Async-signal-safe.
  int signal() const;
  bool stop_requested() const { return signal() != 0; }
  // Polls readable (POLLIN) once a stop was requested; -1 when the source has no self-pipe
  // (poll ignores a negative descriptor: then only signal() tells).
  int fd() const;

 private:
  friend class StopSource;
  explicit StopToken(const StopSource* source) : source_(source) {}
  const StopSource* source_ = nullptr;
};

class StopSource {
 public:
  StopSource() = default;  // without a self-pipe until OpenPipe
  ~StopSource();
  StopSource(const StopSource&) = delete;
  StopSource& operator=(const StopSource&) = delete;

  // Creates the self-pipe behind StopToken::fd. Idempotent; call it before a stop may be
  // requested (it is not async-signal-safe). False when the pipe cannot be made.
  bool OpenPipe();
  // Records `signal` (non-zero) unless a stop was requested already, and makes fd() readable;
  // the byte is never read, so every later poll returns at once too. Returns whether this call
  // recorded the stop. Async-signal-safe; keeps errno.
  bool RequestStop(int signal);
  // Forgets the stop and empties the pipe (tests).
  void Reset();

  StopToken token() const { return StopToken(this); }

 private:
  friend class StopToken;
  void Wake() const;  // one byte to the self-pipe, if any: async-signal-safe
  static_assert(std::atomic<int>::is_always_lock_free,
                "a signal handler may only touch lock-free atomics");
  std::atomic<int> signal_{0};
  int pipe_[2] = {-1, -1};
};

}  // namespace killpoint
