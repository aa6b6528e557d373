#include <arpa/inet.h>
#include <httplib.h>
#include <unistd.h>

#include <atomic>
#include <charconv>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <span>
#include <thread>
#include <vector>

#include "channel/peer_uid.h"
#include "downstream/downstream.h"
#include "history/event.h"
#include "plan/crash_point.h"
#include "scenario/scenario.h"

namespace killpoint {
namespace {

using nlohmann::json;

// httplib's ThreadPool starts all its threads up front, and a trial starts a downstream whether
// its job calls it or not: four threads made and joined per trial were a fifth of the harness's
// own cost in the smallest trial (docs/performance.md). This queue starts a thread only when a
// connection finds every thread it has busy, up to `max`: none for a job that never calls the
// downstream, one for a job that calls it one request at a time. A connection held by
// commit_no_answer keeps its thread, so the next one gets another.
class GrowingPool : public httplib::TaskQueue {
 public:
  explicit GrowingPool(size_t max) : max_(max) {}
  ~GrowingPool() override = default;

  void enqueue(std::function<void()> fn) override {
    std::lock_guard lock(mu_);
    tasks_.push_back(std::move(fn));
    if (idle_ == 0 && threads_.size() < max_) {
      threads_.emplace_back([this] { Work(); });
    } else {
      ready_.notify_one();
    }
  }

  void shutdown() override {
    {
      std::lock_guard lock(mu_);
      stopping_ = true;
    }
    ready_.notify_all();
    for (auto& t : threads_)
      t.join();  // only the listening thread adds threads, and it has stopped
  }

 private:
  void Work() {
    std::unique_lock lock(mu_);
    while (true) {
      ++idle_;
      ready_.wait(lock, [this] { return !tasks_.empty() || stopping_; });
      --idle_;
      if (tasks_.empty()) return;  // stopping, nothing left
      auto fn = std::move(tasks_.front());
      tasks_.pop_front();
      lock.unlock();
      fn();
      lock.lock();
    }
  }

  const size_t max_;
  std::mutex mu_;
  std::condition_variable ready_;
  std::deque<std::function<void()>> tasks_;  // guarded by mu_
  std::vector<std::thread> threads_;         // guarded by mu_ (joined after the last enqueue)
  size_t idle_ = 0;                          // threads waiting for a task; guarded by mu_
  bool stopping_ = false;                    // guarded by mu_
};

// The header the pre-routing handler leaves its 403's reason in, for RefusedRequest.
constexpr const char* kRefusedHeader = "X-Killpoint-Refused";

// Why a request's peer may not publish, or "" when it is the harness's own user: the downstream
// is on 127.0.0.1, which every local user reaches (issue 34: another user's POST /publish was
// recorded as the job's). A client that closed before its request was read cannot be told
// (the kernel keeps no owner for a closed socket) and is refused too: it reads no answer.
std::string ForeignPeer(const httplib::Request& req) {
  if (!PeerUidsKnowable()) return "";  // said once on stderr
  sockaddr_in peer{}, local{};
  peer.sin_family = local.sin_family = AF_INET;
  if (::inet_pton(AF_INET, req.remote_addr.c_str(), &peer.sin_addr) != 1 ||
      ::inet_pton(AF_INET, req.local_addr.c_str(), &local.sin_addr) != 1)
    return "a peer that is not IPv4 loopback: refused";
  peer.sin_port = htons(static_cast<uint16_t>(req.remote_port));
  local.sin_port = htons(static_cast<uint16_t>(req.local_port));
  Result<uid_t> uid = LoopbackPeerUid(peer, local);
  if (!uid) return "its client closed before it could be told who sent it: refused";
  if (uid.value() != ::geteuid())
    return "from another user (uid " + std::to_string(uid.value()) + "): refused";
  return "";
}

class HttplibDownstream : public Downstream {
 public:
  HttplibDownstream() = default;

  ~HttplibDownstream() override {
    ReleaseHeld();
    // Server::stop() does nothing until the loop has started: a stop in that window would leave
    // the loop blocked in accept() for ever and this join with it (seen in a trial that made no
    // request). By now the loop has almost always started; waiting here rather than in Listen()
    // keeps a trial from yielding its core, for a whole time slice on a busy machine, to let a
    // thread start that it may never need. A loop that ended on its own (accept failed) is not
    // running either, and needs no stop.
    while (!server_.is_running() && !loop_ended_) std::this_thread::yield();
    server_.stop();
    if (thread_.joinable()) thread_.join();
  }

  Status Listen() {
    server_.new_task_queue = [] { return new GrowingPool(4); };
    for (const Route& route : RouteTable()) {
      if (route.method == std::string("GET")) server_.Get(route.path, Serving(route.endpoint));
      if (route.method == std::string("POST")) server_.Post(route.path, Serving(route.endpoint));
    }
    server_.set_error_handler(Serving(&HttplibDownstream::RefusedRequest));
    server_.set_payload_max_length(kMaxDownstreamRequestBytes);
    // httplib would skip an over-long body by reading it, Content-Length bytes, before it
    // answers: "-5" parses as 2^64 - 5 and the wait never ends. Such a request is answered 413
    // before its body is read, and a chunked one 411 (httplib reads a chunked body whole,
    // whatever its size); RefusedRequest records both.
    server_.set_pre_routing_handler([](const httplib::Request& req, httplib::Response& res) {
      if (std::string who = ForeignPeer(req); !who.empty()) {
        res.status = 403;  // docs/hardening.md, "Who can reach the harness"
        res.set_header(kRefusedHeader, who);
      } else if (req.has_header("Transfer-Encoding")) {
        res.status = 411;
      } else if (!LengthFits(req.get_header_value("Content-Length"))) {
        res.status = 413;
      } else {
        return httplib::Server::HandlerResponse::Unhandled;
      }
      return httplib::Server::HandlerResponse::Handled;
    });
    port_ = server_.bind_to_any_port("127.0.0.1");
    if (port_ < 0) return Error::Harness("downstream: cannot listen on 127.0.0.1");
    // bind_to_any_port already listens, so requests queue until the loop accepts them.
    thread_ = std::thread([this] {
      server_.listen_after_bind();
      loop_ended_ = true;
    });
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
  using Endpoint = void (HttplibDownstream::*)(const httplib::Request&, httplib::Response&);

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
        {"POST", "/publish", &HttplibDownstream::Publish},
        {"GET", "/deliveries", &HttplibDownstream::Deliveries},
        {"POST", "/alert", &HttplibDownstream::Alert},
        {"POST", "/retry", &HttplibDownstream::JobRetry},
        {"POST", "/wait", &HttplibDownstream::JobWait},
    };
    return kRoutes;
  }

 private:
  // A 400: recorded as a bad_request event, answered with the reason.
  void BadRequest(const httplib::Request& req, httplib::Response& res, const std::string& reason) {
    history_->Add(event::kBadRequest, {{"path", req.path}, {"reason", reason}});
    res.status = 400;
    res.set_content(json{{"error", reason}}.dump(), "application/json");
  }

  // Every request is served inside one of these: Detach waits until none is in progress, and
  // the history a request records in cannot change under it (it is read after serving_ went
  // up, under mu_, and changed only while serving_ is 0, under mu_).
  httplib::Server::Handler Serving(Endpoint endpoint) {
    return [this, endpoint](const httplib::Request& req, httplib::Response& res) {
      {
        std::lock_guard lock(mu_);
        if (history_ == nullptr) {  // between two trials: nobody's request
          res.status = 503;
          return;
        }
        ++serving_;
      }
      (this->*endpoint)(req, res);
      std::lock_guard lock(mu_);
      if (--serving_ == 0) idle_.notify_all();
    };
  }

  // The crash points of one request (SetPointHook). While it lives the request counts in
  // serving_ (Detach waits for it) and in pointing_ (WaitPoints waits for it); the provider of
  // its answer keeps it until the answer is written and after_answer passed.
  class RequestPoints {
   public:
    RequestPoints(HttplibDownstream* d, std::string path) : d_(d), path_(std::move(path)) {
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
    void HoldUnanswered() {
      std::unique_lock lock(d_->mu_);
      Done();
      d_->released_.wait(lock, [&] { return d_->release_generation_ != generation_; });
    }

   private:
    void Done() {  // requires d_->mu_
      if (done_) return;
      done_ = true;
      if (--d_->pointing_ == 0) d_->points_done_.notify_all();
    }

    HttplibDownstream* d_;
    std::string path_;
    uint64_t generation_ = 0;
    bool done_ = false;
  };

  // Answers `text` (JSON) and passes after_answer once the whole of it is written to the socket
  // (not when the write failed: nobody is left to be answered).
  static void AnswerThenPass(httplib::Response& res, std::string text,
                             std::shared_ptr<RequestPoints> points) {
    auto body = std::make_shared<std::string>(std::move(text));
    res.set_content_provider(body->size(), "application/json",
                             [body, points](size_t offset, size_t length, httplib::DataSink& sink) {
                               if (!sink.write(body->data() + offset, length)) return false;
                               if (offset + length == body->size()) points->Pass(kAfterAnswer);
                               return true;
                             });
  }

  // A Content-Length that is absent, or digits only and at most kMaxDownstreamRequestBytes.
  static bool LengthFits(const std::string& length) {
    if (length.empty()) return true;
    size_t value = 0;
    auto [end, error] = std::from_chars(length.data(), length.data() + length.size(), value);
    return error == std::errc() && end == length.data() + length.size() &&
           value <= kMaxDownstreamRequestBytes;
  }

  // Answers httplib's own refusals: an unknown endpoint (404), a chunked body (411) and a
  // request over kMaxDownstreamRequestBytes or with a Content-Length out of range (413), their
  // bodies unread.
  void RefusedRequest(const httplib::Request& req, httplib::Response& res) {
    std::string refused = res.get_header_value(kRefusedHeader);
    const char* reason = res.status == 403   ? refused.c_str()
                         : res.status == 404 ? "no such endpoint"
                         : res.status == 411 ? "a chunked body: send a Content-Length"
                         : res.status == 413 ? "over 1 MiB, or its Content-Length unreadable"
                                             : nullptr;
    if (reason == nullptr) return;
    res.headers.erase(kRefusedHeader);
    history_->Add(event::kBadRequest, {{"path", req.method + " " + req.path}, {"reason", reason}});
    res.set_content(json{{"error", reason}}.dump(), "application/json");
  }

  // Parses a JSON body with a string "key"; on failure answers 400 and records why.
  bool ReadBody(const httplib::Request& req, httplib::Response& res, json& body) {
    body = json::parse(req.body, nullptr, false);
    if (!body.is_object() || !body.contains("key") || !body["key"].is_string()) {
      BadRequest(req, res, "body needs a string key");
      return false;
    }
    return true;
  }

  // The instance a request came from (docs/faults.md): the job's header, else the runner's view.
  // Requires mu_.
  void Attribute(const httplib::Request& req, json& record) const {
    std::string said = req.get_header_value("X-Killpoint-Instance");
    if (said == "1" || said == "2" || said == "3") {  // 3: docs/faults.md, "Three instances"
      if (said != "1" || instance_ != 1) record["instance"] = said[0] - '0';
    } else if (instance_ != 1) {
      record["instance"] = instance_;
    }
  }

  void Publish(const httplib::Request& req, httplib::Response& res) {
    json body;
    if (!ReadBody(req, res, body)) return;
    auto points = std::make_shared<RequestPoints>(this, "/publish");
    if (points->Pass(kBeforeCommit))
      return points->HoldUnanswered();  // the job is dead: nothing committed
    std::string key = body["key"];
    json record = {{"key", key},
                   {"biz_date", body.value("biz_date", "")},
                   {"idempotency_key", req.get_header_value("Idempotency-Key")}};
    std::unique_lock lock(mu_);
    Attribute(req, record);
    std::string fault;
    if (burst_left_ > 0) {  // a burst goes first; what is armed waits for the publish after it
      record["burst"] = burst_length_ - --burst_left_;
      fault = kFailBeforeCommit;
    } else {
      fault = std::exchange(armed_, "");
    }
    if (!fault.empty()) record["fault"] = fault;
    if (fault == kFailBeforeCommit) {
      record["committed"] = false;
      history_->Add(event::kPublish, record);
      res.status = 503;
      res.set_content(R"j({"error":"unavailable (injected before commit)"})j", "application/json");
      return;
    }
    std::vector<int>& ids = deliveries_[key];
    // dedupe_by idempotency_key: the deliveries of the same header value decide (its own block).
    std::string header = record["idempotency_key"].get<std::string>();
    std::vector<int>& same = by_idempotency_key_ ? by_header_[header] : ids;
    bool duplicate = dedupe_ && !same.empty() && !(by_idempotency_key_ && header.empty());
    if (!duplicate) {
      ids.push_back(++next_delivery_);
      if (&same != &ids) same.push_back(next_delivery_);
    }
    record["committed"] = !duplicate;
    record["deduplicated"] = duplicate;
    record["delivery_id"] = duplicate ? same.front() : ids.back();
    history_->Add(event::kPublish, record);
    uint64_t generation = release_generation_;  // before the lock is let go: no release is missed
    lock.unlock();
    if (points->Pass(kAfterCommit)) return points->HoldUnanswered();  // the job is dead: delivered
    if (fault == kCommitNoAnswer) {
      points.reset();  // never answered: no point left
      lock.lock();
      released_.wait(lock, [&] { return release_generation_ != generation; });
      return;  // the client has long given up; whatever is written now goes nowhere
    }
    if (fault == kDelay) {  // committed; the answer comes late, other requests go on meanwhile
      std::this_thread::sleep_for(std::chrono::milliseconds(kDownstreamDelayMs));
    }
    AnswerThenPass(res,
                   json{{"delivery_id", record["delivery_id"]}, {"deduplicated", duplicate}}.dump(),
                   std::move(points));
  }

  void Deliveries(const httplib::Request& req, httplib::Response& res) {
    std::string key = req.get_param_value("key");
    if (key.empty()) return BadRequest(req, res, "missing key parameter");
    std::lock_guard lock(mu_);
    size_t count = deliveries_.count(key) ? deliveries_[key].size() : 0;
    json record = {{"key", key}, {"count", count}};
    Attribute(req, record);
    history_->Add(event::kQuery, record);
    res.set_content(json{{"key", key}, {"count", count}}.dump(), "application/json");
  }

  void Alert(const httplib::Request& req, httplib::Response& res) {
    json body;
    if (!ReadBody(req, res, body)) return;
    auto points = std::make_shared<RequestPoints>(this, "/alert");
    if (points->Pass(kBeforeCommit)) return points->HoldUnanswered();
    int id = 0;
    {
      std::lock_guard lock(mu_);
      id = ++next_alert_;
      json record = {{"key", body["key"]},
                     {"biz_date", body.value("biz_date", "")},
                     {"reason", body.value("reason", "")},
                     {"alert_id", id}};
      Attribute(req, record);
      history_->Add(event::kAlert, record);
    }
    if (points->Pass(kAfterCommit)) return points->HoldUnanswered();
    AnswerThenPass(res, json{{"alert_id", id}}.dump(), std::move(points));
  }

  // POST /retry (docs/retry.md): a job reports one of its in-process retries. Recorded as a
  // job_retry event for retry_policy_respected; it changes nothing downstream.
  void JobRetry(const httplib::Request& req, httplib::Response& res) {
    json body;
    if (!ReadBody(req, res, body)) return;
    json record = {{"key", body["key"]}};
    for (const char* field : {"attempt", "backoff_ms", "delay_ms", "at_ms"}) {
      auto it = body.find(field);
      if (it == body.end() || !it->is_number_integer()) {
        return BadRequest(req, res, std::string("needs an integer ") + field);
      }
      record[field] = *it;
    }
    auto breaker = body.find("breaker");
    record["breaker"] =
        breaker != body.end() && breaker->is_string() ? breaker->get<std::string>() : "closed";
    history_->Add(event::kJobRetry, record);
    res.set_content("{}", "application/json");
  }

  // POST /wait (docs/faults.md): a job reports that it waited on the real clock for what another
  // run held, a lock or a lease (the key). Recorded as a job_wait event; changes nothing here.
  void JobWait(const httplib::Request& req, httplib::Response& res) {
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
    json record = {{"key", body["key"]}, {"ms", *ms}, {"acquired", *acquired}};
    auto held_by = body.find("held_by");
    if (held_by != body.end() && held_by->is_string()) record["held_by"] = *held_by;
    std::lock_guard lock(mu_);
    Attribute(req, record);
    history_->Add(event::kJobWait, record);
    res.set_content("{}", "application/json");
  }

  httplib::Server server_;
  std::thread thread_;
  std::atomic<bool> loop_ended_{false};
  int port_ = -1;

  std::mutex mu_;
  std::condition_variable released_;
  std::condition_variable idle_;         // serving_ went down to 0
  std::condition_variable points_done_;  // pointing_ went down to 0
  bool dedupe_ = false;                  // guarded by mu_ (see Serving)
  bool by_idempotency_key_ = false;      // guarded by mu_ (see Serving)
  History* history_ = nullptr;           // guarded by mu_ (see Serving); null: detached
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
};

}  // namespace

std::vector<std::pair<std::string, std::string>> Downstream::Routes() {
  std::vector<std::pair<std::string, std::string>> routes;
  for (const auto& route : HttplibDownstream::RouteTable())
    routes.emplace_back(route.method, route.path);
  return routes;
}

Result<std::unique_ptr<Downstream>> Downstream::Start(bool dedupe, History* history,
                                                      bool by_idempotency_key) {
  auto service = std::make_unique<HttplibDownstream>();
  service->Attach(dedupe, history, by_idempotency_key);
  Status listening = service->Listen();
  if (!listening) return listening.error();
  return std::unique_ptr<Downstream>(std::move(service));
}

}  // namespace killpoint
