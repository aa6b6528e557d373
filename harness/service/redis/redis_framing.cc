#include "service/redis/redis_framing.h"

#include <cctype>

namespace killpoint {
namespace {

constexpr int64_t kRespMaxBulk = 512ll << 20;  // the server's proto-max-bulk-len default
constexpr int64_t kRespMaxArgs = 0x7fffffff;   // the server's own limit
constexpr int kRespMaxDigits = 18;             // no valid number has more; no overflow
constexpr size_t kRespMaxInline = 64 * 1024;   // the server's PROTO_INLINE_MAX_SIZE
constexpr size_t kRespKeptArg = 32;            // a command's name fits (CommandVerb's limit)

std::string RespUpper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = char(std::toupper(uint8_t(c)));
  return out;
}

// The blanks between an inline command's words (a word ends at these; more are skipped before
// one, as the server's sdssplitargs does).
bool RespBlank(char c) {
  return c == ' ' || c == '\r' || c == '\t' || c == '\0' || c == '\v' || c == '\f';
}

}  // namespace

void RespCommandParser::Keep(std::string_view bytes) {
  if (arg_long_) return;
  if (arg_.size() + bytes.size() > kRespKeptArg) {
    arg_long_ = true;
    arg_.clear();
    return;
  }
  arg_.append(bytes);
}

void RespCommandParser::EndOfArgument() {
  std::string word = arg_long_ ? "" : RespUpper(arg_);
  if (argc_ == 0) name_ = word;
  // SET key value [NX|XX] [GET] [EX s|PX ms|EXAT|PXAT|KEEPTTL]: an option's own value is a
  // number, never NX.
  if (argc_ >= 3 && name_ == "SET" && word == "NX") nx_ = true;
  ++argc_;
  arg_.clear();
  arg_long_ = false;
}

void RespCommandParser::EndOfCommand(size_t end, std::vector<ClientCommand>& found) {
  bool set_nx = (name_ == "SET" && nx_) || (name_ == "SETNX" && argc_ == 3);
  if (argc_ > 0) found.push_back({end, CommandVerb(name_), set_nx, true});
  argc_ = 0;
  name_.clear();
  nx_ = false;
  state_ = State::kStart;
}

void RespCommandParser::EndOfNumber(size_t end, std::vector<ClientCommand>& found) {
  if (count_) {
    if (number_ > kRespMaxArgs) return void(broken_ = true);
    if (negative_ || number_ == 0) return EndOfCommand(end, found);  // an empty command
    args_left_ = number_;
    state_ = State::kDollar;
    return;
  }
  if (negative_ || number_ > kRespMaxBulk) return void(broken_ = true);
  remaining_ = number_;
  state_ = remaining_ == 0 ? State::kDataCr : State::kData;
}

void RespCommandParser::Inline(char c, size_t end, std::vector<ClientCommand>& found) {
  if (++line_ > kRespMaxInline) return void(broken_ = true);
  if (c == '\n') {
    if (quote_ != Quote::kNone) return void(broken_ = true);  // unbalanced quotes
    if (in_word_) EndOfArgument();
    in_word_ = after_quote_ = false;
    return EndOfCommand(end, found);
  }
  if (after_quote_) {  // a closing quote must be followed by a blank
    if (!RespBlank(c)) return void(broken_ = true);
    after_quote_ = false;
  }
  if (quote_ == Quote::kDouble) {
    if (escape_) {
      escape_ = false;
      return Keep(std::string_view(&c, 1));
    }
    if (c == '\\') return void(escape_ = true);
    if (c != '"') return Keep(std::string_view(&c, 1));
    quote_ = Quote::kNone;
    after_quote_ = true;
    in_word_ = false;
    return EndOfArgument();
  }
  if (quote_ == Quote::kSingle) {
    if (escape_) {
      escape_ = false;
      if (c != '\'') Keep("\\");
      return Keep(std::string_view(&c, 1));
    }
    if (c == '\\') return void(escape_ = true);
    if (c != '\'') return Keep(std::string_view(&c, 1));
    quote_ = Quote::kNone;
    after_quote_ = true;
    in_word_ = false;
    return EndOfArgument();
  }
  if (RespBlank(c)) {
    if (in_word_) EndOfArgument();
    in_word_ = false;
    return;
  }
  in_word_ = true;
  if (c == '"') return void(quote_ = Quote::kDouble);
  if (c == '\'') return void(quote_ = Quote::kSingle);
  Keep(std::string_view(&c, 1));
}

void RespCommandParser::Byte(char c, size_t end, std::vector<ClientCommand>& found) {
  switch (state_) {
    case State::kStart:
      if (c != '*') {
        state_ = State::kInline;
        line_ = 0;
        return Inline(c, end, found);
      }
      count_ = true;
      state_ = State::kCount;
      number_ = digits_ = 0;
      negative_ = false;
      return;
    case State::kDollar:
      if (c != '$') return void(broken_ = true);
      count_ = false;
      state_ = State::kLength;
      number_ = digits_ = 0;
      negative_ = false;
      return;
    case State::kCount:
    case State::kLength:
      if (c == '-' && digits_ == 0 && !negative_) return void(negative_ = true);
      if (c == '\r' && digits_ > 0) return void(state_ = State::kNumberLf);
      if (c < '0' || c > '9' || ++digits_ > kRespMaxDigits) return void(broken_ = true);
      number_ = number_ * 10 + (c - '0');
      return;
    case State::kNumberLf:
      if (c != '\n') return void(broken_ = true);
      return EndOfNumber(end, found);
    case State::kDataCr:
      if (c != '\r') return void(broken_ = true);
      state_ = State::kDataLf;
      return;
    case State::kDataLf:
      if (c != '\n') return void(broken_ = true);
      EndOfArgument();
      if (--args_left_ == 0) return EndOfCommand(end, found);
      state_ = State::kDollar;
      return;
    case State::kInline:
      return Inline(c, end, found);
    case State::kData:
      break;  // read by Feed, in bulk
  }
}

std::vector<ClientCommand> RespCommandParser::Read(std::string_view bytes) {
  std::vector<ClientCommand> found;
  size_t i = 0;
  while (i < bytes.size() && !broken_) {
    if (state_ == State::kData) {
      size_t take = size_t(std::min<int64_t>(remaining_, int64_t(bytes.size() - i)));
      Keep(bytes.substr(i, take));
      i += take;
      remaining_ -= int64_t(take);
      if (remaining_ == 0) state_ = State::kDataCr;
      continue;
    }
    char c = bytes[i++];
    Byte(c, i, found);
  }
  return found;
}

}  // namespace killpoint
