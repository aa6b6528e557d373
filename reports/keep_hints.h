// What a person types to look inside a kept sandbox (`run --keep`, `replay --keep`): only for
// what the job actually left there. A `sqlite3 ... .dump` per SQLite database found in it (by
// its file header, not by a name the scenario may not use), a `cat` of the state file when
// the job wrote one, `ls` of the logs when there are any.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace killpoint {

// How many databases are named at most (a job that makes one a date would fill the screen).
inline constexpr size_t kMaxDatabaseHints = 5;

// The commands, one a line, for the sandbox `box` (its job's files under box/work, its logs
// under box/logs); `state_file` relative to box/work, empty when the scenario names none.
std::vector<std::string> KeepHints(const std::filesystem::path& box, const std::string& state_file);

}  // namespace killpoint
