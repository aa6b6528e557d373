#include "service/postgres/pg_framing.h"

#include <algorithm>
#include <cctype>

namespace killpoint {
namespace {

constexpr uint32_t kSslRequest = 80877103;
constexpr uint32_t kGssEncRequest = 80877104;
constexpr uint32_t kMaxMessage = 1u << 30;  // PostgreSQL's own limit is below
constexpr size_t kMaxCommitBody = 64;       // a longer text is no bare COMMIT; its start, the verb

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

void PgFrontendParser::EndOfMessage(size_t end, std::vector<ClientCommand>& commands) {
  // A COMMIT's text is short: a longer one, of which body_ holds the start, is something else.
  const bool whole = kept_whole_;
  if (untyped_) {
    // An SSLRequest or GSSENCRequest is followed by another untyped message.
    uint32_t code = body_.size() >= 4 ? BigEndian32(body_, 0) : 0;
    untyped_ = code == kSslRequest || code == kGssEncRequest;
  } else if (type_ == 'Q') {
    commands.push_back({end, SqlVerb(body_), whole && IsPgCommitText(body_), true});
  } else if (type_ == 'P') {
    // Parse: the statement's name, a NUL, then its text.
    size_t nul = body_.find('\0');
    std::string_view text = nul == std::string::npos ? "" : std::string_view(body_).substr(nul + 1);
    commit_parsed_ = whole && nul != std::string::npos && IsPgCommitText(text);
    if (batch_verb_.empty()) batch_verb_ = SqlVerb(text);
    batch_ = true;
  } else if (type_ == 'B' || type_ == 'E' || type_ == 'D' || type_ == 'C') {
    batch_ = true;  // a Bind, Execute, Describe or Close: the Sync ends a round trip
  } else if (type_ == 'S') {
    // The extended protocol's round trip ends at its Sync, named by its first Parse's verb.
    if (batch_ || commit_parsed_)
      commands.push_back(
          {end, batch_verb_.empty() ? "EXECUTE" : batch_verb_, commit_parsed_, true});
    commit_parsed_ = batch_ = false;
    batch_verb_.clear();
  }
  header_.clear();
  body_.clear();
}

std::vector<ClientCommand> PgFrontendParser::Read(std::string_view bytes) {
  std::vector<ClientCommand> commits;
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
      // An untyped message's code is all we need of it; of a Q or P, the start of its text.
      keep_body_ = untyped_ ? remaining_ <= 8 : type_ == 'Q' || type_ == 'P';
      kept_whole_ = remaining_ <= kMaxCommitBody;
      if (remaining_ == 0) EndOfMessage(i, commits);
      continue;
    }
    size_t take = std::min<size_t>(remaining_, bytes.size() - i);
    if (keep_body_ && body_.size() < kMaxCommitBody)
      body_.append(bytes.substr(i, std::min(take, kMaxCommitBody - body_.size())));
    i += take;
    remaining_ -= uint32_t(take);
    if (remaining_ == 0) EndOfMessage(i, commits);
  }
  return commits;
}

}  // namespace killpoint
