// The progress line of a long run, redrawn in place on a terminal's stderr: trials done out of
// the total, trials with a violation so far, time elapsed and an estimate of the time left.
// The caller decides whether to show it at all (a terminal, not --quiet); this class only
// draws. Not thread-safe: the suite reports trials from one thread.
#pragma once

#include <cstddef>
#include <functional>
#include <ostream>
#include <string>

namespace killpoint {

struct ProgressState {
  int done = 0;
  int total = 0;                // the trials known so far
  bool total_known = true;      // false while an exhaustive scenario has not counted its trials
  int violating = 0;            // trials with any violation
  int must_hold_violating = 0;  // trials with a must-hold violation
  double elapsed_s = 0;
};

// "killpoint: 120/560 trials, 14 with violations (0 must-hold), 0:42 elapsed, ~2:34 left",
// cut to `width` characters so that it never wraps (a wrapped line cannot be redrawn).
std::string FormatProgress(const ProgressState& s, size_t width);

// "0:07", "12:31", "1:02:03".
std::string FormatDuration(double seconds);

class ProgressLine {
 public:
  using Clock = std::function<double()>;  // monotonic seconds

  // `out` must outlive this object. Redraws at most every `interval_s`, and on the last trial.
  ProgressLine(std::ostream& out, size_t width, Clock clock, double interval_s = 0.1);
  ~ProgressLine() { Clear(); }

  void Expect(int trials);      // a scenario whose trials are known up front
  void ExpectUnknown();         // an exhaustive scenario: counted when it starts
  void Discovered(int trials);  // an ExpectUnknown scenario counted its trials
  void OnTrial(bool violating, bool must_hold_violating);
  // Erases the line, so that whatever is printed next starts on a clean line.
  void Clear();

  const ProgressState& state() const { return state_; }

 private:
  void Draw();

  std::ostream& out_;
  size_t width_;
  Clock clock_;
  double interval_s_;
  double started_;
  double last_draw_ = -1;
  int unknown_ = 0;
  bool drawn_ = false;
  ProgressState state_;
};

// Monotonic seconds from std::chrono::steady_clock.
double SteadySeconds();

}  // namespace killpoint
