// The outcome of one invariant on one trial: plain data with JSON, equality and printing.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

namespace killpoint {

struct Verdict {
  std::string invariant;
  bool held = true;
  std::string explanation;  // for a violation: the date and the evidence, in one sentence

  static Verdict Held(std::string invariant, std::string why = "") {
    return {std::move(invariant), true, std::move(why)};
  }
  static Verdict Violated(std::string invariant, std::string why) {
    return {std::move(invariant), false, std::move(why)};
  }
  bool operator==(const Verdict&) const = default;
};

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(Verdict, invariant, held, explanation)

inline std::ostream& operator<<(std::ostream& os, const Verdict& v) {
  return os << v.invariant << (v.held ? " held" : " VIOLATED") << ": " << v.explanation;
}

}  // namespace killpoint
