// Which version of the job a run tested: the git commit of the checkout the job lives in, for
// the report's metadata. Best effort by design: a job outside any git checkout, or a machine
// without git, gives "" and never an error.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "scenario/scenario.h"

namespace killpoint {

// Folders that may hold the job, most telling first: the folder of the job's program (with
// {bindir} and {scenario_dir} filled in), of each argument that is an existing file (the
// script an interpreter runs), then the scenario file's own folder.
std::vector<std::filesystem::path> JobFolders(const Scenario& s,
                                              const std::filesystem::path& bindir);

// The files the job runs, by absolute path, each with its FNV-1a 64 digest (hex): the program
// of job.command and of job.setup (found on PATH when named bare: an interpreter is part of
// what runs) and every argument of theirs that is an existing file once {bindir} and
// {scenario_dir} are filled in (the script an interpreter runs). A file that cannot be read
// has the digest "unreadable". What `--resume` compares, so that one verdict never mixes two
// versions of a job, also outside git (issue 34).
std::map<std::string, std::string> JobFileDigests(const Scenario& s,
                                                  const std::filesystem::path& bindir);

// `git rev-parse HEAD` in the first of JobFolders inside a git checkout, with "-dirty" appended
// when tracked files have uncommitted changes; "" when there is none. Asks git once per folder.
std::string JobCommit(const Scenario& s, const std::filesystem::path& bindir);

}  // namespace killpoint
