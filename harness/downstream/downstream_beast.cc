// The downstream on Boost.Beast over Boost.Asio (issue 34): one thread runs the io_context and
// does every accept, read and write, asynchronously, so that idle keep-alive connections cost
// a socket each and no thread. A complete request goes to a HandlerPool thread (its handler may
// block: points, kDelay, holds); its answer comes back to the io thread to be written, its
// after_answer point is passed on a pool thread again, and only then is the connection's next
// request read: pipelined requests are handled, recorded and answered in order.
#include <arpa/inet.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <cctype>
#include <condition_variable>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <thread>
#include <vector>

#include "channel/peer_uid.h"
#include "downstream/downstream.h"
#include "downstream/handler_pool.h"
#include "history/event.h"
#include "history/event_registry.h"
#include "plan/crash_point.h"
#include "scenario/scenario.h"

namespace killpoint {
namespace {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = boost::beast::http;
using nlohmann::json;
using tcp = boost::asio::ip::tcp;

// The most request line and headers a request may have (Beast's default).
constexpr uint32_t kMaxDownstreamHeaderBytes = 8192;
// Handler threads at most; a request beyond them waits for one (each connection has at most one
// request in a handler, so only as many connections as this sending at once would wait).
constexpr size_t kMaxHandlerThreads = 256;

// "%41+b" -> "A b": a query parameter as the client meant it.
std::string UrlDecode(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out += ' ';
    } else if (text[i] == '%' && i + 2 < text.size() &&
               std::isxdigit(static_cast<unsigned char>(text[i + 1])) &&
               std::isxdigit(static_cast<unsigned char>(text[i + 2]))) {
      out += static_cast<char>(std::stoi(std::string(text.substr(i + 1, 2)), nullptr, 16));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

// One request as its handler sees it.
struct DownstreamRequest {
  std::string method;
  std::string path;                           // the target without its query
  std::map<std::string, std::string> params;  // the query's, decoded; the first of a name
  http::fields headers;
  std::string body;
  sockaddr_in peer{};   // the client's address, taken when its connection was accepted
  sockaddr_in local{};  // ours
  int refused = 0;      // 411 or 413: refused on its headers, the body unread; else 0

  std::string Header(const char* name) const { return std::string(headers[name]); }
  std::string Param(const char* name) const {
    auto it = params.find(name);
    return it == params.end() ? "" : it->second;
  }
};

// Method, path and query from a request's start line.
void ReadTarget(const http::request<http::string_body>& message, DownstreamRequest& req) {
  req.method = std::string(message.method_string());
  std::string_view target(message.target().data(), message.target().size());
  size_t query = target.find('?');
  req.path = std::string(target.substr(0, query));
  if (query == std::string_view::npos) return;
  std::string_view rest = target.substr(query + 1);
  while (!rest.empty()) {
    std::string_view pair = rest.substr(0, rest.find('&'));
    rest.remove_prefix(std::min(rest.size(), pair.size() + 1));
    size_t eq = pair.find('=');
    std::string name = UrlDecode(pair.substr(0, eq));
    std::string value = eq == std::string_view::npos ? "" : UrlDecode(pair.substr(eq + 1));
    req.params.emplace(std::move(name), std::move(value));  // keeps the first
  }
}

// Why a request's peer may not publish, or "" when it is the harness's own user: the downstream
// is on 127.0.0.1, which every local user reaches (issue 34: another user's POST /publish was
// recorded as the job's). A client that closed before its request was read cannot be told
// (the kernel keeps no owner for a closed socket) and is refused too: it reads no answer.
std::string ForeignPeerOf(const DownstreamRequest& req) {
  if (!PeerUidsKnowable()) return "";  // said once on stderr
  if (req.peer.sin_family != AF_INET || req.local.sin_family != AF_INET)
    return "a peer that is not IPv4 loopback: refused";
  Result<uid_t> uid = LoopbackPeerUid(req.peer, req.local);
  if (!uid) return "its client closed before it could be told who sent it: refused";
  if (uid.value() != ::geteuid())
    return "from another user (uid " + std::to_string(uid.value()) + "): refused";
  return "";
}

class BeastDownstream : public Downstream {
 public:
  explicit BeastDownstream(DownstreamLimits limits)
      : limits_(limits), ioc_(std::make_unique<net::io_context>()), pool_(kMaxHandlerThreads) {
    acceptor_.emplace(*ioc_);
    retry_.emplace(*ioc_);
  }

  ~BeastDownstream() override {
    {
      std::lock_guard lock(mu_);
      closing_ = true;  // a request held from now on is let go at once
      ++release_generation_;
      released_.notify_all();
    }
    ioc_->stop();
    if (io_thread_.joinable()) io_thread_.join();
    pool_.Shutdown();  // the tasks left, and the sessions they own, go first
    // Then the handlers ioc_ never ran, and the sessions they own, while mu_ and the rest that
    // a session's points use are still there.
    acceptor_.reset();
    retry_.reset();
    ioc_.reset();
  }

  Status Listen() {
    beast::error_code ec;
    tcp::endpoint at(net::ip::make_address_v4("127.0.0.1"), 0);
    acceptor_->open(at.protocol(), ec);
    if (!ec) acceptor_->bind(at, ec);
    if (!ec) acceptor_->listen(net::socket_base::max_listen_connections, ec);
    if (ec) return Error::Harness("downstream: cannot listen on 127.0.0.1: " + ec.message());
    port_ = acceptor_->local_endpoint().port();
    Accept();
    io_thread_ = std::thread([this] { ioc_->run(); });
    return Ok();
  }

  std::string BaseUrl() const override { return "http://127.0.0.1:" + std::to_string(port_); }

  void ArmFault(const std::string& fault) override {
    std::lock_guard lock(mu_);
    armed_ = fault;
  }

  void ArmBurst(int length) override {
    std::lock_guard lock(mu_);
    burst_left_ = length;
    burst_length_ = length;
  }

  void SetInstance(int instance) override {
    std::lock_guard lock(mu_);
    instance_ = instance;
  }

  void ReleaseHeld() override {
    std::lock_guard lock(mu_);
    ++release_generation_;
    released_.notify_all();
  }

  void Attach(bool dedupe, History* history, bool by_idempotency_key) override {
    Detach();
    std::lock_guard lock(mu_);
    dedupe_ = dedupe;
    by_idempotency_key_ = by_idempotency_key;
    history_ = history;
    armed_.clear();
    deliveries_.clear();
    by_header_.clear();
    next_delivery_ = next_alert_ = burst_left_ = burst_length_ = 0;
    instance_ = 1;
  }

  void SetPointHook(PointHook hook) override {
    std::lock_guard lock(mu_);
    point_hook_ = std::move(hook);
  }

  bool WaitPoints(std::chrono::milliseconds timeout) override {
    std::unique_lock lock(mu_);
    return points_done_.wait_for(lock, timeout, [this] { return pointing_ == 0; });
  }

  void Detach() override {
    std::unique_lock lock(mu_);
    ++release_generation_;
    released_.notify_all();
    idle_.wait(lock, [this] { return serving_ == 0; });
    history_ = nullptr;
    point_hook_ = nullptr;
  }

 private:
  class RequestPoints;
  class Session;

  // What a handler answers. Written by the io thread; `after_answer` is passed once it is.
  struct Reply {
    int status = 200;
    std::string body;
    bool answer = true;  // false: the connection is closed unanswered (a held or killed request)
    bool close = false;  // the connection ends after the answer (a body left unread)
    std::shared_ptr<RequestPoints> after_answer;
  };
  using Endpoint = void (BeastDownstream::*)(const DownstreamRequest&, Reply&);

 public:
  struct Route {
    const char* method;
    const char* path;
    Endpoint endpoint;
  };
  // The API (docs/downstream-openapi.json; Downstream::Routes() lists it for the test that
  // checks the file against the server).
  static std::span<const Route> RouteTable() {
    static constexpr Route kRoutes[] = {
        {"POST", "/publish", &BeastDownstream::Publish},
        {"GET", "/deliveries", &BeastDownstream::Deliveries},
        {"POST", "/alert", &BeastDownstream::Alert},
        {"POST", "/retry", &BeastDownstream::JobRetry},
        {"POST", "/wait", &BeastDownstream::JobWait},
    };
    return kRoutes;
  }

 private:
  void Accept();

  // Serves one request on a pool thread: between two trials nobody's (503, recorded nowhere);
  // else refused (403, 404, 411, 413: a bad_request event) or handed to its endpoint. Detach
  // waits until no request is in here, and the history a request records in cannot change under
  // it (it is read after serving_ went up, under mu_, and changed only while serving_ is 0,
  // under mu_).
  Reply Serve(const DownstreamRequest& req) {
    Reply res;
    {
      std::lock_guard lock(mu_);
      if (history_ == nullptr) {
        res.status = 503;
        return res;
      }
      ++serving_;
    }
    if (std::string who = ForeignPeerOf(req); !who.empty()) {
      Refuse(req, res, 403, who.c_str());  // docs/hardening.md, "Who can reach the harness"
    } else if (req.refused == 411) {
      Refuse(req, res, 411, "a chunked body: send a Content-Length");
    } else if (req.refused == 413) {
      Refuse(req, res, 413, "over 1 MiB, or its Content-Length unreadable");
    } else if (const Route* route = Find(req)) {
      (this->*(route->endpoint))(req, res);
    } else {
      Refuse(req, res, 404, "no such endpoint");
    }
    std::lock_guard lock(mu_);
    if (--serving_ == 0) idle_.notify_all();
    return res;
  }

  static const Route* Find(const DownstreamRequest& req) {
    for (const Route& route : RouteTable()) {
      if (req.method == route.method && req.path == route.path) return &route;
    }
    return nullptr;
  }

  // A refusal: recorded as a bad_request event, answered with the reason. One whose body was
  // left unread (411, 413) or whose peer is refused (403) ends its connection.
  void Refuse(const DownstreamRequest& req, Reply& res, int status, const char* reason) {
    history_->Add(event::BadRequest{req.method + " " + req.path, reason});
    res.status = status;
    res.body = json{{"error", reason}}.dump();
    res.close = status != 404;
  }

  // A 400: recorded as a bad_request event, answered with the reason.
  void BadRequest(const DownstreamRequest& req, Reply& res, const std::string& reason) {
    history_->Add(event::BadRequest{req.path, reason});
    res.status = 400;
    res.body = json{{"error", reason}}.dump();
  }

  // The crash points of one request (SetPointHook). While it lives the request counts in
  // serving_ (Detach waits for it) and in pointing_ (WaitPoints waits for it); the reply keeps
  // it until the answer is written and after_answer passed.
  class RequestPoints {
   public:
    RequestPoints(BeastDownstream* d, std::string path) : d_(d), path_(std::move(path)) {
      std::lock_guard lock(d_->mu_);
      ++d_->serving_;
      ++d_->pointing_;
    }
    ~RequestPoints() {
      std::lock_guard lock(d_->mu_);
      Done();
      if (--d_->serving_ == 0) d_->idle_.notify_all();
    }
    RequestPoints(const RequestPoints&) = delete;
    RequestPoints& operator=(const RequestPoints&) = delete;

    // True when the hook killed the job's attempt at this moment. Call it without mu_.
    bool Pass(const char* moment) {
      PointHook hook;
      {
        std::lock_guard lock(d_->mu_);
        hook = d_->point_hook_;
        generation_ =
            d_->release_generation_;  // before the kill: its attempt's release comes after
      }
      return hook && hook(DownstreamPoint(path_, moment));
    }

    // After a kill: the request ends unanswered once the killed attempt is over, like one held
    // by commit_no_answer (its job is dead: nobody could read an answer anyway).
    void HoldUnanswered(Reply& res) {
      res.answer = false;
      std::unique_lock lock(d_->mu_);
      Done();
      d_->released_.wait(lock,
                         [&] { return d_->release_generation_ != generation_ || d_->closing_; });
    }

   private:
    void Done() {  // requires d_->mu_
      if (done_) return;
      done_ = true;
      if (--d_->pointing_ == 0) d_->points_done_.notify_all();
    }

    BeastDownstream* d_;
    std::string path_;
    uint64_t generation_ = 0;
    bool done_ = false;
  };

  // Parses a JSON body with a string "key"; on failure answers 400 and records why.
  bool ReadBody(const DownstreamRequest& req, Reply& res, json& body) {
    body = json::parse(req.body, nullptr, false);
    if (!body.is_object() || !body.contains("key") || !body["key"].is_string()) {
      BadRequest(req, res, "body needs a string key");
      return false;
    }
    return true;
  }

  // The instance a request came from (docs/faults.md): the job's header, else the runner's view.
  // Requires mu_.
  // nullopt: the first instance, or no overlap (history/event.h, InstanceOf).
  std::optional<int> Attribute(const DownstreamRequest& req) const {
    std::string said = req.Header("X-Killpoint-Instance");
    if (said == "1" || said == "2" || said == "3") {  // 3: docs/faults.md, "Three instances"
      if (said != "1" || instance_ != 1) return said[0] - '0';
    } else if (instance_ != 1) {
      return instance_;
    }
    return std::nullopt;
  }

  void Publish(const DownstreamRequest& req, Reply& res) {
    json body;
    if (!ReadBody(req, res, body)) return;
    auto points = std::make_shared<RequestPoints>(this, "/publish");
    if (points->Pass(kBeforeCommit))
      return points->HoldUnanswered(res);  // the job is dead: nothing committed
    std::string key = body["key"];
    event::Publish record;
    record.key = key;
    record.biz_date = body.value("biz_date", "");
    record.idempotency_key = req.Header("Idempotency-Key");
    std::unique_lock lock(mu_);
    record.instance = Attribute(req);
    std::string fault;
    if (burst_left_ > 0) {  // a burst goes first; what is armed waits for the publish after it
      record.burst = burst_length_ - --burst_left_;
      fault = kFailBeforeCommit;
    } else {
      fault = std::exchange(armed_, "");
    }
    record.fault = fault;
    if (fault == kFailBeforeCommit) {
      history_->Add(record);
      res.status = 503;
      res.body = R"j({"error":"unavailable (injected before commit)"})j";
      return;
    }
    std::vector<int>& ids = deliveries_[key];
    // dedupe_by idempotency_key: the deliveries of the same header value decide (its own block).
    const std::string& header = record.idempotency_key;
    std::vector<int>& same = by_idempotency_key_ ? by_header_[header] : ids;
    bool duplicate = dedupe_ && !same.empty() && !(by_idempotency_key_ && header.empty());
    if (!duplicate) {
      ids.push_back(++next_delivery_);
      if (&same != &ids) same.push_back(next_delivery_);
    }
    record.committed = !duplicate;
    record.deduplicated = duplicate;
    record.delivery_id = duplicate ? same.front() : ids.back();
    history_->Add(record);
    uint64_t generation = release_generation_;  // before the lock is let go: no release is missed
    lock.unlock();
    if (points->Pass(kAfterCommit)) return points->HoldUnanswered(res);  // the job is dead
    if (fault == kCommitNoAnswer) {
      points.reset();  // never answered: no point left
      res.answer = false;
      lock.lock();
      released_.wait(lock, [&] { return release_generation_ != generation || closing_; });
      return;  // the client has long given up
    }
    if (fault == kDelay) {  // committed; the answer comes late, other requests go on meanwhile
      std::this_thread::sleep_for(std::chrono::milliseconds(kDownstreamDelayMs));
    }
    res.body = json{{"delivery_id", record.delivery_id}, {"deduplicated", duplicate}}.dump();
    res.after_answer = std::move(points);
  }

  void Deliveries(const DownstreamRequest& req, Reply& res) {
    std::string key = req.Param("key");
    if (key.empty()) return BadRequest(req, res, "missing key parameter");
    std::lock_guard lock(mu_);
    size_t count = deliveries_.count(key) ? deliveries_[key].size() : 0;
    history_->Add(event::Query{key, static_cast<int64_t>(count), Attribute(req)});
    res.body = json{{"key", key}, {"count", count}}.dump();
  }

  void Alert(const DownstreamRequest& req, Reply& res) {
    json body;
    if (!ReadBody(req, res, body)) return;
    auto points = std::make_shared<RequestPoints>(this, "/alert");
    if (points->Pass(kBeforeCommit)) return points->HoldUnanswered(res);
    int id = 0;
    {
      std::lock_guard lock(mu_);
      id = ++next_alert_;
      history_->Add(event::Alert{body["key"].get<std::string>(), body.value("biz_date", ""),
                                 body.value("reason", ""), id, Attribute(req)});
    }
    if (points->Pass(kAfterCommit)) return points->HoldUnanswered(res);
    res.body = json{{"alert_id", id}}.dump();
    res.after_answer = std::move(points);
  }

  // POST /retry (docs/retry.md): a job reports one of its in-process retries. Recorded as a
  // job_retry event for retry_policy_respected; it changes nothing downstream.
  void JobRetry(const DownstreamRequest& req, Reply& res) {
    json body;
    if (!ReadBody(req, res, body)) return;
    for (const char* field : {"attempt", "backoff_ms", "delay_ms", "at_ms"}) {
      auto it = body.find(field);
      if (it == body.end() || !it->is_number_integer()) {
        return BadRequest(req, res, std::string("needs an integer ") + field);
      }
    }
    // The body's fields as the event's: the checks above made them the right type.
    history_->Add(Read<event::JobRetry>(body));
    res.body = "{}";
  }

  // POST /wait (docs/faults.md): a job reports that it waited on the real clock for what another
  // run held, a lock or a lease (the key). Recorded as a job_wait event; changes nothing here.
  void JobWait(const DownstreamRequest& req, Reply& res) {
    json body;
    if (!ReadBody(req, res, body)) return;
    auto ms = body.find("ms");
    auto acquired = body.find("acquired");
    const char* wrong = ms == body.end() || !ms->is_number_integer() || ms->get<int64_t>() < 0
                            ? "needs an integer ms of 0 or more"
                        : acquired == body.end() || !acquired->is_boolean()
                            ? "needs a boolean acquired"
                            : nullptr;
    if (wrong != nullptr) return BadRequest(req, res, wrong);
    event::JobWait wait = Read<event::JobWait>(body);  // held_by when it is a string
    std::lock_guard lock(mu_);
    wait.instance = Attribute(req);
    history_->Add(wait);
    res.body = "{}";
  }

  const DownstreamLimits limits_;
  std::atomic<size_t> open_{0};  // connections open now
  int port_ = -1;
  // The destructor resets these three, ioc_ last, before any other member goes.
  std::unique_ptr<net::io_context> ioc_;
  std::optional<tcp::acceptor> acceptor_;   // io thread only (and Listen, before it starts)
  std::optional<net::steady_timer> retry_;  // io thread only: the pause after a failed accept
  std::thread io_thread_;                   // runs ioc_ until the destructor stops it

  std::mutex mu_;
  std::condition_variable released_;
  std::condition_variable idle_;         // serving_ went down to 0
  std::condition_variable points_done_;  // pointing_ went down to 0
  bool closing_ = false;                 // guarded by mu_; the destructor has begun
  bool dedupe_ = false;                  // guarded by mu_ (see Serve)
  bool by_idempotency_key_ = false;      // guarded by mu_ (see Serve)
  History* history_ = nullptr;           // guarded by mu_ (see Serve); null: detached
  int serving_ = 0;                      // requests in progress; guarded by mu_
  int pointing_ = 0;                     // requests with points left; guarded by mu_
  PointHook point_hook_;                 // guarded by mu_; null: no points
  std::string armed_;                    // guarded by mu_
  uint64_t release_generation_ = 0;      // guarded by mu_
  std::map<std::string, std::vector<int>> deliveries_;  // guarded by mu_
  std::map<std::string, std::vector<int>> by_header_;   // guarded by mu_; by Idempotency-Key
  int next_delivery_ = 0;                               // guarded by mu_
  int next_alert_ = 0;                                  // guarded by mu_
  int burst_left_ = 0;                                  // guarded by mu_
  int burst_length_ = 0;                                // guarded by mu_
  int instance_ = 1;                                    // guarded by mu_

  // Declared last, shut down first (the destructor does, after the io thread has stopped).
  HandlerPool pool_;
};

// One connection. Its socket, buffer and parser are touched by one thread at a time: the io
// thread while it reads or writes, never while its request is with a handler (the request is a
// copy, and the io thread starts nothing on the connection until the handler's reply comes
// back). Owned by whatever operation or task is pending for it; closed when the last goes.
class BeastDownstream::Session : public std::enable_shared_from_this<Session> {
 public:
  Session(BeastDownstream* d, tcp::socket socket) : d_(d), stream_(std::move(socket)) {
    ++d_->open_;
    socklen_t length = sizeof peer_;
    if (::getpeername(stream_.socket().native_handle(), reinterpret_cast<sockaddr*>(&peer_),
                      &length) != 0)
      peer_ = {};
    length = sizeof local_;
    if (::getsockname(stream_.socket().native_handle(), reinterpret_cast<sockaddr*>(&local_),
                      &length) != 0)
      local_ = {};
  }
  ~Session() { --d_->open_; }
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Reads the next request's start line and headers, within the header timeout.
  void ReadHeader() {
    parser_.emplace();
    parser_->header_limit(kMaxDownstreamHeaderBytes);
    parser_->body_limit(kMaxDownstreamRequestBytes);
    stream_.expires_after(d_->limits_.header_timeout);
    http::async_read_header(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code ec, size_t) { self->OnHeader(ec); });
  }

 private:
  void OnHeader(beast::error_code ec) {
    if (ec == http::error::bad_content_length || ec == http::error::body_limit) return Hand(413);
    if (ec) return Malformed(ec);
    if (parser_->chunked() || parser_->get().count(http::field::transfer_encoding) != 0)
      return Hand(411);
    if (parser_->is_done()) return Hand(0);
    stream_.expires_after(d_->limits_.body_timeout);
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](beast::error_code ec, size_t) {
                       if (ec == http::error::body_limit) return self->Hand(413);
                       if (ec) return self->Malformed(ec);
                       self->Hand(0);
                     });
  }

  // A request that did not read whole: a client gone, too slow (the timeouts) or that never
  // sent one is closed, nothing recorded; one that is not HTTP is answered 400 and closed.
  void Malformed(beast::error_code ec) {
    bool not_http = ec.category() == http::make_error_code(http::error::bad_target).category();
    bool gone = !not_http || ec == http::error::end_of_stream || ec == http::error::partial_message;
    if (gone) return Close();
    Reply reply;
    reply.status = 400;
    reply.body = R"({"error":"not an HTTP/1.1 request"})";
    reply.close = true;
    Write(std::move(reply));
  }

  // Hands the request to a handler thread; `refused` (411, 413) when its body is left unread.
  void Hand(int refused) {
    stream_.expires_never();
    auto req = std::make_shared<DownstreamRequest>();
    const http::request<http::string_body>& message = parser_->get();
    ReadTarget(message, *req);
    req->headers = message.base();
    req->refused = refused;
    keep_alive_ = refused == 0 && message.keep_alive();
    if (refused == 0) req->body = parser_->release().body();
    req->peer = peer_;
    req->local = local_;
    d_->pool_.Enqueue([self = shared_from_this(), req] {
      auto reply = std::make_shared<Reply>(self->d_->Serve(*req));
      net::post(*self->d_->ioc_, [self, reply] { self->Write(std::move(*reply)); });
    });
  }

  void Write(Reply reply) {
    if (!reply.answer) return Close();
    after_answer_ = std::move(reply.after_answer);
    keep_alive_ = keep_alive_ && !reply.close;
    response_ = {};
    response_.version(11);
    response_.result(static_cast<unsigned>(reply.status));
    if (!reply.body.empty()) response_.set(http::field::content_type, "application/json");
    response_.body() = std::move(reply.body);
    response_.keep_alive(keep_alive_);
    response_.prepare_payload();
    stream_.expires_after(kDownstreamWriteTimeout);
    http::async_write(
        stream_, response_,
        [self = shared_from_this()](beast::error_code ec, size_t) { self->OnWritten(ec); });
  }

  // The answer is on the socket: after_answer is passed (on a handler thread: its hook may
  // block), and only then is the next request read.
  void OnWritten(beast::error_code ec) {
    stream_.expires_never();
    if (ec) {
      after_answer_.reset();  // not when the write failed: nobody is left to be answered
      return Close();
    }
    if (!after_answer_) return Next();
    d_->pool_.Enqueue([self = shared_from_this()] {
      self->after_answer_->Pass(kAfterAnswer);
      self->after_answer_.reset();
      net::post(*self->d_->ioc_, [self] { self->Next(); });
    });
  }

  void Next() {
    if (!keep_alive_) return Close();
    ReadHeader();
  }

  void Close() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_both, ignored);
    stream_.close();
  }

  BeastDownstream* d_;
  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;  // what came after one request (pipelined) waits here
  std::optional<http::request_parser<http::string_body>> parser_;
  http::response<http::string_body> response_;
  std::shared_ptr<RequestPoints> after_answer_;
  sockaddr_in peer_{};
  sockaddr_in local_{};
  bool keep_alive_ = false;
};

// Accepts for ever (until the destructor stops ioc_); a connection beyond max_connections is
// closed at once. A failed accept (no file descriptor left) is tried again 50 ms later.
void BeastDownstream::Accept() {
  acceptor_->async_accept([this](beast::error_code ec, tcp::socket socket) {
    if (ec == net::error::operation_aborted) return;
    if (ec) {
      retry_->expires_after(std::chrono::milliseconds(50));
      retry_->async_wait([this](beast::error_code wait) {
        if (!wait) Accept();
      });
      return;
    }
    if (open_.load() >= limits_.max_connections) {
      beast::error_code ignored;
      socket.close(ignored);
    } else {
      std::make_shared<Session>(this, std::move(socket))->ReadHeader();
    }
    Accept();
  });
}

}  // namespace

std::vector<std::pair<std::string, std::string>> Downstream::Routes() {
  std::vector<std::pair<std::string, std::string>> routes;
  for (const auto& route : BeastDownstream::RouteTable())
    routes.emplace_back(route.method, route.path);
  return routes;
}

Result<std::unique_ptr<Downstream>> Downstream::Start(bool dedupe, History* history,
                                                      bool by_idempotency_key,
                                                      DownstreamLimits limits) {
  auto service = std::make_unique<BeastDownstream>(limits);
  service->Attach(dedupe, history, by_idempotency_key);
  Status listening = service->Listen();
  if (!listening) return listening.error();
  return std::unique_ptr<Downstream>(std::move(service));
}

}  // namespace killpoint
