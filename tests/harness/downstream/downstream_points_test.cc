// The downstream's crash points (downstream/downstream.h): which a request passes, in what order,
// and what a kill at each leaves: nothing committed, delivered and never answered, answered.
// The hook stands for the runner's (which kills the job's process group); here it only says
// "killed", so a client that got an answer anyway shows the handler answered before the kill.
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <mutex>
#include <thread>

#include "downstream/downstream.h"
#include "history/event_registry.h"
#include "plan/crash_point.h"

namespace killpoint {
namespace {

using nlohmann::json;
using std::chrono::milliseconds;

struct PointsService {
  PointsService() {
    auto s = Downstream::Start(false, &history);
    EXPECT_TRUE(s);
    downstream = std::move(s.value());
    downstream->SetPointHook([this](const std::string& point) {
      std::lock_guard lock(mu);
      passed.push_back(point);
      answered_then.push_back(answered.load());
      return point == kill_at;
    });
  }
  httplib::Result Post(const std::string& path) {
    httplib::Client c(downstream->BaseUrl());
    c.set_read_timeout(0, 300'000);
    auto r = c.Post(path, json{{"key", "k"}, {"biz_date", "2026-11-01"}, {"reason", "r"}}.dump(),
                    "application/json");
    answered = static_cast<bool>(r);
    return r;
  }
  void KillAt(const std::string& point) {
    std::lock_guard lock(mu);
    kill_at = point;
  }
  std::vector<std::string> Passed() {
    EXPECT_TRUE(downstream->WaitPoints(milliseconds(2000)));
    std::lock_guard lock(mu);
    return passed;
  }

  History history;
  std::unique_ptr<Downstream> downstream;
  std::mutex mu;
  std::vector<std::string> passed;  // guarded by mu
  std::vector<bool> answered_then;  // guarded by mu: had the client its answer at that point
  std::string kill_at;              // guarded by mu (the hook runs on the server's threads)
  std::atomic<bool> answered{false};
};

const std::string kArrived = "downstream:/publish:before_commit";
const std::string kDelivered = "downstream:/publish:after_commit";
const std::string kReplied = "downstream:/publish:after_answer";

TEST(DownstreamPoints, APublishPassesArrivalCommitAndAnswerInOrder) {
  PointsService s;
  auto r = s.Post("/publish");
  ASSERT_TRUE(r);
  EXPECT_EQ(json::parse(r->body)["delivery_id"], 1);
  EXPECT_EQ(s.Passed(), (std::vector<std::string>{kArrived, kDelivered, kReplied}));
  auto alert = s.Post("/alert");
  ASSERT_TRUE(alert);
  EXPECT_EQ(s.Passed().size(), 6u);
  EXPECT_EQ(s.Passed()[4], "downstream:/alert:after_commit");
}

TEST(DownstreamPoints, AKillOnArrivalCommitsNothingAndAnswersNothing) {
  PointsService s;
  s.KillAt(kArrived);
  EXPECT_FALSE(s.Post("/publish"));  // never answered
  EXPECT_EQ(s.Passed(), std::vector<std::string>{kArrived});
  EXPECT_TRUE(OfType(s.history.Events(), event::Publish::kType).empty());
  s.downstream->ReleaseHeld();
}

TEST(DownstreamPoints, AKillAfterCommitDeliversAndNeverAnswers) {
  PointsService s;
  s.KillAt(kDelivered);
  EXPECT_FALSE(s.Post("/publish"));  // the handler did not answer before (or after) the kill
  EXPECT_EQ(s.Passed(), (std::vector<std::string>{kArrived, kDelivered}));  // held: no point left
  auto publishes = OfType(s.history.Events(), event::Publish::kType);
  ASSERT_EQ(publishes.size(), 1u);
  EXPECT_EQ(publishes[0].data["committed"], true);  // the effect is in the downstream's state
  s.downstream->ReleaseHeld();
  httplib::Client c(s.downstream->BaseUrl());
  auto count = c.Get("/deliveries?key=k");
  ASSERT_TRUE(count);
  EXPECT_EQ(json::parse(count->body)["count"], 1);
}

TEST(DownstreamPoints, AfterAnswerComesOnceTheAnswerIsWritten) {
  PointsService s;
  s.downstream->SetPointHook([&s](const std::string& point) {
    // Give the client time to read what was written; it has its answer only if the answer
    // went out before this point.
    if (point == kReplied) {
      for (int i = 0; i < 200 && !s.answered; ++i) std::this_thread::sleep_for(milliseconds(5));
    }
    std::lock_guard lock(s.mu);
    s.passed.push_back(point);
    s.answered_then.push_back(s.answered.load());
    return false;
  });
  ASSERT_TRUE(s.Post("/publish"));
  EXPECT_EQ(s.Passed(), (std::vector<std::string>{kArrived, kDelivered, kReplied}));
  std::lock_guard lock(s.mu);
  EXPECT_EQ(s.answered_then, (std::vector<bool>{false, false, true}));
}

TEST(DownstreamPoints, AFailureBeforeCommitPassesOnlyTheArrival) {
  PointsService s;
  s.downstream->ArmFault(kFailBeforeCommit);
  auto r = s.Post("/publish");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 503);
  EXPECT_EQ(s.Passed(), std::vector<std::string>{kArrived});
}

TEST(DownstreamPoints, DetachForgetsTheHook) {
  PointsService s;
  History next;
  s.downstream->Attach(false, &next, false);
  ASSERT_TRUE(s.Post("/publish"));
  EXPECT_TRUE(s.Passed().empty());
}

}  // namespace
}  // namespace killpoint
