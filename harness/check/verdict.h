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
  // For a violation: its likely cause read from the history, and the docs that say how to fix
  // it (check/fix_hint.h); empty when no rule knows the cause.
  std::string hint;

  static Verdict Held(std::string invariant, std::string why = "") {
    return {std::move(invariant), true, std::move(why), ""};
  }
  static Verdict Violated(std::string invariant, std::string why) {
    return {std::move(invariant), false, std::move(why), ""};
  }
  bool operator==(const Verdict&) const = default;
};

// "hint" only when there is one: journals of before read, and held verdicts stay short.
inline void to_json(nlohmann::json& j, const Verdict& v) {
  j = {{"invariant", v.invariant}, {"held", v.held}, {"explanation", v.explanation}};
  if (!v.hint.empty()) j["hint"] = v.hint;
}
inline void from_json(const nlohmann::json& j, Verdict& v) {
  j.at("invariant").get_to(v.invariant);
  j.at("held").get_to(v.held);
  j.at("explanation").get_to(v.explanation);
  v.hint = j.value("hint", "");
}

inline std::ostream& operator<<(std::ostream& os, const Verdict& v) {
  return os << v.invariant << (v.held ? " held" : " VIOLATED") << ": " << v.explanation;
}

}  // namespace killpoint
