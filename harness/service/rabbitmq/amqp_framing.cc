#include "service/rabbitmq/amqp_framing.h"

#include <algorithm>

namespace killpoint {
namespace {

constexpr std::string_view kAmqpProtocolHeader("AMQP\0\0\x09\x01", 8);
constexpr size_t kAmqpFrameHeader = 7;
constexpr uint32_t kAmqpMaxFrame = 1u << 30;
constexpr size_t kAmqpKeptPayload = 12;  // class, method; or a content header's body size
constexpr uint8_t kAmqpFrameEnd = 0xCE;
constexpr uint8_t kAmqpMethod = 1, kAmqpContentHeader = 2, kAmqpBody = 3;
constexpr uint16_t kAmqpBasic = 60, kAmqpConfirm = 85, kAmqpTx = 90;

uint32_t BigEndian(std::string_view b, size_t at, size_t octets) {
  uint64_t v = 0;
  for (size_t i = 0; i < octets; ++i) v = (v << 8) | uint8_t(b[at + i]);
  return uint32_t(v);
}

uint64_t BigEndian64(std::string_view b, size_t at) {
  return (uint64_t(BigEndian(b, at, 4)) << 32) | BigEndian(b, at + 4, 4);
}

}  // namespace

void AmqpClientParser::Method(uint16_t class_id, uint16_t method_id, size_t end,
                              std::vector<ClientCommand>& commands) {
  auto command = [&](const char* verb, bool answered) {
    commands.push_back({end, CommandVerb(verb, true), false, answered});
  };
  if (class_id == kAmqpConfirm && method_id == 10) {
    confirming_.insert(channel_);
  } else if (class_id == kAmqpTx && method_id == 20) {
    command("tx.commit", true);
  } else if (class_id != kAmqpBasic) {
    return;
  } else if (method_id == 40) {  // publish: its content follows
    publishing_ = true;
    content_header_seen_ = false;
    publish_channel_ = channel_;
  } else if (method_id == 70) {
    command("basic.get", true);
  } else if (method_id == 80) {
    command("basic.ack", false);
  } else if (method_id == 90) {
    command("basic.reject", false);
  } else if (method_id == 120) {
    command("basic.nack", false);
  }
}

void AmqpClientParser::EndOfFrame(size_t end, std::vector<ClientCommand>& commands) {
  auto published = [&] {
    commands.push_back({end, "basic.publish", false, confirming_.contains(publish_channel_)});
    publishing_ = false;
  };
  if (type_ == kAmqpMethod && payload_.size() >= 4) {
    if (publishing_ && channel_ == publish_channel_) broken_ = true;  // content never came
    Method(uint16_t(BigEndian(payload_, 0, 2)), uint16_t(BigEndian(payload_, 2, 2)), end, commands);
  } else if (type_ == kAmqpContentHeader && publishing_ && channel_ == publish_channel_) {
    if (payload_.size() < 12) return void(broken_ = true);
    content_header_seen_ = true;
    body_left_ = BigEndian64(payload_, 4);
    if (body_left_ == 0) published();
  } else if (type_ == kAmqpBody && publishing_ && channel_ == publish_channel_ &&
             content_header_seen_) {
    body_left_ -= std::min<uint64_t>(body_left_, payload_size_);
    if (body_left_ == 0) published();
  }
  header_.clear();
  payload_.clear();
}

std::vector<ClientCommand> AmqpClientParser::Read(std::string_view bytes) {
  std::vector<ClientCommand> commands;
  size_t i = 0;
  while (i < bytes.size() && !broken_) {
    if (!opened_) {
      size_t take = std::min(kAmqpProtocolHeader.size() - header_.size(), bytes.size() - i);
      header_.append(bytes.substr(i, take));
      i += take;
      if (!kAmqpProtocolHeader.starts_with(header_)) broken_ = true;
      if (header_.size() == kAmqpProtocolHeader.size()) {
        opened_ = true;
        header_.clear();
      }
      continue;
    }
    if (frame_end_) {
      frame_end_ = false;
      if (uint8_t(bytes[i++]) != kAmqpFrameEnd) {
        broken_ = true;
        break;
      }
      EndOfFrame(i, commands);
      continue;
    }
    if (header_.size() < kAmqpFrameHeader) {
      header_ += bytes[i++];
      if (header_.size() < kAmqpFrameHeader) continue;
      type_ = uint8_t(header_[0]);
      channel_ = uint16_t(BigEndian(header_, 1, 2));
      remaining_ = BigEndian(header_, 3, 4);
      payload_size_ = remaining_;
      if (remaining_ > kAmqpMaxFrame) {
        broken_ = true;
        break;
      }
      frame_end_ = remaining_ == 0;
      continue;
    }
    size_t take = std::min<size_t>(remaining_, bytes.size() - i);
    if (payload_.size() < kAmqpKeptPayload)
      payload_.append(bytes.substr(i, std::min(take, kAmqpKeptPayload - payload_.size())));
    i += take;
    remaining_ -= uint32_t(take);
    frame_end_ = remaining_ == 0;
  }
  return commands;
}

}  // namespace killpoint
