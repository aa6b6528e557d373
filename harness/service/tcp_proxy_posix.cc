#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <list>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "service/tcp_proxy.h"

namespace killpoint {
namespace {

using Clock = std::chrono::steady_clock;
constexpr size_t kChunk = 64 * 1024;
constexpr size_t kMaxBuffered = 256 * 1024;  // per direction, before reading stops
// How long a dropped answer is waited for: a COMMIT that never answers is cut anyway.
constexpr auto kAnswerPatience = std::chrono::seconds(10);

void ResetAndClose(int fd) {
  if (fd < 0) return;
  linger l{1, 0};  // an RST, not a FIN: what a crashed middlebox or a reset looks like
  ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
  ::close(fd);
}

void NoDelay(int fd) {
  int one = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

int ConnectLoopback(const std::string& host, int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(uint16_t(port));
  if (::inet_pton(AF_INET, host.c_str(), &a.sin_addr) != 1 ||
      ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
    ::close(fd);
    return -1;
  }
  NoDelay(fd);
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
  return fd;
}

// One relayed connection: the job's socket and the proxy's own to the server.
struct Conn {
  int client = -1, server = -1;
  std::string up, down;  // bytes read, not yet written: client->server, server->client
  bool client_eof = false, server_eof = false;
  std::unique_ptr<ClientFraming> parser;       // its protocol's (MakeClientFraming)
  std::optional<Clock::time_point> hold_down;  // delay: nothing goes to the client before it
  std::optional<Clock::time_point> swallow;    // drop_answer: cut at the answer or at this
  // A command the hook asked to hear of again once answered (CommandStep::kAskAfter), or one it
  // holds until Release (kHold, by its ticket); what the client sent after it waits in `later`,
  // its commands read but not yet asked about (their ends relative to later.bytes).
  std::optional<ClientCommand> asking;
  std::optional<uint64_t> held;
  struct Later {
    std::string bytes;
    std::vector<ClientCommand> commands;
  } later;
  bool cut_when_flushed = false;  // the job was killed before a command: what came before goes
  std::optional<Clock::time_point> stall_until;  // stall: the command waits in `later` till then
  bool dead = false;

  void Cut() {  // RST to the client, the server's side closed
    ResetAndClose(client);
    if (server >= 0) ::close(server);
    client = server = -1;
    dead = true;
  }
};

// Writes what it can of `buf` to `fd`; false on an error.
bool FlushTo(int fd, std::string& buf) {
  while (!buf.empty()) {
    ssize_t n = ::send(fd, buf.data(), buf.size(), MSG_NOSIGNAL);
    if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
    buf.erase(0, size_t(n));
  }
  return true;
}

// Reads once from `fd` into `out`; 0 at EOF, -1 on an error, -2 when nothing is there.
ssize_t ReadChunk(int fd, std::string& out) {
  char buf[kChunk];
  ssize_t n = ::recv(fd, buf, sizeof buf, 0);
  if (n < 0) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? -2 : -1;
  out.assign(buf, size_t(n));
  return n;
}

class PollProxy : public TcpProxy {
 public:
  PollProxy(int listener, int wake, int port, std::string host, int upstream, WireProtocol protocol)
      : listener_(listener),
        wake_(wake),
        port_(port),
        host_(std::move(host)),
        upstream_(upstream),
        protocol_(protocol),
        counted_(CountedMoment(protocol)) {
    thread_ = std::thread([this] { Loop(); });
  }
  ~PollProxy() override {
    stop_ = true;
    Wake();
    thread_.join();
    for (Conn& c : conns_) c.Cut();
    ::close(listener_);
    ::close(wake_);
  }

  int port() const override { return port_; }
  void Arm(const ProxyFault& fault, ProxyFired on_fired) override {
    std::lock_guard lock(mu_);
    fault_ = fault;
    fired_ = std::move(on_fired);
    commands_ = connects_ = 0;
    done_ = false;
    refuse_until_.reset();
  }
  void Disarm() override { Arm({}, nullptr); }
  void SetCommandHook(CommandHook hook) override {
    std::lock_guard lock(mu_);
    hook_ = std::move(hook);
  }
  void Release(uint64_t ticket, CommandStep step) override {
    {
      std::lock_guard lock(mu_);
      releases_.emplace_back(ticket, step);
    }
    Wake();
  }
  void CutAll() override {
    cut_all_ = true;
    Wake();
  }

 private:
  void Wake() {
    uint64_t one = 1;
    [[maybe_unused]] ssize_t n = ::write(wake_, &one, sizeof one);
  }

  // Counts a hit of the armed fault's moment, when `moment` is it (a connect, the framing's
  // counted moment, or `verb`, a command point's); the fault to apply when this is its hit
  // (told to on_fired).
  std::optional<ProxyFault> Hit(std::string_view moment, const std::string& verb = {}) {
    std::lock_guard lock(mu_);
    bool named =
        (!moment.empty() && fault_.moment == moment) || (!verb.empty() && fault_.moment == verb);
    if (!named) return std::nullopt;
    int hit = fault_.moment == kNetConnect ? ++connects_ : ++commands_;
    if (done_ || fault_.hit != hit) return std::nullopt;
    done_ = true;
    // Told under the lock: once Disarm has returned, no fault of the last arming is reported.
    if (fired_) fired_(fault_);
    return fault_;
  }

  CommandHook Hook() {
    std::lock_guard lock(mu_);
    return hook_;
  }

  bool Refusing(Clock::time_point now) {
    std::lock_guard lock(mu_);
    return refuse_until_ && now < *refuse_until_;
  }

  void Accept(Clock::time_point now) {
    int fd = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (fd < 0) return;
    bool refuse = Refusing(now);
    if (auto f = Hit(kNetConnect); f && f->action == NetAction::kRefuse) {
      std::lock_guard lock(mu_);
      refuse_until_ = now + std::chrono::milliseconds(f->ms);
      refuse = true;
    }
    if (refuse) return ResetAndClose(fd);
    NoDelay(fd);
    Conn c;
    c.client = fd;
    c.server = ConnectLoopback(host_, upstream_);
    if (c.server < 0) return ResetAndClose(fd);  // the server is down: so is its proxy
    c.parser = MakeClientFraming(protocol_);
    conns_.push_back(std::move(c));
  }

  // The client sent `bytes`: read by the framing, and, unless a command before them waits for
  // its answer or its release, gone through (Go).
  void FromClient(Conn& c, const std::string& bytes, Clock::time_point now) {
    if (c.cut_when_flushed) return;  // the job is dead: nothing more of it goes
    bool reads = c.parser && !c.parser->broken() && !c.swallow;
    std::vector<ClientCommand> commands =
        reads ? c.parser->Read(bytes) : std::vector<ClientCommand>{};
    if (!c.asking && !c.held && !c.stall_until)
      return Go(c, bytes, std::move(commands), std::nullopt, now);
    for (ClientCommand& command : commands) command.end += c.later.bytes.size();
    c.later.bytes += bytes;
    c.later.commands.insert(c.later.commands.end(), commands.begin(), commands.end());
  }

  // Counts the commands of `bytes` (COMMITs, SET ... NX) and applies a fault at one; asks the
  // command hook about each (the first not, when `first` is given: released from a hold with
  // that step); queues what goes on. A command asked about after, or held, keeps the rest in
  // Conn::later.
  void Go(Conn& c, const std::string& bytes, std::vector<ClientCommand> commands,
          std::optional<CommandStep> first, Clock::time_point now) {
    CommandHook hook = Hook();
    size_t start = 0;  // where the command being read began in `bytes`
    for (size_t i = 0; i < commands.size(); ++i) {
      const ClientCommand& command = commands[i];
      auto keep_later = [&](size_t from, size_t first_kept) {
        c.later.bytes = bytes.substr(from);
        c.later.commands.assign(commands.begin() + static_cast<std::ptrdiff_t>(first_kept),
                                commands.end());
        for (ClientCommand& k : c.later.commands) k.end -= from;
      };
      CommandStep step = CommandStep::kForward;
      if (i == 0 && first) {
        step = *first;
      } else {
        std::optional<ProxyFault> f =
            Hit(command.counted ? counted_ : std::string_view(), command.verb);
        if (f && f->action == NetAction::kReset)
          return c.Cut();  // the command never reaches the server
        if (f && f->action == NetAction::kDropAnswer) {
          c.up.append(bytes, 0, command.end);  // the command goes; whatever came after does not
          c.swallow = now + kAnswerPatience;
          return;
        }
        if (f && f->action == NetAction::kDelay)
          c.hold_down = now + std::chrono::milliseconds(f->ms);
        if (hook) step = hook(command.verb, false, ++tickets_);
        if (f && f->action == NetAction::kStall && step == CommandStep::kForward) {
          c.up.append(bytes, 0, start);  // the command and what follows wait
          c.stall_until = now + std::chrono::milliseconds(f->ms);
          keep_later(start, i);
          return;
        }
      }
      if (step == CommandStep::kKilled) {
        c.up.append(bytes, 0, start);
        c.cut_when_flushed = true;
        return;
      }
      if (step == CommandStep::kHold) {
        c.up.append(bytes, 0, start);
        c.held = tickets_;
        keep_later(start, i);
        return;
      }
      if (step == CommandStep::kAskAfter) {
        c.up.append(bytes, 0, command.end);
        c.asking = command;
        keep_later(command.end, i + 1);
        return;
      }
      start = command.end;
    }
    c.up += bytes;
  }

  // What waited in Conn::later goes through, `first` the step of its first command when that one
  // was held.
  void Resume(Conn& c, std::optional<CommandStep> first, Clock::time_point now) {
    Conn::Later later = std::move(c.later);
    c.later = {};
    Go(c, later.bytes, std::move(later.commands), first, now);
  }

  // The command asked about after (Conn::asking) was answered, or written to a server that never
  // answers it: asks the hook again; cut if it killed the job, else what waited goes on.
  void Answered(Conn& c, Clock::time_point now) {
    CommandHook hook = Hook();
    ClientCommand command = *c.asking;
    c.asking.reset();
    if (hook && hook(command.verb, true, 0) == CommandStep::kKilled) return c.Cut();
    Resume(c, std::nullopt, now);
  }

  // The releases Release queued, applied to the connections they name.
  void ApplyReleases(Clock::time_point now) {
    std::vector<std::pair<uint64_t, CommandStep>> releases;
    {
      std::lock_guard lock(mu_);
      releases.swap(releases_);
    }
    for (const auto& [ticket, step] : releases) {
      for (Conn& c : conns_) {
        if (c.dead || c.held != ticket) continue;
        c.held.reset();
        Resume(c, step, now);
      }
    }
  }

  // The server answered: passed on, or, after a dropped COMMIT, the cue to cut the client.
  void FromServer(Conn& c, const std::string& bytes, Clock::time_point now) {
    if (c.cut_when_flushed) return;
    if (c.swallow) {
      // Once the command has gone out, the server's next bytes are its answer: it has happened.
      // Bytes read while it was still queued answered what came before: dropped too.
      if (c.up.empty()) c.Cut();
      return;
    }
    // The same for a command asked about after: bytes that come once it has gone out answer it.
    if (c.asking && c.asking->answered && c.up.empty()) {
      Answered(c, now);
      if (c.dead) return;
    }
    c.down += bytes;
  }

  void Service(Conn& c, const pollfd& cp, const pollfd& sp, Clock::time_point now) {
    if (c.stall_until && now >= *c.stall_until) {  // the stalled command goes, asked already
      c.stall_until.reset();
      Resume(c, CommandStep::kForward, now);
      if (c.dead) return;
    }
    std::string bytes;
    if ((cp.revents & (POLLIN | POLLHUP | POLLERR)) && !c.client_eof) {
      ssize_t n = ReadChunk(c.client, bytes);
      if (n > 0) FromClient(c, bytes, now);
      if (n == 0 || n == -1) c.client_eof = true;
    }
    if (c.dead) return;
    if ((sp.revents & (POLLIN | POLLHUP | POLLERR)) && !c.server_eof) {
      ssize_t n = ReadChunk(c.server, bytes);
      if (n > 0) FromServer(c, bytes, now);
      if (n == 0 || n == -1) c.server_eof = true;
    }
    if (c.dead) return;
    if (!FlushTo(c.server, c.up)) return c.Cut();
    if (c.cut_when_flushed && c.up.empty()) return c.Cut();
    if (c.asking && !c.asking->answered && c.up.empty()) {
      Answered(c, now);
      if (c.dead) return;
      if (!FlushTo(c.server, c.up)) return c.Cut();
    }
    if (!c.hold_down || now >= *c.hold_down) {
      c.hold_down.reset();
      if (!FlushTo(c.client, c.down)) return c.Cut();
    }
    if (c.swallow && (c.server_eof || now >= *c.swallow)) return c.Cut();
    // One side is gone and what it sent has been passed on: the other goes too.
    if ((c.client_eof && c.up.empty()) || (c.server_eof && c.down.empty())) c.Cut();
  }

  int Timeout(Clock::time_point now) const {
    std::optional<Clock::time_point> next;
    for (const Conn& c : conns_) {
      for (auto t : {c.hold_down, c.swallow, c.stall_until}) {
        if (t && (!next || *t < *next)) next = t;
      }
    }
    if (!next) return -1;
    auto ms = std::chrono::ceil<std::chrono::milliseconds>(*next - now).count();
    return int(std::max<int64_t>(ms, 0));
  }

  void Loop() {
    std::vector<pollfd> fds;
    while (!stop_) {
      if (cut_all_.exchange(false)) {
        for (Conn& c : conns_) c.Cut();
        conns_.clear();
      }
      fds.assign({{wake_, POLLIN, 0}, {listener_, POLLIN, 0}});
      for (const Conn& c : conns_) {
        bool room = c.up.size() < kMaxBuffered && c.later.bytes.size() < kMaxBuffered;
        short ce =
            (room && !c.client_eof ? POLLIN : 0) | (!c.down.empty() && !c.hold_down ? POLLOUT : 0);
        short se = (c.down.size() < kMaxBuffered && !c.server_eof ? POLLIN : 0) |
                   (!c.up.empty() ? POLLOUT : 0);
        fds.push_back({c.client, ce, 0});
        fds.push_back({c.server, se, 0});
      }
      if (::poll(fds.data(), fds.size(), Timeout(Clock::now())) < 0 && errno != EINTR) return;
      const auto now = Clock::now();
      if (fds[0].revents & POLLIN) {
        uint64_t n;
        [[maybe_unused]] ssize_t r = ::read(wake_, &n, sizeof n);
      }
      ApplyReleases(now);
      size_t i = 2;
      for (Conn& c : conns_) {  // the connections polled, in order; Accept appends after
        Service(c, fds[i], fds[i + 1], now);
        i += 2;
      }
      conns_.remove_if([](const Conn& c) { return c.dead; });
      if (fds[1].revents & POLLIN) Accept(now);
    }
  }

  const int listener_, wake_, port_;
  const std::string host_;
  const int upstream_;
  const WireProtocol protocol_;
  const std::string_view counted_;  // the moment protocol_'s framing counts; empty for none
  std::list<Conn> conns_;           // the loop thread's only, as is tickets_
  uint64_t tickets_ = 0;            // the last ticket a command was asked about with
  std::atomic<bool> stop_{false}, cut_all_{false};
  std::mutex mu_;
  ProxyFault fault_;  // guarded by mu_, with the fields below
  ProxyFired fired_;
  CommandHook hook_;
  std::vector<std::pair<uint64_t, CommandStep>> releases_;  // Release's, for the loop
  int commands_ = 0, connects_ = 0;
  bool done_ = false;
  std::optional<Clock::time_point> refuse_until_;
  std::thread thread_;
};

}  // namespace

Result<std::unique_ptr<TcpProxy>> TcpProxy::Start(const std::string& upstream_host,
                                                  int upstream_port, WireProtocol protocol) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof a;
  if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 ||
      ::listen(fd, 128) != 0 || ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    if (fd >= 0) ::close(fd);
    return Error::Harness("fault proxy: cannot listen on 127.0.0.1");
  }
  int wake = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (wake < 0) {
    ::close(fd);
    return Error::Harness("fault proxy: no eventfd");
  }
  return std::unique_ptr<TcpProxy>(
      new PollProxy(fd, wake, ntohs(a.sin_port), upstream_host, upstream_port, protocol));
}

}  // namespace killpoint
