// The downstream service (downstream.h): its endpoints, the deliveries and alerts it records
// in the trial's history, the faults armed on it and the crash points of its requests. The
// HTTP transport that brings it requests is downstream/http_server.h.
#include "downstream/downstream.h"

#include <arpa/inet.h>
#include <unistd.h>

#include <condition_variable>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <thread>
#include <vector>

#include "channel/peer_uid.h"
#include "downstream/http_server.h"
#include "history/event.h"
#include "history/event_registry.h"
#include "plan/crash_point.h"
#include "scenario/scenario.h"

namespace killpoint {
namespace {

using nlohmann::json;

// Why a request's peer may not publish, or "" when it is the harness's own user: the downstream
// is on 127.0.0.1, which every local user reaches (issue 34: another user's POST /publish was
// recorded as the job's). A client that closed before its request was read cannot be told
// (the kernel keeps no owner for a closed socket) and is refused too: it reads no answer.
std::string ForeignPeerOf(const HttpRequest& req) {
  if (!PeerUidsKnowable()) return "";  // said once on stderr
  if (req.peer.sin_family != AF_INET || req.local.sin_family != AF_INET)
    return "a peer that is not IPv4 loopback: refused";
  Result<uid_t> uid = LoopbackPeerUid(req.peer, req.local);
  if (!uid) return "its client closed before it could be told who sent it: refused";
  if (uid.value() != ::geteuid())
    return "from another user (uid " + std::to_string(uid.value()) + "): refused";
  return "";
}

class DownstreamService : public Downstream {
 public:
  // Serves nothing until Listen.
  DownstreamService() = default;

  ~DownstreamService() override {
    {
      std::lock_guard lock(mu_);
      closing_ = true;  // a request held from now on is let go at once
      ++release_generation_;
      released_.notify_all();
    }
    // The transport goes first, with the requests it still has (their points use mu_).
    server_.reset();
  }

  Status Listen(DownstreamLimits limits) {
    auto server = HttpServer::Listen(limits, [this](const HttpRequest& req) { return Serve(req); });
    if (!server) return server.error();
    server_ = std::move(server.value());
    return Ok();
  }

  std::string BaseUrl() const override {
    return "http://127.0.0.1:" + std::to_string(server_->port());
  }

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
  using Endpoint = void (DownstreamService::*)(const HttpRequest&, HttpReply&);

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
        {"POST", "/publish", &DownstreamService::Publish},
        {"GET", "/deliveries", &DownstreamService::Deliveries},
        {"POST", "/alert", &DownstreamService::Alert},
        {"POST", "/retry", &DownstreamService::JobRetry},
        {"POST", "/wait", &DownstreamService::JobWait},
    };
    return kRoutes;
  }

 private:
  // Serves one request on a pool thread: between two trials nobody's (503, recorded nowhere);
  // else refused (403, 404, 411, 413: a bad_request event) or handed to its endpoint. Detach
  // waits until no request is in here, and the history a request records in cannot change under
  // it (it is read after serving_ went up, under mu_, and changed only while serving_ is 0,
  // under mu_).
  HttpReply Serve(const HttpRequest& req) {
    HttpReply res;
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

  static const Route* Find(const HttpRequest& req) {
    for (const Route& route : RouteTable()) {
      if (req.method == route.method && req.path == route.path) return &route;
    }
    return nullptr;
  }

  // A refusal: recorded as a bad_request event, answered with the reason. One whose body was
  // left unread (411, 413) or whose peer is refused (403) ends its connection.
  void Refuse(const HttpRequest& req, HttpReply& res, int status, const char* reason) {
    history_->Add(event::BadRequest{req.method + " " + req.path, reason});
    res.status = status;
    res.body = json{{"error", reason}}.dump();
    res.close = status != 404;
  }

  // A 400: recorded as a bad_request event, answered with the reason.
  void BadRequest(const HttpRequest& req, HttpReply& res, const std::string& reason) {
    history_->Add(event::BadRequest{req.path, reason});
    res.status = 400;
    res.body = json{{"error", reason}}.dump();
  }

  // The crash points of one request (SetPointHook). While it lives the request counts in
  // serving_ (Detach waits for it) and in pointing_ (WaitPoints waits for it); the reply keeps
  // it until the answer is written and after_answer passed.
  class RequestPoints {
   public:
    RequestPoints(DownstreamService* d, std::string path) : d_(d), path_(std::move(path)) {
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
    void HoldUnanswered(HttpReply& res) {
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

    DownstreamService* d_;
    std::string path_;
    uint64_t generation_ = 0;
    bool done_ = false;
  };

  // Parses a JSON body with a string "key"; on failure answers 400 and records why.
  bool ReadBody(const HttpRequest& req, HttpReply& res, json& body) {
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
  std::optional<int> Attribute(const HttpRequest& req) const {
    std::string said = req.Header("X-Killpoint-Instance");
    if (said == "1" || said == "2" || said == "3") {  // 3: docs/faults.md, "Three instances"
      if (said != "1" || instance_ != 1) return said[0] - '0';
    } else if (instance_ != 1) {
      return instance_;
    }
    return std::nullopt;
  }

  void Publish(const HttpRequest& req, HttpReply& res) {
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
    res.after_written = [points = std::move(points)] { points->Pass(kAfterAnswer); };
  }

  void Deliveries(const HttpRequest& req, HttpReply& res) {
    std::string key = req.Param("key");
    if (key.empty()) return BadRequest(req, res, "missing key parameter");
    std::lock_guard lock(mu_);
    size_t count = deliveries_.count(key) ? deliveries_[key].size() : 0;
    history_->Add(event::Query{key, static_cast<int64_t>(count), Attribute(req)});
    res.body = json{{"key", key}, {"count", count}}.dump();
  }

  void Alert(const HttpRequest& req, HttpReply& res) {
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
    res.after_written = [points = std::move(points)] { points->Pass(kAfterAnswer); };
  }

  // POST /retry (docs/retry.md): a job reports one of its in-process retries. Recorded as a
  // job_retry event for retry_policy_respected; it changes nothing downstream.
  void JobRetry(const HttpRequest& req, HttpReply& res) {
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
  void JobWait(const HttpRequest& req, HttpReply& res) {
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

  // Declared last, destroyed first (the destructor does, once every held request is let go).
  std::unique_ptr<HttpServer> server_;
};

}  // namespace

std::vector<std::pair<std::string, std::string>> Downstream::Routes() {
  std::vector<std::pair<std::string, std::string>> routes;
  for (const auto& route : DownstreamService::RouteTable())
    routes.emplace_back(route.method, route.path);
  return routes;
}

Result<std::unique_ptr<Downstream>> Downstream::Start(bool dedupe, History* history,
                                                      bool by_idempotency_key,
                                                      DownstreamLimits limits) {
  auto service = std::make_unique<DownstreamService>();
  service->Attach(dedupe, history, by_idempotency_key);
  Status listening = service->Listen(limits);
  if (!listening) return listening.error();
  return std::unique_ptr<Downstream>(std::move(service));
}

}  // namespace killpoint
