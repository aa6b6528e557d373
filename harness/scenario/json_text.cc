#include "scenario/json_text.h"

#include <nlohmann/json.hpp>
#include <set>
#include <vector>

#include "util/json_error.h"

namespace killpoint {
namespace {

using nlohmann::json;

// Tracks where in the document the parser is, and stops at the first problem.
class PathTracker {
 public:
  bool null() { return Value(); }
  bool boolean(bool) { return Value(); }
  bool number_integer(json::number_integer_t) { return Value(); }
  bool number_unsigned(json::number_unsigned_t) { return Value(); }
  bool number_float(json::number_float_t, const json::string_t&) { return Value(); }
  bool string(json::string_t&) { return Value(); }
  bool binary(json::binary_t&) { return Value(); }
  bool start_object(std::size_t) { return Open(true); }
  bool start_array(std::size_t) { return Open(false); }
  bool end_object() { return Close(); }
  bool end_array() { return Close(); }

  bool key(json::string_t& k) {
    Frame& f = frames_.back();
    f.key = k;
    f.has_key = true;
    if (!f.keys.insert(k).second) return Fail(Where() + ": listed twice in one object");
    return true;
  }

  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception& e) {
    std::string what = JsonErrorText(e);
    if (e.id == 406) return Fail(Where() + ": " + what);  // number overflow
    return Fail(Where() + ": not valid JSON: " + what);
  }

  const std::optional<std::string>& error() const { return error_; }

 private:
  struct Frame {
    bool object = false;
    std::string path;  // of this object or array; "" for the root
    std::set<std::string> keys;
    std::string key;  // object: the key whose value is being read
    bool has_key = false;
    size_t index = 0;  // array: the element being read
  };

  std::string ChildPath() const {
    if (frames_.empty()) return "";
    const Frame& f = frames_.back();
    if (f.object) return f.path.empty() ? f.key : f.path + "." + f.key;
    return f.path + "[" + std::to_string(f.index) + "]";
  }

  std::string Where() const {
    if (frames_.empty()) return "(root)";
    const Frame& f = frames_.back();
    if (f.object && !f.has_key) return f.path.empty() ? "(root)" : f.path;
    return ChildPath();
  }

  // A value (scalar, or a nested object or array) was completed in the current frame.
  bool Value() {
    if (frames_.empty()) return true;
    Frame& f = frames_.back();
    if (f.object) {
      f.has_key = false;
    } else {
      ++f.index;
    }
    return true;
  }

  bool Open(bool object) {
    if (frames_.size() >= kMaxJsonDepth) {
      return Fail(Where() + ": nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
    }
    Frame f;
    f.object = object;
    f.path = ChildPath();
    frames_.push_back(std::move(f));
    return true;
  }

  bool Close() {
    frames_.pop_back();
    return Value();
  }

  bool Fail(std::string message) {
    if (!error_) error_ = std::move(message);
    return false;
  }

  std::vector<Frame> frames_;
  std::optional<std::string> error_;
};

}  // namespace

std::optional<std::string> CheckJsonText(std::string_view text) {
  PathTracker tracker;
  bool ok = json::sax_parse(text, &tracker);
  if (ok) return std::nullopt;
  if (tracker.error()) return tracker.error();
  return "(root): not valid JSON";
}

}  // namespace killpoint
