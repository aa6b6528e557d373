// A typed, path-aware view of one JSON object in a scenario file. It records which keys
// were read so that Finish() can reject unknown fields by name. Failures throw FieldError,
// which never leaves scenario_parser.cc: the parser turns it into an Error value.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace killpoint {

struct FieldError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class FieldReader {
 public:
  // `object` must outlive the reader. `path` is the field path of the object ("" for the root).
  FieldReader(const nlohmann::json& object, std::string path);

  bool Has(const std::string& key) const;
  std::string String(const std::string& key, const std::string* fallback = nullptr);
  int64_t Integer(const std::string& key, int64_t min, int64_t max, const int64_t* fallback);
  double Number(const std::string& key, double min, double max, double fallback);
  bool Boolean(const std::string& key, bool fallback);
  std::vector<std::string> Strings(const std::string& key, bool required, bool allow_empty);
  // Fails at the second of two equal values of the list `key` ("'x' is listed twice"): a
  // value listed twice would weigh twice in a draw (issue 34).
  void Unique(const std::string& key, const std::vector<std::string>& values) const;
  std::map<std::string, std::string> StringMap(const std::string& key);
  // A list of integers, each from min to max; a missing list reads as empty.
  std::vector<int64_t> Integers(const std::string& key, int64_t min, int64_t max);
  FieldReader Object(const std::string& key);  // a missing object reads as {}

  // Throws if the object holds a key nobody asked for.
  void Finish() const;

  std::string PathOf(const std::string& key) const;
  [[noreturn]] void Fail(const std::string& key, const std::string& expected) const;

 private:
  const nlohmann::json* Find(const std::string& key);

  const nlohmann::json& object_;
  std::string path_;
  std::set<std::string> read_;
};

// "a string", "an integer", ... with the offending value, for messages.
std::string DescribeJson(const nlohmann::json& value);

}  // namespace killpoint
