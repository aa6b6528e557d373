// Which version of the job a run tested: the git commit of the checkout the job lives in, for
// the report's metadata. Best effort by design: a job outside any git checkout, or a machine
// without git, gives "" and never an error.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "scenario/scenario.h"

namespace killpoint {

// Folders that may hold the job, most telling first: the folder of the job's program (with
// {bindir} and {scenario_dir} filled in), of each argument that is an existing file (the
// script an interpreter runs), then the scenario file's own folder.
std::vector<std::filesystem::path> JobFolders(const Scenario& s,
                                              const std::filesystem::path& bindir);

// `git rev-parse HEAD` in the first of JobFolders inside a git checkout, with "-dirty" appended
// when tracked files have uncommitted changes; "" when there is none. Asks git once per folder.
std::string JobCommit(const Scenario& s, const std::filesystem::path& bindir);

}  // namespace killpoint
