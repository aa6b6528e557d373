// Redis's request framing (RESP2), read just enough to see each command and each SET ... NX go by:
// the fault proxy (service/tcp_proxy.h) makes each command a point `net:SVC:NAME` (its first word,
// upper-cased) and counts the SET ... NX for `net:SVC:set_nx` on a redis service
// (docs/services.md, "Faults between the job and its services"). A client sends each command either
// as an array of bulk strings (`*N\r\n`, then N times `$LEN\r\n`, LEN bytes, `\r\n`), as every
// client library does, or inline: one line of words split as redis-cli splits them (blanks,
// "double" and 'single' quotes), ended by `\n`. The counted commands are `SET key value ...` with
// an `NX` among its options (any case) and `SETNX key value`: both set the key only if it is
// absent, and a lost answer leaves the client not knowing whether it did.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "service/client_framing.h"

namespace killpoint {

class RespCommandParser : public ClientFraming {
 public:
  // Feeds the next bytes the client sent; returns each command that ends inside them (a SET ...
  // NX or SETNX counted; an empty one is none). A malformed header (no digits, a negative or too
  // long bulk, a missing '$' or CRLF), unbalanced quotes or an inline line past 64 KiB, which
  // the server answers by closing the connection, stop the count (broken()): the proxy then
  // forwards without counting.
  std::vector<ClientCommand> Read(std::string_view bytes) override;
  bool broken() const override { return broken_; }

 private:
  enum class State : uint8_t {
    kStart,     // between commands
    kCount,     // the digits after '*'
    kDollar,    // a bulk string's '$'
    kLength,    // the digits after it
    kNumberLf,  // the '\n' after a number's '\r'
    kData,      // a bulk string's bytes
    kDataCr,    // the "\r\n" after them
    kDataLf,
    kInline,  // an inline command's line
  };
  enum class Quote : uint8_t { kNone, kDouble, kSingle };

  void Byte(char c, size_t end, std::vector<ClientCommand>& found);
  void Inline(char c, size_t end, std::vector<ClientCommand>& found);
  void Keep(std::string_view bytes);  // the current argument's next bytes
  void EndOfArgument();
  void EndOfCommand(size_t end, std::vector<ClientCommand>& found);
  void EndOfNumber(size_t end, std::vector<ClientCommand>& found);

  State state_ = State::kStart;
  bool count_ = false;  // the number being read is the array's count (else a bulk's length)
  int64_t number_ = 0;
  int digits_ = 0;
  bool negative_ = false;
  int64_t args_left_ = 0;  // bulk strings of the array still to come
  int64_t remaining_ = 0;  // bytes of the current bulk string still to come
  std::string arg_;        // the current argument, while short
  bool arg_long_ = false;  // longer than kept
  int64_t argc_ = 0;       // arguments of the current command so far
  std::string name_;       // its first, upper-cased, if short
  bool nx_ = false;        // an NX option after SET's key and value
  Quote quote_ = Quote::kNone;
  bool in_word_ = false, escape_ = false, after_quote_ = false;
  size_t line_ = 0;  // bytes of the current inline line
  bool broken_ = false;
};

}  // namespace killpoint
