// What the fault proxy (service/tcp_proxy.h) reads of a client's bytes (docs/services.md, "Faults
// between the job and its services" and "Command points"): one parser per connection, fed the
// bytes in the order they come, which returns each command that ends in them, named by its verb
// ("INSERT", "DEL", "basic.publish"), and whether it is the moment the framing counts for the
// network faults (a COMMIT, a SET ... NX). Four framings: PostgreSQL's
// (service/postgres/pg_framing.h), MySQL's client protocol (service/mariadb/mysql_framing.h),
// Redis's RESP2 (service/redis/redis_framing.h) and AMQP 0-9-1 (service/rabbitmq/amqp_framing.h).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "scenario/service_kind.h"

namespace killpoint {

// One command of a client's, as its framing reads it.
struct ClientCommand {
  size_t end = 0;        // one past its last byte, in the bytes fed
  std::string verb;      // CommandVerb's spelling: "INSERT", "SET", "basic.publish"
  bool counted = false;  // the moment its protocol counts for the network faults (CountedMoment)
  bool answered = true;  // the server answers it (an AMQP basic.ack: never)
  bool operator==(const ClientCommand&) const = default;
};

class ClientFraming {
 public:
  virtual ~ClientFraming() = default;
  // Feeds the next bytes the client sent; returns each command that ends inside them, in order.
  // After bytes it cannot read (broken()), it reads nothing more: the proxy then forwards
  // without counting.
  virtual std::vector<ClientCommand> Read(std::string_view bytes) = 0;
  virtual bool broken() const = 0;
  // Read, keeping the ends of the counted commands only.
  std::vector<size_t> Feed(std::string_view bytes);
};

// A verb as a point's name may carry it: `word` when it is a letter followed by at most 31
// letters, digits, '_' or '.', upper-cased unless `keep_case`; "OTHER" for anything else (an
// empty, long or odd word never makes a point name of its own).
std::string CommandVerb(std::string_view word, bool keep_case = false);
// The first word of an SQL text, past blanks and comments ("-- ...", "/* ... */"), as CommandVerb
// spells it.
std::string SqlVerb(std::string_view sql);

// A fresh parser of `protocol` for one connection (a service kind's protocol is its line of
// scenario/service_kind.h; the moment its framing counts is CountedMoment's).
std::unique_ptr<ClientFraming> MakeClientFraming(WireProtocol protocol);

}  // namespace killpoint
