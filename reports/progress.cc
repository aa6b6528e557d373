#include "reports/progress.h"

#include <fmt/format.h>

#include <chrono>

namespace killpoint {

std::string FormatDuration(double seconds) {
  long s = seconds < 0 ? 0 : static_cast<long>(seconds + 0.5);
  if (s >= 3600) return fmt::format("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60);
  return fmt::format("{}:{:02}", s / 60, s % 60);
}

std::string FormatProgress(const ProgressState& s, size_t width) {
  std::string line = fmt::format(
      "killpoint: {}/{}{} trials, {} with violations ({} must-hold), {} elapsed", s.done, s.total,
      s.total_known ? "" : "+", s.violating, s.must_hold_violating, FormatDuration(s.elapsed_s));
  if (s.total_known && s.done > 0 && s.done < s.total) {
    line += ", ~" + FormatDuration(s.elapsed_s / s.done * (s.total - s.done)) + " left";
  }
  if (width > 0 && line.size() > width) line.resize(width);
  return line;
}

double SteadySeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

ProgressLine::ProgressLine(std::ostream& out, size_t width, Clock clock, double interval_s)
    : out_(out),
      width_(width > 1 ? width - 1 : width),
      clock_(std::move(clock)),
      interval_s_(interval_s),
      started_(clock_()) {}

void ProgressLine::Expect(int trials) { state_.total += trials; }

void ProgressLine::ExpectUnknown() {
  ++unknown_;
  state_.total_known = false;
}

void ProgressLine::Discovered(int trials) {
  state_.total += trials;
  if (unknown_ > 0 && --unknown_ == 0) state_.total_known = true;
}

void ProgressLine::OnTrial(bool violating, bool must_hold_violating) {
  ++state_.done;
  state_.violating += violating;
  state_.must_hold_violating += must_hold_violating;
  double now = clock_();
  state_.elapsed_s = now - started_;
  bool last = state_.total_known && state_.done >= state_.total;
  if (last || last_draw_ < 0 || now - last_draw_ >= interval_s_) {
    last_draw_ = now;
    Draw();
  }
}

void ProgressLine::Draw() {
  // \r to the line's start, the line, then erase whatever a longer earlier line left.
  out_ << '\r' << FormatProgress(state_, width_) << "\033[K" << std::flush;
  drawn_ = true;
}

void ProgressLine::Clear() {
  if (!drawn_) return;
  out_ << "\r\033[K" << std::flush;
  drawn_ = false;
}

}  // namespace killpoint
