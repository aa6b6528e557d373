#include "plan/crash_point.h"

#include <algorithm>

#include "scenario/net_point.h"

namespace killpoint {

std::string_view SyscallOp(std::string_view point) {
  size_t colon = point.find(':');
  if (colon == std::string_view::npos || colon + 1 == point.size()) return {};
  std::string_view op = point.substr(0, colon);
  return std::find(kSyscallOps.begin(), kSyscallOps.end(), op) == kSyscallOps.end()
             ? std::string_view{}
             : op;
}

std::string DownstreamPoint(std::string_view path, std::string_view moment) {
  return std::string(kDownstreamPrefix) + std::string(path) + ":" + std::string(moment);
}

std::vector<CrashPoint> AnswersAfterTheirCommits(std::vector<CrashPoint> points) {
  const std::string answer = std::string(":") + kAfterAnswer,
                    commit = std::string(":") + kAfterCommit;
  auto is = [](const std::string& name, const std::string& moment) {
    return IsDownstreamPoint(name) && name.ends_with(moment);
  };
  std::vector<CrashPoint> answers, out;
  for (CrashPoint& p : points) (is(p.name, answer) ? answers : out).push_back(std::move(p));
  for (size_t i = 0; i < out.size(); ++i) {
    if (!is(out[i].name, commit)) continue;
    std::string name = out[i].name.substr(0, out[i].name.size() - commit.size()) + answer;
    auto it = std::find(answers.begin(), answers.end(), CrashPoint{name, out[i].occurrence});
    if (it == answers.end()) continue;
    out.insert(out.begin() + static_cast<std::ptrdiff_t>(i) + 1, std::move(*it));
    answers.erase(it);
  }
  for (CrashPoint& p : answers) out.push_back(std::move(p));  // none in a fault-free run
  return out;
}

const char* PointKind(std::string_view point) {
  if (IsNetCommandPoint(point)) return "net";
  return IsSyscallPoint(point) ? "syscall" : IsDownstreamPoint(point) ? "downstream" : "named";
}

std::vector<Moment> KillMoments(std::string_view point) {
  if (IsNetCommandPoint(point))
    return {Moment::kBefore, Moment::kAfter};  // before it is forwarded, after its answer
  std::string_view op = SyscallOp(point);
  if (op.empty()) return {Moment::kBefore};
  if (op == "write") return {Moment::kBefore, Moment::kAfter, Moment::kMid};
  return {Moment::kBefore, Moment::kAfter};
}

std::vector<Moment> KillMoments(std::string_view point, std::string_view unseen) {
  if (!unseen.empty()) return {Moment::kAfter};
  return KillMoments(point);
}

std::string_view SyscallPath(std::string_view point) {
  std::string_view op = SyscallOp(point);
  if (op.empty()) return {};
  std::string_view rest = point.substr(op.size() + 1);
  if (op == "rename") rest = rest.substr(0, rest.find(':'));
  return rest;
}

}  // namespace killpoint
