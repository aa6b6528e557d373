// `killpoint init`'s one run: a job's first date, one fault-free attempt under the syscall shim
// and the downstream, and what it touched (init/scenario_draft.h's JobSurvey).
#pragma once

#include <optional>

#include "history/start_failure.h"
#include "init/scenario_draft.h"
#include "run/trial_runner.h"

namespace killpoint {

struct SurveyOutcome {
  JobSurvey survey;
  // Set when no attempt of the date exited 0: the code and stderr of its first failed one.
  std::optional<StartFailure> failed;
};

// Runs `scenario`'s first date once (its retries and final pass if the attempt fails) and
// fills in the survey's points, files and downstream calls; name, command and dates are the
// caller's.
Result<SurveyOutcome> SurveyJob(Scenario scenario, const TrialOptions& options);

// What a file's first bytes say it is: the SQLite header, a JSON object, anything else.
SurveyedFile::Kind KindOfFile(const std::filesystem::path& file);

}  // namespace killpoint
