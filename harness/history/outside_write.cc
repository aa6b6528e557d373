#include "history/outside_write.h"

#include <algorithm>
#include <map>
#include <set>

#include "history/events/attempt.h"
#include "history/history.h"

namespace killpoint {

void to_json(nlohmann::json& j, const OutsideWrite& w) {
  j = {{"path", w.path}, {"kind", w.kind}, {"ops", w.ops}};
}
void from_json(const nlohmann::json& j, OutsideWrite& w) {
  j.at("path").get_to(w.path);
  w.kind = j.value("kind", outside_kind::kElsewhere);
  j.at("ops").get_to(w.ops);
}
std::ostream& operator<<(std::ostream& os, const OutsideWrite& w) {
  return os << nlohmann::json(w).dump();
}

void MergeOutsideWrites(std::vector<OutsideWrite>& into, const std::vector<OutsideWrite>& add) {
  for (const OutsideWrite& w : add) {
    auto it =
        std::lower_bound(into.begin(), into.end(), w.path,
                         [](const OutsideWrite& a, const std::string& p) { return a.path < p; });
    if (it == into.end() || it->path != w.path) {
      into.insert(it, w);
      continue;
    }
    std::set<std::string> ops(it->ops.begin(), it->ops.end());
    ops.insert(w.ops.begin(), w.ops.end());
    it->ops.assign(ops.begin(), ops.end());
  }
}

std::vector<OutsideWrite> OutsideWritesOf(const std::vector<Event>& events) {
  std::vector<OutsideWrite> out;
  for (const event::OutsideWrites& o : AllOf<event::OutsideWrites>(events))
    MergeOutsideWrites(out, o.writes);
  return out;
}

std::string Describe(const OutsideWrite& w) {
  std::string ops;
  for (const std::string& op : w.ops) ops += (ops.empty() ? "" : ", ") + op;
  return w.path + " (" + ops + ")";
}

std::string OutsideConsequence(const std::string& kind) {
  return std::string("no persistence model applied to it, and ") +
         (kind == outside_kind::kTrial ? "the later attempts of the trial see it"
                                       : "the next trial sees it");
}

}  // namespace killpoint
