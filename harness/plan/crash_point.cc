#include "plan/crash_point.h"

#include <algorithm>

namespace killpoint {

std::string_view SyscallOp(std::string_view point) {
  size_t colon = point.find(':');
  if (colon == std::string_view::npos || colon + 1 == point.size()) return {};
  std::string_view op = point.substr(0, colon);
  return std::find(kSyscallOps.begin(), kSyscallOps.end(), op) == kSyscallOps.end() ? std::string_view{} : op;
}

std::string DownstreamPoint(std::string_view path, std::string_view moment) {
  return std::string(kDownstreamPrefix) + std::string(path) + ":" + std::string(moment);
}

const char* PointKind(std::string_view point) {
  return IsSyscallPoint(point) ? "syscall" : IsDownstreamPoint(point) ? "downstream" : "named";
}

std::vector<const char*> KillMoments(std::string_view point) {
  std::string_view op = SyscallOp(point);
  if (op.empty()) return {kBefore};
  if (op == "write") return {kBefore, kAfter, kMid};
  return {kBefore, kAfter};
}

std::string_view SyscallPath(std::string_view point) {
  std::string_view op = SyscallOp(point);
  if (op.empty()) return {};
  std::string_view rest = point.substr(op.size() + 1);
  if (op == "rename") rest = rest.substr(0, rest.find(':'));
  return rest;
}

}  // namespace killpoint
