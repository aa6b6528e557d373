// A scenario's name as one folder name of the output (results/layout.h puts it there).
#pragma once

#include <string>

namespace killpoint {

// "publish/execute-then-mark" -> "publish-execute-then-mark": a folder name. ASCII letters,
// digits, '-', '_' and '.' are kept, and every character beyond ASCII but the invisible ones
// (util/printable.h); anything else becomes '-'.
std::string Slug(const std::string& scenario_name);

}  // namespace killpoint
