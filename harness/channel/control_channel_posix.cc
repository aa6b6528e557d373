#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "channel/control_channel.h"
#include "channel/peer_uid.h"
#include "channel/protocol_line.h"

namespace killpoint {
namespace {

constexpr size_t kMaxLine = 4096;

void SendAll(int fd, const std::string& s) {
  size_t off = 0;
  while (off < s.size()) {
    ssize_t n = ::send(fd, s.data() + off, s.size() - off, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    off += static_cast<size_t>(n);
  }
}

class PosixControlChannel : public ControlChannel {
 public:
  PosixControlChannel(Handler handler, int listener, int stop, int wake, int port)
      : handler_(std::move(handler)), listener_(listener), stop_(stop), wake_(wake), port_(port) {
    thread_ = std::thread([this] { Loop(); });
  }

  ~PosixControlChannel() override {
    uint64_t one = 1;
    (void)!::write(stop_, &one, sizeof one);
    thread_.join();
    for (auto& [fd, buffer] : clients_) ::close(fd);
    ::close(listener_);
    ::close(stop_);
    ::close(wake_);
  }

  std::string Address() const override { return "127.0.0.1:" + std::to_string(port_); }
  int RefusedPeers() const override { return refused_peers_.load(); }

  bool WaitIdle(std::chrono::milliseconds timeout) override {
    std::unique_lock lock(idle_mu_);
    // The backlog first, the count next, as in Reset: a connection is counted before accept4
    // takes it from the backlog, so no connection slips between the two looks. (A count the
    // loop copied at the end of its pass was stale between an accept and that end: a job that
    // had reported and exited read as idle, and its reports were lost to its attempt.)
    return idle_cv_.wait_for(lock, timeout,
                             [&] { return !PendingConnection() && connections_open_.load() == 0; });
  }

  void Answer(uint64_t connection, HitAnswer answer) override {
    {
      std::lock_guard lock(answers_mu_);
      answers_.emplace_back(connection, answer);
    }
    uint64_t one = 1;
    (void)!::write(wake_, &one, sizeof one);
  }

 private:
  void Loop() {
    for (;;) {
      std::vector<pollfd> fds{{stop_, POLLIN, 0}, {listener_, POLLIN, 0}, {wake_, POLLIN, 0}};
      for (const auto& [fd, buffer] : clients_) fds.push_back({fd, POLLIN, 0});
      if (::poll(fds.data(), fds.size(), -1) < 0) {
        if (errno == EINTR) continue;
        return;
      }
      if (fds[0].revents) return;
      if (fds[1].revents & POLLIN) Accept();
      for (size_t i = 3; i < fds.size(); ++i) {
        if (fds[i].revents) Read(fds[i].fd);
      }
      // After the reads: an answer may close a connection that this pass's fds still list.
      if (fds[2].revents & POLLIN) {
        uint64_t count;
        (void)!::read(wake_, &count, sizeof count);
        ApplyReset();  // after the read: a Reset that wrote since wakes the next pass
        SendHeldAnswers();
      }
      std::lock_guard lock(idle_mu_);  // a waiter checks under it: no wake-up is lost
      idle_cv_.notify_all();
    }
  }

  // A connection the loop has not accepted yet (a job's connect() has returned for it).
  bool PendingConnection() const {
    pollfd p{listener_, POLLIN, 0};
    return ::poll(&p, 1, 0) > 0;
  }

  // Counts the connection before taking it from the backlog (Reset's fast path).
  void Accept() {
    ++connections_open_;
    int fd = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      --connections_open_;
      return;
    }
    clients_[fd] = "";
    connection_of_[fd] = ++connections_;
  }

  void Close(int fd) {
    peer_.erase(fd);
    ::close(fd);
    if (clients_.erase(fd) > 0) --connections_open_;
    connection_of_.erase(fd);
  }

  // Most trials leave nothing open: a job that never hit a failpoint, or whose connections the
  // loop closed when it died. Then there is nothing for the loop thread to close and the handler
  // is swapped here, without waking that thread and waiting for it (two thread hand-offs a
  // trial, docs/performance.md "Group commit over a window"). Nothing can connect meanwhile: the
  // trial's processes are dead (detach) or not yet started (attach). A connection is counted
  // before the loop takes it from the listener's backlog, so looking at the backlog first and
  // at the count next misses none.
  void Reset(Handler handler) override {
    std::unique_lock lock(reset_mu_);
    if (!PendingConnection() && connections_open_.load() == 0) {
      {
        std::lock_guard answers_lock(answers_mu_);
        answers_.clear();
      }
      std::lock_guard handler_lock(handler_mu_);
      handler_ = std::move(handler);
      return;
    }
    next_handler_ = std::move(handler);
    reset_pending_ = true;
    uint64_t one = 1;
    (void)!::write(wake_, &one, sizeof one);
    reset_done_.wait(lock, [this] { return !reset_pending_; });
  }

  // On the loop thread: a Reset asked for.
  void ApplyReset() {
    std::lock_guard lock(reset_mu_);
    if (!reset_pending_) return;
    for (const auto& [fd, buffer] : clients_) ::close(fd);
    connections_open_ -= clients_.size();
    clients_.clear();
    connection_of_.clear();
    peer_.clear();
    {
      std::lock_guard answers_lock(answers_mu_);
      answers_.clear();
    }
    std::lock_guard handler_lock(handler_mu_);
    handler_ = std::move(next_handler_);
    reset_pending_ = false;
    reset_done_.notify_all();
  }

  // Answers the held hits someone answered meanwhile (Answer), on connections still open.
  void SendHeldAnswers() {
    std::vector<std::pair<uint64_t, HitAnswer>> answers;
    {
      std::lock_guard lock(answers_mu_);
      answers.swap(answers_);
    }
    for (const auto& [connection, answer] : answers) {
      uint64_t wanted = connection;  // a lambda captures no structured binding in clang 14
      auto it = std::find_if(connection_of_.begin(), connection_of_.end(),
                             [wanted](const auto& entry) { return entry.second == wanted; });
      if (it == connection_of_.end()) continue;
      int fd = it->first;
      if (!Send(fd, answer)) Close(fd);
    }
  }

  // False when the connection must be closed (the job was killed).
  static bool Send(int fd, const HitAnswer& answer) {
    switch (answer.kind) {
      case HitAnswer::kKilled:
        return false;
      case HitAnswer::kHold:
        return true;  // someone answers it later
      case HitAnswer::kContinue:
        SendAll(fd, "CONTINUE\n");
        break;
      case HitAnswer::kAfter:
        SendAll(fd, "AFTER\n");
        break;
      case HitAnswer::kPartial:
        SendAll(fd, "PARTIAL " + std::to_string(answer.bytes) + "\n");
        break;
    }
    return true;
  }

  void Read(int fd) {
    char chunk[512];
    ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
    if (n < 0 && errno == EINTR) return;
    if (n <= 0) return Close(fd);
    std::string& buffer = clients_[fd];
    buffer.append(chunk, static_cast<size_t>(n));
    size_t nl;
    while ((nl = buffer.find('\n')) != std::string::npos) {
      std::string line = buffer.substr(0, nl);
      buffer.erase(0, nl + 1);
      if (!Answer(fd, line)) return Close(fd);
    }
    if (buffer.size() > kMaxLine) {
      SendAll(fd, "ERROR line too long\n");
      Close(fd);
    }
  }

  enum class Peer { kUnasked, kOurs, kOther, kGone };
  // The owner of the peer's socket against ours: a peer that is gone (closed before the
  // question) cannot be told.
  static Peer AskPeer(int fd) {
    if (!PeerUidsKnowable()) return Peer::kOurs;  // said once on stderr
    Result<uid_t> uid = PeerUidOf(fd);
    if (!uid) return Peer::kGone;
    return uid.value() == ::geteuid() ? Peer::kOurs : Peer::kOther;
  }

  // False when the connection must be closed (the job was killed, or spoke nonsense).
  bool Answer(int fd, const std::string& line) {
    std::optional<FailpointHit> hit = ParseProtocolLine(line);
    if (!hit) {
      SendAll(fd, "ERROR expected 'HIT <name> <pid>'\n");
      return false;
    }
    hit->connection = connection_of_[fd];
    // Who sent it, asked once per connection at its first line (docs/hardening.md, "Who can
    // reach the harness"): another user's connection is refused. A peer that closed before
    // the loop read it cannot be told (the kernel keeps no owner for a closed socket): its
    // one-way reports count, but a HIT, which waits for its answer, comes only from a peer
    // the kernel vouches for, so nobody else can make the harness kill on cue.
    Peer& peer = peer_[fd];
    if (peer == Peer::kUnasked) peer = AskPeer(fd);
    if (peer == Peer::kOther || (peer == Peer::kGone && !hit->seen && !hit->done)) {
      ++refused_peers_;
      SendAll(fd, peer == Peer::kOther ? "ERROR connection from another user refused\n"
                                       : "ERROR the peer cannot be told: refused\n");
      return false;
    }
    std::lock_guard handler_lock(handler_mu_);
    if (!handler_) return false;                                      // between trials (Reset)
    if (hit->seen) return handler_(*hit).kind != HitAnswer::kKilled;  // one way: no answer
    return Send(fd, handler_(*hit));
  }

  std::mutex handler_mu_;
  Handler handler_;  // guarded by handler_mu_; Reset swaps it, or hands it to the loop
  int listener_;
  int stop_;
  int wake_;  // eventfd: Answer queued held answers
  int port_;
  std::map<int, std::string> clients_;       // fd -> unread bytes; only the loop thread touches it
  std::map<int, uint64_t> connection_of_;    // fd -> connection number; the loop thread's
  std::map<int, Peer> peer_;                 // fd -> who is at the other end; the loop thread's
  std::atomic<int> refused_peers_{0};        // connections refused for their peer
  uint64_t connections_ = 0;                 // connections accepted; the loop thread's
  std::atomic<size_t> connections_open_{0};  // clients_.size(), counted before accept4
  std::mutex reset_mu_;
  std::condition_variable reset_done_;
  Handler next_handler_;        // guarded by reset_mu_
  bool reset_pending_ = false;  // guarded by reset_mu_
  std::mutex answers_mu_;
  std::vector<std::pair<uint64_t, HitAnswer>> answers_;  // guarded by answers_mu_
  std::mutex idle_mu_;
  std::condition_variable idle_cv_;
  std::thread thread_;
};

}  // namespace

Result<std::unique_ptr<ControlChannel>> ControlChannel::Start(Handler handler) {
  int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listener < 0) return Error::Harness(std::string("socket: ") + std::strerror(errno));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  if (::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(listener, 64) != 0 ||
      ::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    std::string why = std::strerror(errno);
    ::close(listener);
    return Error::Harness("control channel: cannot listen on 127.0.0.1: " + why);
  }
  int stop = ::eventfd(0, EFD_CLOEXEC);
  int wake = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (stop < 0 || wake < 0) {
    std::string why = std::strerror(errno);
    ::close(listener);
    if (stop >= 0) ::close(stop);
    if (wake >= 0) ::close(wake);
    return Error::Harness("eventfd: " + why);
  }
  return std::unique_ptr<ControlChannel>(
      new PosixControlChannel(std::move(handler), listener, stop, wake, ntohs(addr.sin_port)));
}

}  // namespace killpoint
