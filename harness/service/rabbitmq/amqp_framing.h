// AMQP 0-9-1's client framing (RabbitMQ's), read just enough to see a job's publishes and acks
// go by: the fault proxy (service/tcp_proxy.h) makes each a point `net:SVC:basic.publish`,
// `net:SVC:basic.ack`... (docs/services.md, "Command points"). The client opens with the
// protocol header "AMQP\0\0\x09\x01"; then every frame is a type octet, a 2-octet channel, a
// 4-octet size (big-endian), the payload and the frame-end octet 0xCE. A method frame (type 1)
// starts with its class and method ids. A basic.publish is its method frame, then a content
// header frame (type 2, with the body's size) and body frames (type 3) until that size: the
// command ends with the last of them. The commands read: basic.publish, basic.ack, basic.nack,
// basic.reject (never answered by the server; a publish is, once confirm.select was sent on its
// channel), basic.get and tx.commit (answered). Heartbeats and every other method go by
// unnamed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "service/client_framing.h"

namespace killpoint {

class AmqpClientParser : public ClientFraming {
 public:
  // Feeds the next bytes the client sent; returns each command that ends inside them. A protocol
  // header other than AMQP 0-9-1's, a frame past 1 GiB or without its frame-end octet, a
  // content header too short, or a method on a publish's channel before its content ended stop
  // the reading (broken()): the proxy then forwards without counting.
  std::vector<ClientCommand> Read(std::string_view bytes) override;
  bool broken() const override { return broken_; }

 private:
  void EndOfFrame(size_t end, std::vector<ClientCommand>& commands);
  void Method(uint16_t class_id, uint16_t method_id, size_t end,
              std::vector<ClientCommand>& commands);

  std::string header_;      // the protocol header, then the current frame's 7-octet header
  bool opened_ = false;     // the protocol header was read
  uint8_t type_ = 0;        // of the current frame
  uint16_t channel_ = 0;    // of the current frame
  uint32_t remaining_ = 0;  // payload octets of the current frame still to come
  uint32_t payload_size_ = 0;
  std::string payload_;     // the start of the current frame's payload
  bool frame_end_ = false;  // the payload was read: the frame-end octet is next
  // The publish whose content is being read: its channel, and the body octets still to come
  // (before its header frame: none known yet).
  bool publishing_ = false;
  bool content_header_seen_ = false;
  uint16_t publish_channel_ = 0;
  uint64_t body_left_ = 0;
  std::set<uint16_t> confirming_;  // channels in confirm mode
  bool broken_ = false;
};

}  // namespace killpoint
