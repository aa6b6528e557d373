// The events that open and close a trial and its final pass.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <vector>

#include "history/event_fields.h"

namespace killpoint::event {

// The trial begins: its plan (plan/plan.h, as JSON) and its sandbox's folder.
struct TrialStart {
  static constexpr const char* kType = "trial_start";
  nlohmann::json plan = nlohmann::json::object();
  std::string sandbox;
  static constexpr auto kFields =
      std::tuple{Field("plan", &TrialStart::plan), Field("sandbox", &TrialStart::sandbox)};
  bool operator==(const TrialStart&) const = default;
};

// job.setup ran, before any attempt: how it exited and the end of its stderr.
struct Setup {
  static constexpr const char* kType = "setup";
  int64_t exit_code = 0;
  std::string stderr_tail;
  static constexpr auto kFields =
      std::tuple{Field("exit_code", &Setup::exit_code), Field("stderr", &Setup::stderr_tail)};
  bool operator==(const Setup&) const = default;
};

// With the faults stopped, the dates that had not succeeded are run once more (docs/retry.md).
struct FinalPass {
  static constexpr const char* kType = "final_pass";
  std::vector<std::string> biz_dates;
  static constexpr auto kFields = std::tuple{Field("biz_dates", &FinalPass::biz_dates)};
  bool operator==(const FinalPass&) const = default;
};

struct TrialEnd {
  static constexpr const char* kType = "trial_end";
  int64_t elapsed_ms = 0;  // real time
  static constexpr auto kFields = std::tuple{Field("elapsed_ms", &TrialEnd::elapsed_ms)};
  bool operator==(const TrialEnd&) const = default;
};

}  // namespace killpoint::event
