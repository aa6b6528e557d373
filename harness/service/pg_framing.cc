#include "service/pg_framing.h"

#include <cctype>

namespace killpoint {
namespace {

constexpr uint32_t kSslRequest = 80877103;
constexpr uint32_t kGssEncRequest = 80877104;
constexpr uint32_t kMaxMessage = 1u << 30;  // PostgreSQL's own limit is below
constexpr size_t kMaxCommitBody = 64;       // a longer text is no bare COMMIT

uint32_t BigEndian32(std::string_view b, size_t at) {
  return (uint32_t(uint8_t(b[at])) << 24) | (uint32_t(uint8_t(b[at + 1])) << 16) |
         (uint32_t(uint8_t(b[at + 2])) << 8) | uint32_t(uint8_t(b[at + 3]));
}

std::string_view TrimmedSql(std::string_view s) {
  while (!s.empty() && (std::isspace(uint8_t(s.front())) || s.front() == '\0')) s.remove_prefix(1);
  while (!s.empty() && (std::isspace(uint8_t(s.back())) || s.back() == ';' || s.back() == '\0'))
    s.remove_suffix(1);
  return s;
}

std::string UpperWords(std::string_view s) {
  std::string out;
  bool space = false;
  for (char c : s) {
    if (std::isspace(uint8_t(c))) {
      space = true;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += char(std::toupper(uint8_t(c)));
  }
  return out;
}

}  // namespace

std::string SqlWords(std::string_view sql) { return UpperWords(TrimmedSql(sql)); }

bool IsPgCommitText(std::string_view sql) {
  std::string s = SqlWords(sql);
  for (const char* verb : {"COMMIT", "END"}) {
    std::string v = verb;
    if (s == v || s == v + " WORK" || s == v + " TRANSACTION") return true;
  }
  return false;
}

void PgFrontendParser::EndOfMessage(size_t end, std::vector<size_t>& commits) {
  if (untyped_) {
    // An SSLRequest or GSSENCRequest is followed by another untyped message.
    uint32_t code = body_.size() >= 4 ? BigEndian32(body_, 0) : 0;
    untyped_ = code == kSslRequest || code == kGssEncRequest;
  } else if (type_ == 'Q' && keep_body_ && IsPgCommitText(body_)) {
    commits.push_back(end);
  } else if (type_ == 'P' && keep_body_) {
    // Parse: the statement's name, a NUL, then its text.
    size_t nul = body_.find('\0');
    commit_parsed_ = nul != std::string::npos && IsPgCommitText(body_.substr(nul + 1));
  } else if (type_ == 'S' && commit_parsed_) {
    commit_parsed_ = false;
    commits.push_back(end);
  }
  header_.clear();
  body_.clear();
}

std::vector<size_t> PgFrontendParser::Feed(std::string_view bytes) {
  std::vector<size_t> commits;
  size_t i = 0;
  while (i < bytes.size() && !broken_) {
    const size_t header_size = untyped_ ? 4 : 5;
    if (header_.size() < header_size) {
      header_ += bytes[i++];
      if (header_.size() < header_size) continue;
      type_ = untyped_ ? 0 : header_[0];
      uint32_t length = BigEndian32(header_, untyped_ ? 0 : 1);
      if (length < 4 || length > kMaxMessage) {
        broken_ = true;
        break;
      }
      remaining_ = length - 4;
      // An untyped message's code is all we need of it; a Q or P's text, when short.
      keep_body_ = untyped_ ? remaining_ <= 8
                            : (type_ == 'Q' || type_ == 'P') && remaining_ <= kMaxCommitBody;
      if (remaining_ == 0) EndOfMessage(i, commits);
      continue;
    }
    size_t take = std::min<size_t>(remaining_, bytes.size() - i);
    if (keep_body_) body_.append(bytes.substr(i, take));
    i += take;
    remaining_ -= uint32_t(take);
    if (remaining_ == 0) EndOfMessage(i, commits);
  }
  return commits;
}

}  // namespace killpoint
