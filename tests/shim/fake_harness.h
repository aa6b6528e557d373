// The harness's side of the failpoint protocol v1.2 for the shim's tests: a TCP listener on
// 127.0.0.1:0 that records every line it receives, in arrival order, and answers each HIT and
// DONE (never a one-way SEEN) as a rule says: a line ("CONTINUE", "AFTER", "PARTIAL 5", "ERROR
// ..."), or a SIGKILL of the job's process group and no answer, the way the real harness crashes a
// job.
#ifndef KILLPOINT_TESTS_SHIM_FAKE_HARNESS_H_
#define KILLPOINT_TESTS_SHIM_FAKE_HARNESS_H_

#include <sys/types.h>

#include <condition_variable>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace killpoint::shim_testing {

struct Line {
  // "HIT", "DONE", "SEEN", "OUTSIDE" (v1.5: name is the op, path the path) or "REFUSED" (v1.6:
  // name is the system call the supervisor refused)
  std::string kind;
  std::string name;
  int pid = 0;
  long long bytes = -1;   // the optional fourth field (a write's size), -1 when absent
  bool excl = false;      // the fourth field is "excl" (v1.3): an exclusive create
  std::string unseen;     // "unseen:<op>" after the bytes (v1.4): a write the shim did not see
  long long offset = -1;  // "at:<offset>" after the bytes (v1.7): where a write lands; -1: none
  std::string path;       // OUTSIDE: the path, as sent (%XX-encoded)
  int connection = 0;     // 1, 2, ... in accept order
};

struct Reply {
  bool kill = false;  // SIGKILL the job's process group instead of answering
  std::string text;   // the answer, without '\n'

  static Reply Send(std::string text) { return {false, std::move(text)}; }
  static Reply Continue() { return Send("CONTINUE"); }
  static Reply Kill() { return {true, ""}; }
};

using Rule = std::function<Reply(const Line&)>;

// CONTINUE to everything.
Rule ContinueAll();
// At the HIT of `name`: `at_hit`; at its DONE: `at_done`; CONTINUE to anything else.
Rule At(const std::string& name, Reply at_hit, Reply at_done = Reply::Kill());

class FakeHarness {
 public:
  explicit FakeHarness(Rule rule = ContinueAll());
  FakeHarness(const FakeHarness&) = delete;
  FakeHarness& operator=(const FakeHarness&) = delete;
  ~FakeHarness();

  // The value for KILLPOINT_CTL.
  std::string address() const;
  // The job's process group, which a Kill reply targets (it waits until this is set).
  void SetGroup(pid_t pgid);

  // Waits (up to 30 s) until every connection made so far has reached EOF and been read.
  void WaitIdle();

  std::vector<Line> lines() const;
  // The names of the HIT lines, in order.
  std::vector<std::string> hits() const;
  int connections() const;
  bool killed() const;

 private:
  void AcceptLoop();
  void Serve(int fd, int connection);
  void KillGroup();

  Rule rule_;
  int listen_fd_ = -1;
  int wake_[2] = {-1, -1};
  int port_ = 0;
  mutable std::mutex mu_;
  std::condition_variable group_set_;
  std::condition_variable served_;
  int open_ = 0;                           // guarded by mu_: connections not read to EOF yet
  pid_t group_ = 0;                        // guarded by mu_
  bool killed_ = false;                    // guarded by mu_
  std::vector<Line> lines_;                // guarded by mu_
  std::vector<int> conn_fds_;              // guarded by mu_
  std::vector<std::thread> conn_threads_;  // only touched by the accept thread, then ~
  std::thread accept_thread_;
};

}  // namespace killpoint::shim_testing

#endif  // KILLPOINT_TESTS_SHIM_FAKE_HARNESS_H_
