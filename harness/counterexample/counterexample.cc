#include "counterexample/counterexample.h"

#include <algorithm>

#include "history/event_registry.h"
#include "util/atomic_file.h"

namespace killpoint {

nlohmann::json ToJson(const CounterexampleFile& c) {
  nlohmann::json events = nlohmann::json::array();
  for (const Event& e : c.events) events.push_back(e);
  nlohmann::json j = {
      {"format", kCounterexampleFormat},
      {"killpoint_version", c.killpoint_version},
      {"scenario",
       {{"file", c.scenario_file}, {"name", c.scenario_name}, {"text", c.scenario_text}}},
      {"source", c.source},
      {"summary", c.plan.Summary()},
      {"plan", c.plan},
      {"invariant", {{"name", c.invariant}, {"explanation", c.explanation}}},
      {"verdicts", c.verdicts},
      {"events", events},
      {"final_state", c.final_state},
      {"reproduce", c.reproduce}};
  if (!c.partial.empty()) j["partial"] = c.partial;
  return j;
}

Status WriteCounterexample(const std::filesystem::path& path, const CounterexampleFile& c) {
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  if (ec)
    return Error::Harness("cannot create " + path.parent_path().string() + ": " + ec.message());
  return WriteFileAtomically(
      path, ToJson(c).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

Result<CounterexampleFile> ReadCounterexample(const std::filesystem::path& path) {
  auto text = ReadFile(path);
  if (!text) return Error::BadInput(text.error().message);
  auto bad = [&](const std::string& what) {
    return Error::BadInput(path.string() + ": not a killpoint counterexample: " + what);
  };
  nlohmann::json j = nlohmann::json::parse(text.value(), nullptr, false);
  if (j.is_discarded()) return bad("not valid JSON (damaged or cut short?)");
  if (!j.is_object()) return bad("expected a JSON object");
  if (!j.contains("format") || !j["format"].is_string()) return bad("no \"format\" field");
  if (j["format"] != kCounterexampleFormat) {
    return Error::BadInput(path.string() + ": format " + j["format"].get<std::string>() +
                           " is not the one this killpoint reads (" + kCounterexampleFormat + ")");
  }
  CounterexampleFile c;
  try {
    c.killpoint_version = j.value("killpoint_version", "");
    c.scenario_file = j.at("scenario").at("file").get<std::string>();
    c.scenario_name = j.at("scenario").at("name").get<std::string>();
    c.scenario_text = j.at("scenario").at("text").get<std::string>();
    c.source = j.value("source", "");
    c.plan = j.at("plan").get<Plan>();
    c.invariant = j.at("invariant").at("name").get<std::string>();
    c.explanation = j.at("invariant").value("explanation", "");
    c.verdicts = j.at("verdicts").get<std::vector<Verdict>>();
    for (const auto& e : j.at("events")) c.events.push_back(e.get<Event>());
    c.final_state = j.value("final_state", nlohmann::json::object());
    c.reproduce = j.value("reproduce", "");
    c.partial = j.value("partial", "");
  } catch (const nlohmann::json::exception& e) {
    return bad(std::string("a field is missing or of the wrong type (") + e.what() + ")");
  }
  if (c.plan.runs.empty()) return bad("the plan has no runs");
  return c;
}

std::vector<nlohmann::json> Fingerprint(const std::vector<Event>& events) {
  // Two instances of an attempt at once (an overlap, docs/faults.md) interleave their events
  // as the scheduler pleases: those of instance 2, and requests either may have sent, are
  // compared as a sorted set at the end, and no event's seq counts.
  bool overlapped =
      std::any_of(events.begin(), events.end(), [](const Event& e) { return InstanceOf(e) != 1; });
  std::vector<nlohmann::json> out, concurrent;
  int64_t position = 0;  // seq, less the job_wait events before
  for (const Event& e : events) {
    // Whether a job waited for a lock at all depends on the real clock: a lease a killed
    // holder left may have expired by the time the next attempt comes (docs/faults.md).
    if (e.type == event::JobWait::kType) continue;
    // What a job wrote outside its sandbox depends on the runs before it (a file it creates
    // only when missing, a bytecode cache) and may carry random names: an observation, not a
    // decision of the plan (docs/syscall-shim.md).
    if (e.type == event::OutsideWrites::kType) continue;
    nlohmann::json data = e.data;
    if (data.is_object()) {
      for (const char* volatile_key : {"pid", "sandbox", "elapsed_ms", "stderr"})
        data.erase(volatile_key);
      // A job's in-process retries are timed by its real clock (docs/retry.md).
      if (e.type == event::JobRetry::kType) data.erase("delay_ms"), data.erase("at_ms");
    }
    if (!overlapped) {
      out.push_back({position++, e.t_ms, e.type, e.biz_date, e.trigger, e.attempt, data});
      continue;
    }
    nlohmann::json entry = {e.t_ms, e.type, e.biz_date, e.trigger, e.attempt, data};
    (InstanceOf(e) == 1 ? out : concurrent).push_back(std::move(entry));
  }
  std::sort(concurrent.begin(), concurrent.end(),
            [](const nlohmann::json& a, const nlohmann::json& b) { return a.dump() < b.dump(); });
  out.insert(out.end(), concurrent.begin(), concurrent.end());
  return out;
}

}  // namespace killpoint
