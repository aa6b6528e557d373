#include "scenario/field_reader.h"

#include <cmath>
#include <set>

#include "util/closest_name.h"

namespace killpoint {
namespace {

const nlohmann::json kEmptyObject = nlohmann::json::object();

std::string Shorten(std::string s) {
  if (s.size() > 60) s = s.substr(0, 57) + "...";
  return s;
}

}  // namespace

std::string DescribeJson(const nlohmann::json& value) {
  if (value.is_null()) return "null";
  std::string dumped = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  return std::string(value.type_name()) + " " + Shorten(dumped);
}

FieldReader::FieldReader(const nlohmann::json& object, std::string path)
    : object_(object), path_(std::move(path)) {}

std::string FieldReader::PathOf(const std::string& key) const {
  return path_.empty() ? key : path_ + "." + key;
}

void FieldReader::Fail(const std::string& key, const std::string& expected) const {
  throw FieldError(PathOf(key) + ": " + expected);
}

bool FieldReader::Has(const std::string& key) const { return object_.contains(key); }

const nlohmann::json* FieldReader::Find(const std::string& key) {
  read_.insert(key);
  auto it = object_.find(key);
  return it == object_.end() ? nullptr : &*it;
}

std::string FieldReader::String(const std::string& key, const std::string* fallback) {
  const nlohmann::json* v = Find(key);
  if (!v) {
    if (fallback) return *fallback;
    Fail(key, "is required (a string)");
  }
  if (!v->is_string()) Fail(key, "expected a string, got " + DescribeJson(*v));
  return v->get<std::string>();
}

int64_t FieldReader::Integer(const std::string& key, int64_t min, int64_t max,
                             const int64_t* fallback) {
  const nlohmann::json* v = Find(key);
  std::string range = "an integer from " + std::to_string(min) + " to " + std::to_string(max);
  if (!v) {
    if (fallback) return *fallback;
    Fail(key, "is required (" + range + ")");
  }
  bool integral = v->is_number_integer() ||
                  (v->is_number_float() && std::floor(v->get<double>()) == v->get<double>());
  if (!integral) Fail(key, "expected " + range + ", got " + DescribeJson(*v));
  if (v->is_number_unsigned() && v->get<uint64_t>() > static_cast<uint64_t>(max)) {
    Fail(key, "expected " + range + ", got " + DescribeJson(*v));
  }
  double as_double = v->get<double>();
  if (as_double < static_cast<double>(min) || as_double > static_cast<double>(max)) {
    Fail(key, "expected " + range + ", got " + DescribeJson(*v));
  }
  return v->is_number_float() ? static_cast<int64_t>(as_double) : v->get<int64_t>();
}

double FieldReader::Number(const std::string& key, double min, double max, double fallback) {
  const nlohmann::json* v = Find(key);
  if (!v) return fallback;
  std::string range =
      "a number from " + nlohmann::json(min).dump() + " to " + nlohmann::json(max).dump();
  if (!v->is_number()) Fail(key, "expected " + range + ", got " + DescribeJson(*v));
  double d = v->get<double>();
  if (!(d >= min && d <= max)) Fail(key, "expected " + range + ", got " + DescribeJson(*v));
  return d;
}

bool FieldReader::Boolean(const std::string& key, bool fallback) {
  const nlohmann::json* v = Find(key);
  if (!v) return fallback;
  if (!v->is_boolean()) Fail(key, "expected true or false, got " + DescribeJson(*v));
  return v->get<bool>();
}

std::vector<std::string> FieldReader::Strings(const std::string& key, bool required,
                                              bool allow_empty) {
  const nlohmann::json* v = Find(key);
  if (!v) {
    if (required) Fail(key, "is required (a list of strings)");
    return {};
  }
  if (!v->is_array()) Fail(key, "expected a list of strings, got " + DescribeJson(*v));
  if (v->empty() && !allow_empty) Fail(key, "must not be empty");
  std::vector<std::string> out;
  for (size_t i = 0; i < v->size(); ++i) {
    const nlohmann::json& item = (*v)[i];
    if (!item.is_string()) {
      Fail(key + "[" + std::to_string(i) + "]", "expected a string, got " + DescribeJson(item));
    }
    out.push_back(item.get<std::string>());
  }
  return out;
}

void FieldReader::Unique(const std::string& key, const std::vector<std::string>& values) const {
  std::set<std::string> seen;
  for (size_t i = 0; i < values.size(); ++i) {
    if (!seen.insert(values[i]).second) {
      Fail(key + "[" + std::to_string(i) + "]", "'" + values[i] + "' is listed twice");
    }
  }
}

std::map<std::string, std::string> FieldReader::StringMap(const std::string& key) {
  const nlohmann::json* v = Find(key);
  if (!v) return {};
  if (!v->is_object()) Fail(key, "expected an object of strings, got " + DescribeJson(*v));
  std::map<std::string, std::string> out;
  for (const auto& [k, item] : v->items()) {
    if (!item.is_string()) Fail(key + "." + k, "expected a string, got " + DescribeJson(item));
    out[k] = item.get<std::string>();
  }
  return out;
}

std::vector<int64_t> FieldReader::Integers(const std::string& key, int64_t min, int64_t max) {
  const nlohmann::json* v = Find(key);
  if (!v) return {};
  if (!v->is_array()) Fail(key, "expected a list of integers, got " + DescribeJson(*v));
  std::vector<int64_t> out;
  for (size_t i = 0; i < v->size(); ++i) {
    const nlohmann::json& item = (*v)[i];
    if (!item.is_number_integer() || item.get<double>() < static_cast<double>(min) ||
        item.get<double>() > static_cast<double>(max)) {
      Fail(key + "[" + std::to_string(i) + "]", "expected an integer from " + std::to_string(min) +
                                                    " to " + std::to_string(max) + ", got " +
                                                    DescribeJson(item));
    }
    out.push_back(item.get<int64_t>());
  }
  return out;
}

FieldReader FieldReader::Object(const std::string& key) {
  const nlohmann::json* v = Find(key);
  if (!v) return FieldReader(kEmptyObject, PathOf(key));
  if (!v->is_object()) Fail(key, "expected an object, got " + DescribeJson(*v));
  return FieldReader(*v, PathOf(key));
}

void FieldReader::Finish() const {
  for (const auto& [key, value] : object_.items()) {
    if (!read_.count(key)) {
      std::string known;
      for (const auto& k : read_) known += (known.empty() ? "" : ", ") + k;
      std::string closest = ClosestName(key, {read_.begin(), read_.end()});
      throw FieldError(PathOf(key) + ": unknown field" +
                       (closest.empty() ? "" : ", did you mean '" + closest + "'?") +
                       " (known here: " + known + ")");
    }
  }
}

}  // namespace killpoint
