#include "plan/plan.h"

#include <algorithm>

namespace killpoint {

const AttemptFault& PlannedRun::FaultFor(int attempt) const {
  static const AttemptFault kNone;
  if (attempt < 1 || attempt > static_cast<int>(attempts.size())) return kNone;
  return attempts[attempt - 1];
}

std::string Plan::Summary() const {
  std::string out;
  for (const auto& run : runs) {
    if (!out.empty()) out += "; ";
    out += run.biz_date + "#" + std::to_string(run.trigger);
    bool any = false;
    for (size_t i = 0; i < run.attempts.size(); ++i) {
      const AttemptFault& f = run.attempts[i];
      if (f.None()) continue;
      any = true;
      out += " a" + std::to_string(i + 1);
      if (!f.kill_point.empty()) {
        out += " kill@" + (f.when == Moment::kBefore ? "" : std::string(NameOf(f.when)) + ":") +
               f.kill_point + "#" + std::to_string(f.occurrence);
        if (f.model != PersistenceModel::kProcess) out += "/" + std::string(NameOf(f.model));
      }
      if (!f.downstream_fault.empty()) out += " downstream:" + f.downstream_fault;
      if (!f.pause.point.empty())
        out += " pause@" + f.pause.point + " " + std::to_string(f.pause.duration_ms) + "ms";
      if (!f.overlap.point.empty()) {
        out += " overlap@" + f.overlap.point;
        if (!f.overlap.second_holds_at.empty()) out += "/i2@" + f.overlap.second_holds_at;
      }
      if (f.downstream_burst > 0) out += " burst:" + std::to_string(f.downstream_burst);
      if (!f.net.point.empty())
        out += " " + std::string(NameOf(f.net.action)) + "@" + f.net.point + "#" +
               std::to_string(f.net.hit);
      if (!f.server.point.empty()) {
        out += " " + std::string(NameOf(f.server.action)) + "@server:" + f.server.service + "@" +
               f.server.point;
        if (f.server.duration_ms > 0) out += " " + std::to_string(f.server.duration_ms) + "ms";
      }
    }
    if (!any) out += " -";
  }
  return out;
}

std::vector<PersistenceModel> Plan::Models() const {
  std::vector<PersistenceModel> models;
  for (const auto& run : runs) {
    for (const auto& f : run.attempts) {
      if (!f.kill_point.empty() && std::find(models.begin(), models.end(), f.model) == models.end())
        models.push_back(f.model);
    }
  }
  if (models.empty()) models.push_back(PersistenceModel::kProcess);
  std::sort(models.begin(), models.end(), NameLess);
  return models;
}

void to_json(nlohmann::json& j, const AttemptFault& f) {
  j = nlohmann::json::object();
  if (!f.kill_point.empty()) {
    j["kill_point"] = f.kill_point;
    j["occurrence"] = f.occurrence;
    j["model"] = f.model;
    if (f.when != Moment::kBefore) j["when"] = f.when;
    if (f.model_seed) j["model_seed"] = *f.model_seed;
  }
  if (!f.downstream_fault.empty()) j["downstream_fault"] = f.downstream_fault;
  if (!f.pause.point.empty())
    j["pause"] = {{"point", f.pause.point}, {"duration_ms", f.pause.duration_ms}};
  if (!f.overlap.point.empty()) {
    j["overlap"] = {{"point", f.overlap.point}, {"hold_ms", f.overlap.hold_ms}};
    if (!f.overlap.second_holds_at.empty())
      j["overlap"]["second_holds_at"] = f.overlap.second_holds_at;
  }
  if (f.downstream_burst > 0) j["downstream_burst"] = f.downstream_burst;
  if (!f.net.point.empty()) {
    j["net"] = {{"point", f.net.point}, {"action", f.net.action}, {"hit", f.net.hit}};
    if (f.net.ms > 0) j["net"]["ms"] = f.net.ms;
  }
  if (!f.server.point.empty()) {
    j["server"] = {
        {"point", f.server.point}, {"service", f.server.service}, {"action", f.server.action}};
    if (f.server.duration_ms > 0) j["server"]["duration_ms"] = f.server.duration_ms;
  }
}

void from_json(const nlohmann::json& j, AttemptFault& f) {
  f = AttemptFault{};
  f.kill_point = j.value("kill_point", "");
  f.occurrence = j.value("occurrence", 1);
  f.model = j.value("model", PersistenceModel::kProcess);
  f.when = j.contains("when") ? j.at("when").get<Moment>() : Moment::kBefore;
  f.downstream_fault = j.value("downstream_fault", "");
  for (const char* key : {"model_seed", "torn_seed"}) {  // torn_seed: plans of before its rename
    if (auto it = j.find(key); it != j.end()) {
      f.model_seed = it->get<uint64_t>();
      break;
    }
  }
  // Absent in plans written before pause, overlap and bursts (issue 6): no such fault.
  if (auto it = j.find("pause"); it != j.end()) {
    f.pause.point = it->at("point").get<std::string>();
    f.pause.duration_ms = it->at("duration_ms").get<int64_t>();
  }
  if (auto it = j.find("overlap"); it != j.end()) {
    f.overlap.point = it->at("point").get<std::string>();
    f.overlap.hold_ms = it->at("hold_ms").get<int64_t>();
    f.overlap.second_holds_at = it->value("second_holds_at", "");  // absent: never held
  }
  f.downstream_burst = j.value("downstream_burst", 0);
  if (auto it = j.find("net"); it != j.end()) {  // absent before issue 20's proxy: none
    f.net.point = it->at("point").get<std::string>();
    f.net.action = it->at("action").get<NetAction>();
    f.net.hit = it->value("hit", 1);
    f.net.ms = it->value("ms", int64_t{0});
  }
  if (auto it = j.find("server"); it != j.end()) {  // absent before server faults: none
    f.server.point = it->at("point").get<std::string>();
    f.server.service = it->at("service").get<std::string>();
    f.server.action = it->at("action").get<ServerAction>();
    f.server.duration_ms = it->value("duration_ms", int64_t{0});
  }
}

void to_json(nlohmann::json& j, const PlannedRun& r) {
  j = {{"biz_date", r.biz_date}, {"trigger", r.trigger}, {"attempts", r.attempts}};
}

void from_json(const nlohmann::json& j, PlannedRun& r) {
  r.biz_date = j.at("biz_date").get<std::string>();
  r.trigger = j.at("trigger").get<int>();
  r.attempts = j.at("attempts").get<std::vector<AttemptFault>>();
}

void to_json(nlohmann::json& j, const Plan& p) {
  j = {{"scenario", p.scenario}, {"seed", p.seed}, {"trial", p.trial}, {"runs", p.runs}};
}

void from_json(const nlohmann::json& j, Plan& p) {
  p.scenario = j.at("scenario").get<std::string>();
  p.seed = j.at("seed").get<uint64_t>();
  p.trial = j.at("trial").get<int>();
  p.runs = j.at("runs").get<std::vector<PlannedRun>>();
}

std::ostream& operator<<(std::ostream& os, const Plan& p) {
  return os << p.scenario << " seed=" << p.seed << " trial=" << p.trial << ": " << p.Summary();
}

}  // namespace killpoint
