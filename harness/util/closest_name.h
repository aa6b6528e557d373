// "Did you mean": the known name closest to a mistyped one.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace killpoint {

// The candidate nearest to `typed` by edit distance (insertions, deletions, substitutions and
// swaps of two neighbours; one of the two a prefix of the other counts as one edit), if it is
// near enough to be a typo: at most 1 edit for names up to 4 characters, 2 up to 8, 3 beyond.
// Empty if none is, or if two are equally near.
std::string ClosestName(std::string_view typed, const std::vector<std::string>& candidates);

}  // namespace killpoint
