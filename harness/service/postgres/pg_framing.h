// PostgreSQL's frontend framing (protocol 3), read just enough to see each command and each COMMIT
// go by: the fault proxy (service/tcp_proxy.h) makes each a point `net:SVC:VERB` and counts the
// COMMITs for `net:SVC:commit` (docs/services.md, "Faults between the job and its services"). A
// connection opens with untyped messages (an int32 length, then an int32 code: SSLRequest and
// GSSENCRequest, answered by one byte, are followed by another untyped one, the StartupMessage);
// then every message is a type byte and an int32 length that counts itself. A COMMIT is a simple
// query ('Q') whose text is COMMIT or END (with WORK or TRANSACTION, any case, a trailing ';'), or,
// in the extended protocol, the Sync
// ('S') that follows a Parse ('P') of such a text. A command is a simple query, named by its
// text's first word, or the extended protocol's round trip up to a Sync, named by its first
// Parse's (EXECUTE when it parsed nothing: a prepared statement run again).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "service/client_framing.h"

namespace killpoint {

// `sql` without its leading and trailing blanks, NULs and ';', upper-cased, its words one space
// apart: what IsPgCommitText and IsMysqlCommitText compare.
std::string SqlWords(std::string_view sql);

// Whether `sql` is a COMMIT by itself (COMMIT, END, [WORK|TRANSACTION], any case, ';').
bool IsPgCommitText(std::string_view sql);

class PgFrontendParser : public ClientFraming {
 public:
  // Feeds the next bytes the client sent; returns each command that ends inside them (a COMMIT
  // counted). Bytes after a malformed length are not read any more (broken()): the proxy then
  // forwards without counting.
  std::vector<ClientCommand> Read(std::string_view bytes) override;
  bool broken() const override { return broken_; }

 private:
  void EndOfMessage(size_t end, std::vector<ClientCommand>& commands);

  bool untyped_ = true;     // before the StartupMessage (or after an SSLRequest)
  std::string header_;      // the type byte and length read so far
  uint32_t remaining_ = 0;  // body bytes of the current message still to come
  char type_ = 0;           // of the current message; 0 for an untyped one
  std::string body_;        // the start of the current Q or P body
  bool keep_body_ = false;
  bool kept_whole_ = false;     // body_ is all of it
  bool commit_parsed_ = false;  // a Parse of COMMIT waits for its Sync
  bool batch_ = false;          // an extended-protocol message since the last Sync
  std::string batch_verb_;      // the verb of its first Parse
  bool broken_ = false;
};

}  // namespace killpoint
