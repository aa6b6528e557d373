#include "service/mariadb/mysql_framing.h"

#include "service/postgres/pg_framing.h"  // SqlWords

namespace killpoint {
namespace {

constexpr uint32_t kMysqlFullPacket = 0xFFFFFF;  // a payload this long goes on in the next packet
constexpr size_t kMysqlMaxCommitBody = 64;  // a longer text is no bare COMMIT; its start, the verb
constexpr uint8_t kMysqlComInitDb = 0x02;
constexpr uint8_t kMysqlComQuery = 0x03;
constexpr uint8_t kMysqlComPing = 0x0e;
constexpr uint8_t kMysqlComStmtPrepare = 0x16;
constexpr uint8_t kMysqlComStmtExecute = 0x17;
constexpr uint32_t kMysqlClientCompress = 0x20;
constexpr uint32_t kMysqlClientSsl = 0x800;

}  // namespace

bool IsMysqlCommitText(std::string_view sql) {
  std::string s = SqlWords(sql);
  if (!s.starts_with("COMMIT")) return false;
  std::string_view rest = std::string_view(s).substr(6);
  auto take = [&rest](std::string_view word) {
    if (!rest.starts_with(word)) return false;
    rest.remove_prefix(word.size());
    return true;
  };
  take(" WORK");
  if (!take(" AND NO CHAIN")) take(" AND CHAIN");
  if (!take(" NO RELEASE")) take(" RELEASE");
  return rest.empty();
}

// The verb of a command packet's payload, for the commands a server answers and a job waits for;
// empty for the rest (COM_QUIT, COM_STMT_CLOSE and COM_STMT_SEND_LONG_DATA have no answer).
std::string MysqlVerb(std::string_view payload) {
  switch (uint8_t(payload[0])) {
    case kMysqlComQuery:
      return SqlVerb(payload.substr(1));
    case kMysqlComStmtPrepare:
      return "PREPARE";
    case kMysqlComStmtExecute:
      return "EXECUTE";
    case kMysqlComInitDb:
      return "USE";
    case kMysqlComPing:
      return "PING";
    default:
      return {};
  }
}

void MysqlClientParser::EndOfPacket(size_t end, std::vector<ClientCommand>& commands) {
  if (first_) {
    // The handshake response or SSLRequest: its capability flags, little-endian, two bytes
    // before protocol 4.1, four after (the low two are the same).
    uint32_t flags = 0;
    for (size_t i = 0; i < body_.size() && i < 4; ++i)
      flags |= uint32_t(uint8_t(body_[i])) << (8 * i);
    broken_ = sequence_ != 1 || body_.size() < 2 ||
              (flags & (kMysqlClientSsl | kMysqlClientCompress)) != 0;
    first_ = false;
  } else if (sequence_ == 0 && !continued_) {
    if (length_ == 0) {
      broken_ = true;  // a command with no command byte: not this framing
    } else if (std::string verb = MysqlVerb(body_); length_ == kMysqlFullPacket) {
      long_verb_ = verb;  // the command ends with the last packet of its payload
    } else if (!verb.empty()) {
      bool commit = length_ <= kMysqlMaxCommitBody + 1 && uint8_t(body_[0]) == kMysqlComQuery &&
                    IsMysqlCommitText(std::string_view(body_).substr(1));
      commands.push_back({end, verb, commit, true});
    }
  } else if (continued_ && length_ != kMysqlFullPacket && !long_verb_.empty()) {
    commands.push_back({end, long_verb_, false, true});
    long_verb_.clear();
  }
  continued_ = length_ == kMysqlFullPacket;
  header_.clear();
  body_.clear();
}

std::vector<ClientCommand> MysqlClientParser::Read(std::string_view bytes) {
  std::vector<ClientCommand> commits;
  size_t i = 0;
  while (i < bytes.size() && !broken_) {
    if (header_.size() < 4) {
      header_ += bytes[i++];
      if (header_.size() < 4) continue;
      length_ = uint32_t(uint8_t(header_[0])) | (uint32_t(uint8_t(header_[1])) << 8) |
                (uint32_t(uint8_t(header_[2])) << 16);
      sequence_ = uint8_t(header_[3]);
      remaining_ = length_;
      // The first packet's flags; the start of a command's payload.
      keep_body_ = first_ || (sequence_ == 0 && !continued_);
      if (remaining_ == 0) EndOfPacket(i, commits);
      continue;
    }
    size_t take = std::min<size_t>(remaining_, bytes.size() - i);
    if (keep_body_) {
      size_t limit = first_ ? 4 : kMysqlMaxCommitBody + 1;
      size_t keep = std::min<size_t>(take, limit - std::min<size_t>(body_.size(), limit));
      body_.append(bytes.substr(i, keep));
    }
    i += take;
    remaining_ -= uint32_t(take);
    if (remaining_ == 0) EndOfPacket(i, commits);
  }
  return commits;
}

}  // namespace killpoint
