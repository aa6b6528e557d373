#include "channel/protocol_line.h"

#include <algorithm>
#include <charconv>

#include "util/printable.h"

namespace killpoint {
namespace {

bool NameChar(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '.' || c == ':' || c == '/' || c == '-';
}

// Splits off the next space-separated field; false when `rest` is empty.
bool NextField(std::string_view& rest, std::string_view& field) {
  if (rest.empty()) return false;
  size_t sp = rest.find(' ');
  field = rest.substr(0, sp);
  rest = sp == std::string_view::npos ? std::string_view{} : rest.substr(sp + 1);
  return true;
}

template <typename Int>
bool Digits(std::string_view field, size_t max_digits, Int& out) {
  if (field.empty() || field.size() > max_digits) return false;
  for (char c : field) {
    if (c < '0' || c > '9') return false;
  }
  return std::from_chars(field.data(), field.data() + field.size(), out).ec == std::errc{};
}

// v1.4: "unseen:<op>" after a write's bytes, never on DONE.
bool ParseUnseen(std::string_view flag, FailpointHit& hit) {
  constexpr std::string_view kPrefix = "unseen:";
  if (hit.done || hit.bytes < 0 || flag.size() <= kPrefix.size() ||
      flag.substr(0, kPrefix.size()) != kPrefix) {
    return false;
  }
  std::string_view op = flag.substr(kPrefix.size());
  for (char c : op) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) return false;
  }
  hit.unseen = std::string(op);
  return true;
}

// v1.7: "at:<offset>" after a write's bytes, never on DONE. False when `flag` is another flag.
bool ParseOffset(std::string_view flag, FailpointHit& hit) {
  constexpr std::string_view kPrefix = "at:";
  if (hit.done || hit.bytes < 0 || flag.substr(0, kPrefix.size()) != kPrefix) return false;
  return Digits(flag.substr(kPrefix.size()), 18, hit.offset);
}

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// v1.5: "OUTSIDE <op> <pid> <path>" after its kind.
std::optional<FailpointHit> ParseOutside(std::string_view rest) {
  std::string_view op, pid;
  FailpointHit hit;
  if (!NextField(rest, op) || !NextField(rest, pid) || op.empty() || !Digits(pid, 9, hit.pid))
    return std::nullopt;
  for (char c : op) {
    if (c < 'a' || c > 'z') return std::nullopt;
  }
  if (rest.empty() || rest.front() != '/') return std::nullopt;
  std::string path;
  for (size_t i = 0; i < rest.size(); ++i) {
    char c = rest[i];
    if (c == ' ' || static_cast<unsigned char>(c) < 0x20) return std::nullopt;
    if (c != '%') {
      path += c;
      continue;
    }
    if (i + 2 >= rest.size() || HexValue(rest[i + 1]) < 0 || HexValue(rest[i + 2]) < 0)
      return std::nullopt;
    path += static_cast<char>(HexValue(rest[i + 1]) * 16 + HexValue(rest[i + 2]));
    i += 2;
  }
  hit.seen = true;
  hit.outside = std::string(op);
  hit.name = Printable(path);
  return hit;
}

}  // namespace

std::optional<FailpointHit> ParseProtocolLine(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (!line.empty() && line.back() == ' ') return std::nullopt;
  std::string_view kind, name, pid, bytes;
  if (!NextField(line, kind)) return std::nullopt;
  if (kind == "OUTSIDE") return ParseOutside(line);
  if (!NextField(line, name)) return std::nullopt;
  FailpointHit hit;
  if (kind == "REFUSED") {  // v1.6: a lowercase system call name and the pid, one way
    if (name.empty() || !std::all_of(name.begin(), name.end(), [](char c) {
          return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
        }))
      return std::nullopt;
    if (!NextField(line, pid) || !Digits(pid, 9, hit.pid) || !line.empty()) return std::nullopt;
    hit.refused = true;
    hit.seen = true;
    hit.name = std::string(name);
    return hit;
  }
  if (kind == "DONE") {
    hit.done = true;
  } else if (kind == "SEEN") {
    hit.seen = true;
  } else if (kind != "HIT") {
    return std::nullopt;
  }
  if (name.empty()) return std::nullopt;
  for (char c : name) {
    if (!NameChar(c)) return std::nullopt;
  }
  hit.name = std::string(name);
  if (NextField(line, pid) && !Digits(pid, 9, hit.pid)) return std::nullopt;
  if (NextField(line, bytes) && bytes == "excl" && !pid.empty() && !hit.done) {
    hit.excl = true;  // v1.3: only after a pid, never on DONE
  } else if (!bytes.empty() && !Digits(bytes, 18, hit.bytes)) {
    return std::nullopt;
  }
  std::string_view flag;
  bool more = NextField(line, flag);
  if (more && flag.starts_with("at:")) {
    if (!ParseOffset(flag, hit)) return std::nullopt;
    more = NextField(line, flag);
  }
  if (more && !ParseUnseen(flag, hit)) return std::nullopt;
  if (!line.empty()) return std::nullopt;
  return hit;
}

}  // namespace killpoint
