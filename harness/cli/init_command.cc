#include "cli/init_command.h"

#include <iostream>
#include <map>
#include <memory>
#include <sstream>

#include "cli/exit_codes.h"
#include "cli/paths.h"
#include "cli/sandbox_options.h"
#include "init/job_survey.h"
#include "scenario/scenario_parser.h"
#include "util/absolute_path.h"
#include "util/atomic_file.h"
#include "util/printable.h"
#include "util/shell_quote.h"

namespace killpoint {
namespace {

namespace fs = std::filesystem;

struct InitArgs {
  std::vector<std::string> command;
  std::string setup;  // --setup: one command line, split like a shell's words (SetupWords)
  std::string out = "scenario.json";
  std::string name;
  std::vector<std::string> dates = {"2026-11-01", "2026-11-02", "2026-11-03"};
  std::string bindir;
  std::string intercept;  // --intercept
  bool force = false;
};

// An argument naming a file or folder that exists from here, made to work from the sandbox:
// `{scenario_dir}/...` when it lies beside the scenario (or below), else absolute.
std::string Portable(const std::string& arg, const fs::path& scenario_dir) {
  std::error_code ec;
  if (arg.empty() || arg[0] == '-' || fs::path(arg).is_absolute() || !fs::exists(arg, ec))
    return arg;
  fs::path abs = fs::weakly_canonical(AbsolutePath(arg), ec);
  fs::path rel = abs.lexically_relative(scenario_dir);
  if (!rel.empty() && *rel.begin() != "..") return "{scenario_dir}/" + rel.generic_string();
  return abs.string();
}

// "python3 make_db.py --rows '3 4'" -> {python3, make_db.py, --rows, "3 4"}: words split on
// spaces, '...' and "..." quoting, \ escaping one character; no expansion of any kind.
Result<std::vector<std::string>> SetupWords(const std::string& line) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quote != 0) {
      if (c == quote) {
        quote = 0;
      } else if (c == '\\' && quote == '"' && i + 1 < line.size()) {
        word += line[++i];
      } else {
        word += c;
      }
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == '\\' && i + 1 < line.size()) {
      word += line[++i];
      in_word = true;
    } else if (c == ' ' || c == '\t') {
      if (in_word) words.push_back(word);
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (quote != 0)
    return Error::BadInput("--setup: an unclosed " + std::string(1, quote) + " quote");
  if (in_word) words.push_back(word);
  if (words.empty()) return Error::BadInput("--setup: an empty command");
  return words;
}

std::string NameOf(const std::vector<std::string>& command) {
  std::string last = command.front();
  for (const std::string& a : command)
    if (a.find('/') != std::string::npos || a.find('.') != std::string::npos) last = a;
  std::string stem = fs::path(last).stem().string();
  return stem.empty() ? "my-job" : stem;
}

// What the run did to each path, from its crash points: "written, fsynced, renamed onto".
std::map<std::string, std::vector<std::string>> Operations(const JobSurvey& s) {
  std::map<std::string, std::vector<std::string>> ops;
  auto add = [&](const std::string& path, const std::string& what) {
    auto& list = ops[path];
    if (std::find(list.begin(), list.end(), what) == list.end()) list.push_back(what);
  };
  for (const std::string& p : s.points) {
    std::vector<std::string> paths = PointPaths(p);
    std::string op = p.substr(0, p.find(':'));
    if (op == "rename" && paths.size() == 2) {
      add(paths[0], "renamed");
      add(paths[1], "renamed onto");
    } else if (!paths.empty() && op != "close") {
      add(paths[0], op == "open" ? "created" : op == "write" ? "written" : op + "ed");
    }
  }
  for (const SurveyedFile& f : s.files) ops[f.path];
  return ops;
}

const char* KindName(const JobSurvey& s, const std::string& path) {
  for (const SurveyedFile& f : s.files) {
    if (f.path != path) continue;
    if (f.kind == SurveyedFile::Kind::kSqlite) return "SQLite database";
    if (f.kind == SurveyedFile::Kind::kJsonObject) return "JSON object";
    return "file";
  }
  return path.find("<tmp") != std::string::npos ? "temporary file" : "gone at the end";
}

void PrintSurvey(const JobSurvey& s) {
  std::cout << "Ran " << s.name << " once for " << s.dates.front()
            << " under the syscall shim and the downstream: exit 0, " << s.points.size()
            << " distinct crash points\n";
  auto ops = Operations(s);
  std::cout << "Files in its sandbox" << (ops.empty() ? ": none\n" : ":\n");
  for (const auto& [path, what] : ops) {
    std::string list;
    for (const std::string& w : what) list += (list.empty() ? "" : ", ") + w;
    std::cout << "  " << Printable(path) << "\t" << KindName(s, path)
              << (list.empty() ? "" : "\t" + list) << "\n";
  }
  std::cout << "Downstream: " << s.publishes.size() << " POST /publish, " << s.queries
            << " GET /deliveries, " << s.alerts << " POST /alert\n";
  for (const SurveyedPublish& p : s.publishes)
    std::cout << "  publish key " << Printable(p.key) << ", biz_date " << Printable(p.biz_date)
              << (p.idempotency_key.empty() ? "" : ", Idempotency-Key " + p.idempotency_key)
              << "\n";
}

int Failed(const StartFailure& f) {
  std::cerr << "killpoint: init: the job failed under init: every attempt exited with code "
            << f.code << " (docs/writing-a-job.md, \"The contract\"); its stderr:\n";
  std::string line;
  std::istringstream in(f.stderr_tail);
  while (std::getline(in, line)) std::cerr << "  | " << Printable(line, 240) << "\n";
  return kExitBadInput;
}

int Execute(const InitArgs& a) {
  fs::path out = AbsolutePath(a.out);
  std::error_code ec;
  if (fs::exists(out, ec) && !a.force)
    return Report(Error::BadInput(a.out + " exists: --force to overwrite it"));
  if (a.dates.empty()) return Report(Error::BadInput("--dates: at least one"));
  JobSurvey base;
  base.name = a.name.empty() ? NameOf(a.command) : a.name;
  for (const std::string& arg : a.command) base.command.push_back(Portable(arg, out.parent_path()));
  if (!a.setup.empty()) {
    auto words = SetupWords(a.setup);
    if (!words) return Report(words.error());
    for (const std::string& arg : words.value())
      base.setup.push_back(Portable(arg, out.parent_path()));
  }
  base.dates = a.dates;
  nlohmann::ordered_json job = {{"command", base.command}};
  if (!base.setup.empty()) job["setup"] = base.setup;
  nlohmann::ordered_json first = {{"name", base.name},
                                  {"job", job},
                                  {"dates", base.dates},
                                  {"syscall_points", true},
                                  {"retry", {{"max_attempts", 1}}},
                                  {"invariants", {{"must_hold", {"converges"}}}}};
  auto scenario = ParseScenario(first.dump(), out);
  if (!scenario) return Report(scenario.error());
  TrialOptions options{a.bindir.empty() ? DefaultBindir() : fs::path(a.bindir),
                       fs::temp_directory_path(), false};
  auto intercept = InterceptionOf(a.intercept);
  if (!intercept) return Report(intercept.error());
  options.intercept = intercept.value();
  auto surveyed = SurveyJob(scenario.value(), options);
  if (!surveyed) return Report(surveyed.error());
  if (surveyed.value().failed) return Failed(*surveyed.value().failed);
  JobSurvey survey = surveyed.value().survey;
  survey.name = base.name;
  survey.command = base.command;
  survey.setup = base.setup;
  survey.dates = base.dates;
  ScenarioDraft draft = DraftScenario(survey);
  std::string text = draft.scenario.dump(2) + "\n";
  if (auto check = ParseScenario(text, out); !check)
    return Report(
        Error::Harness("init drafted a scenario it cannot read: " + check.error().message));
  // As `run --out` makes its folder: the scenario's folder is made once there is a scenario.
  if (fs::create_directories(out.parent_path(), ec); ec)
    return Report(Error::BadInput("--out " + a.out + ": cannot make its folder " +
                                  out.parent_path().string() + ": " + ec.message()));
  if (Status st = WriteFileAtomically(out, text); !st) return Report(st.error());
  PrintSurvey(survey);
  std::cout << "\nWrote " << a.out << ", each field explained (docs/writing-a-job.md, "
            << "\"Starting with killpoint init\"):\n";
  for (const DraftNote& n : draft.notes)
    std::cout << "  " << n.field << ": " << n.why << " (" << n.doc << ")\n";
  std::cout << "\nNext: killpoint run " << ShellQuote(a.out)
            << "   (then edit the scenario: the dates, the invariants)\n";
  return kExitOk;
}

}  // namespace

void AddInitCommand(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<InitArgs>();
  CLI::App* cmd = app.add_subcommand(
      "init", "Run a job once, list what it touched and write a starting scenario for it");
  cmd->add_option("COMMAND", args->command, "The job's command, after -- (python3 job.py)")
      ->required();
  cmd->add_option("--out,-o", args->out, "The scenario file to write")->capture_default_str();
  cmd->add_flag("--force", args->force, "Overwrite --out if it exists");
  cmd->add_option("--setup", args->setup,
                  "A command run in each fresh sandbox before the job (job.setup), one line: "
                  "\"python3 make_db.py --rows 3\"");
  cmd->add_option("--name", args->name, "The scenario's name (default: the script's)");
  cmd->add_option("--dates", args->dates, "Business dates (the first is run once here)")
      ->delimiter(',');
  cmd->add_option("--bindir", args->bindir, "Folder of the shim (default: killpoint's own)");
  AddInterceptOption(cmd, &args->intercept);
  cmd->callback([args, &exit_code] { exit_code = Execute(*args); });
}

}  // namespace killpoint
