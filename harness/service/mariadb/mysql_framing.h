// The MySQL client protocol (MariaDB's too), read just enough to see each command and each COMMIT
// go by: the fault proxy (service/tcp_proxy.h) makes each a point `net:SVC:VERB` and counts the
// COMMITs for `net:SVC:commit` on a mariadb service (docs/services.md, "Faults between the job
// and its services"). Every packet, both ways, is a
// 3-byte little-endian payload length and a 1-byte sequence id, then the payload; a payload of
// 0xFFFFFF bytes goes on in the next packet. The server speaks first (its greeting is packet 0);
// the client's first packet answers it (sequence 1: the handshake response, or an SSLRequest),
// and the rest of the authentication (an auth switch's answer, ...) goes on at 3, 5, ...: only
// a command starts again at 0. So a client packet with sequence id 0 is a command, whatever
// came before, and a COMMIT is one whose payload is COM_QUERY (0x03) and a text that
// IsMysqlCommitText takes. A command is named by its query's first word (COM_QUERY), or PREPARE,
// EXECUTE, USE, PING; those the server does not answer (COM_QUIT...) are none. The first packet's
// capability flags say whether what follows is still this framing: with CLIENT_SSL (TLS) or
// CLIENT_COMPRESS it is not, and the parser stops (broken()).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "service/client_framing.h"

namespace killpoint {

// Whether `sql` is a COMMIT by itself: COMMIT [WORK] [AND [NO] CHAIN] [[NO] RELEASE], any case,
// a trailing ';'.
bool IsMysqlCommitText(std::string_view sql);

class MysqlClientParser : public ClientFraming {
 public:
  // Feeds the next bytes the client sent; returns each command that ends inside them (a COMMIT
  // counted). A first packet that is not sequence 1, or whose flags ask for
  // TLS or compression, or a command packet with no command byte stops the count (broken()):
  // the proxy then forwards without counting.
  std::vector<ClientCommand> Read(std::string_view bytes) override;
  bool broken() const override { return broken_; }

 private:
  void EndOfPacket(size_t end, std::vector<ClientCommand>& commands);

  std::string header_;      // the length and sequence id read so far
  uint32_t remaining_ = 0;  // payload bytes of the current packet still to come
  uint32_t length_ = 0;     // of the current packet's payload
  uint8_t sequence_ = 0;    // of the current packet
  bool first_ = true;       // the current packet is the client's first
  bool continued_ = false;  // the current packet goes on from a full (0xFFFFFF) one
  std::string body_;        // its flags (the first), or the start of a command's payload
  bool keep_body_ = false;
  std::string long_verb_;  // of a command whose payload goes on in further packets
  bool broken_ = false;
};

}  // namespace killpoint
