#include "plan/unstable_names.h"

#include <algorithm>
#include <cctype>

#include "plan/point_pattern.h"

namespace killpoint {
namespace {

bool Alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

}  // namespace

std::string NameShape(const std::string& first, const std::string& second) {
  if (first == second) return "";
  size_t n = std::min(first.size(), second.size());
  size_t prefix = 0;
  while (prefix < n && first[prefix] == second[prefix]) ++prefix;
  size_t suffix = 0;
  while (suffix < n - prefix &&
         first[first.size() - 1 - suffix] == second[second.size() - 1 - suffix]) {
    ++suffix;
  }
  while (prefix > 0 && Alnum(first[prefix - 1])) --prefix;
  while (suffix > 0 && Alnum(first[first.size() - suffix])) --suffix;
  return first.substr(0, prefix) + "*" + first.substr(first.size() - suffix);
}

std::vector<CrashPoint> PlanUnstableNamesByShape(const std::vector<CrashPoint>& first,
                                                 const std::vector<CrashPoint>& second,
                                                 std::vector<RenamedPoint>* renamed) {
  std::vector<CrashPoint> out;
  bool parted = false;  // once the runs pass different operations, indexes no longer pair them
  for (size_t i = 0; i < first.size(); ++i) {
    const CrashPoint& p = first[i];
    parted = parted || i >= second.size() || SyscallOp(p.name) != SyscallOp(second[i].name);
    bool aligned = !parted && !SyscallOp(p.name).empty();
    std::string shape = aligned ? NameShape(p.name, second[i].name) : "";
    if (shape.empty()) {
      out.push_back(p);
      continue;
    }
    int hit = 1;  // the hit of the shape this point was: every earlier point it matches counts
    for (size_t j = 0; j < i; ++j) hit += MatchPoint(shape, first[j].name) ? 1 : 0;
    out.push_back({shape, hit});
    if (renamed) renamed->push_back({p.name, shape});
  }
  return out;
}

}  // namespace killpoint
