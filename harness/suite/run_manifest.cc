#include "suite/run_manifest.h"

#include <cstdio>

#include "results/layout.h"
#include "suite/job_commit.h"
#include "suite/suite.h"
#include "util/absolute_path.h"
#include "util/atomic_file.h"
#include "util/digest.h"
#include "util/json_error.h"

namespace killpoint {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;
constexpr const char* kFormat = "killpoint-run/1";

Json ToJson(const RunManifest& m) {
  Json scenarios = Json::array();
  for (const auto& s : m.scenarios) {
    scenarios.push_back({{"name", s.name},
                         {"file", s.file},
                         {"digest", s.digest},
                         {"job_commit", s.job_commit},
                         {"job_files", s.job_files}});
  }
  Json j = {{"format", kFormat},          {"killpoint_version", m.killpoint_version},
            {"started_at", m.started_at}, {"seed", m.seed},
            {"trials", m.trials},         {"exhaustive", m.exhaustive},
            {"limit", m.limit},           {"shard", nullptr},
            {"trial", nullptr},           {"scenarios", scenarios}};
  if (m.shard) j["shard"] = *m.shard;
  if (m.trial) j["trial"] = *m.trial;
  if (!m.intercept.empty()) j["intercept"] = m.intercept;
  return j;
}

RunManifest FromJson(const Json& j) {
  if (j.value("format", "") != kFormat) {
    throw Json::other_error::create(501, std::string("not a ") + kFormat + " file", &j);
  }
  RunManifest m;
  j.at("killpoint_version").get_to(m.killpoint_version);
  j.at("started_at").get_to(m.started_at);
  j.at("seed").get_to(m.seed);
  j.at("trials").get_to(m.trials);
  j.at("exhaustive").get_to(m.exhaustive);
  j.at("limit").get_to(m.limit);
  if (!j.at("shard").is_null()) m.shard = j.at("shard").get<ShardInfo>();
  if (!j.at("trial").is_null()) m.trial = j.at("trial").get<int>();
  m.intercept = j.value("intercept", "");  // absent in a run.json of before issue 32
  const Json& scenarios = j.at("scenarios");
  for (size_t i = 0; i < scenarios.size(); ++i) {
    const Json& s = scenarios.at(i);
    m.scenarios.push_back({s.at("name").get<std::string>(), s.at("file").get<std::string>(),
                           s.at("digest").get<std::string>(), s.at("job_commit").get<std::string>(),
                           // absent in a run.json of before issue 34: not checked
                           s.value("job_files", std::map<std::string, std::string>{})});
  }
  return m;
}

std::string ShardText(const std::optional<ShardInfo>& s) {
  return s ? std::to_string(s->index) + "/" + std::to_string(s->count) : "none";
}

std::string Names(const RunManifest& m) {
  std::string out;
  for (const auto& s : m.scenarios) out += (out.empty() ? "" : ", ") + s.name;
  return "[" + out + "]";
}

Status Differs(const std::string& file, const std::string& what, const std::string& then,
               const std::string& now) {
  return Error::BadInput(file + ": --resume must run what the interrupted run ran: " + what +
                         " was " + then + ", now " + now);
}

}  // namespace

Result<RunManifest> MakeManifest(const std::vector<Scenario>& scenarios, const SuiteOptions& o,
                                 const std::string& started_at) {
  RunManifest m;
  m.killpoint_version = KILLPOINT_VERSION;
  m.started_at = started_at;
  m.seed = o.seed;
  m.trials = o.trials;
  m.exhaustive = o.exhaustive;
  m.limit = o.exhaustive ? o.exhaustive_limit : 0;
  m.shard = o.shard;
  m.trial = o.only_trial;
  m.intercept = InterceptionUsed(scenarios, o.intercept);
  for (const Scenario& s : scenarios) {
    auto text = ReadFile(s.file);
    if (!text) return text.error();
    m.scenarios.push_back({s.name, AbsolutePath(s.file).string(), Fnv1a64Hex(text.value()),
                           JobCommit(s, o.bindir), JobFileDigests(s, o.bindir)});
  }
  return m;
}

Status WriteManifest(const fs::path& out, const RunManifest& m) {
  return WriteFileAtomically(RunManifestFile(out), ToJson(m).dump(2) + "\n");
}

Result<RunManifest> ReadManifest(const fs::path& out) {
  fs::path file = RunManifestFile(out);
  std::error_code ec;
  if (!fs::exists(file, ec)) {
    return Error::BadInput(
        file.string() + " is missing: --resume continues a run in its --out folder, and " +
        out.string() + " holds none (or one from before killpoint wrote run.json)");
  }
  auto text = ReadFile(file);
  if (!text) return Error::BadInput(text.error().message);
  try {
    return FromJson(Json::parse(text.value()));
  } catch (const Json::exception& e) {
    return Error::BadInput(file.string() + ": damaged run manifest: " + JsonErrorText(e));
  }
}

Status SameTrials(const RunManifest& then, const RunManifest& now, const std::string& file) {
  if (then.killpoint_version != now.killpoint_version) {
    return Differs(file, "the killpoint version", then.killpoint_version, now.killpoint_version);
  }
  if (then.seed != now.seed)
    return Differs(file, "--seed", std::to_string(then.seed), std::to_string(now.seed));
  if (then.trials != now.trials) {
    auto text = [](int t) {
      return t == 0 ? std::string("the scenarios' own") : std::to_string(t);
    };
    return Differs(file, "--trials", text(then.trials), text(now.trials));
  }
  if (then.exhaustive != now.exhaustive) {
    return Differs(file, "--exhaustive", then.exhaustive ? "on" : "off",
                   now.exhaustive ? "on" : "off");
  }
  if (then.limit != now.limit)
    return Differs(file, "--limit", std::to_string(then.limit), std::to_string(now.limit));
  if (then.shard != now.shard)
    return Differs(file, "--shard", ShardText(then.shard), ShardText(now.shard));
  if (then.trial != now.trial) {
    auto text = [](const std::optional<int>& t) {
      return t ? std::to_string(*t) : std::string("none");
    };
    return Differs(file, "--trial", text(then.trial), text(now.trial));
  }
  if (then.scenarios.size() != now.scenarios.size()) {
    return Differs(file, "the scenario set", Names(then), Names(now));
  }
  for (size_t i = 0; i < then.scenarios.size(); ++i) {
    const ManifestScenario& a = then.scenarios[i];
    const ManifestScenario& b = now.scenarios[i];
    // The same file however it was named (relative then, absolute now, "a/../b").
    if (a.name != b.name || AbsolutePath(a.file) != AbsolutePath(b.file))
      return Differs(file, "the scenario set", Names(then), Names(now));
    if (a.digest != b.digest)
      return Differs(file, "scenario file " + a.file, "digest " + a.digest,
                     b.digest + " (it was edited)");
    if (a.job_commit != b.job_commit) {
      return Differs(file, "the job of " + a.name, "at commit " + a.job_commit, b.job_commit);
    }
    if (a.job_files.empty()) continue;  // a run.json of before issue 34
    for (const auto& [path, digest] : a.job_files) {
      auto it = b.job_files.find(path);
      if (it == b.job_files.end())
        return Differs(file, "the job file " + path + " of " + a.name, "digest " + digest,
                       "gone from the job's command");
      if (it->second != digest)
        return Differs(file, "the job file " + path + " of " + a.name, "digest " + digest,
                       it->second + " (it was changed)");
    }
    for (const auto& [path, digest] : b.job_files) {
      if (!a.job_files.count(path))
        return Differs(file, "the job of " + a.name, "without " + path, "with it");
    }
  }
  // After the scenarios, which decide whether any is intercepted ("none"): the backend decides
  // which calls are points and in which order, so another one makes other trials. Unknown in
  // an older run.json: not held against it.
  if (!then.intercept.empty() && then.intercept != now.intercept)
    return Differs(file, "--intercept", then.intercept, now.intercept);
  return Ok();
}

}  // namespace killpoint
