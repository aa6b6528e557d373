#include "history/event_data.h"

#include <cstdint>

namespace killpoint {
namespace {

const nlohmann::json* Find(const Event& e, const char* key) {
  if (!e.data.is_object()) return nullptr;
  auto it = e.data.find(key);
  return it == e.data.end() ? nullptr : &*it;
}

std::optional<int64_t> OptionalInt(const Event& e, const char* key) {
  const nlohmann::json* v = Find(e, key);
  if (!v || !v->is_number_integer()) return std::nullopt;
  if (v->is_number_unsigned() && v->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
    return std::nullopt;
  return v->get<int64_t>();
}

}  // namespace

std::string TextField(const Event& e, const char* key, const std::string& otherwise) {
  const nlohmann::json* v = Find(e, key);
  return v && v->is_string() ? v->get<std::string>() : otherwise;
}

int64_t IntField(const Event& e, const char* key, int64_t otherwise) {
  return OptionalInt(e, key).value_or(otherwise);
}

bool FlagField(const Event& e, const char* key, bool otherwise) {
  const nlohmann::json* v = Find(e, key);
  return v && v->is_boolean() ? v->get<bool>() : otherwise;
}

ExitData ExitOf(const Event& e) {
  ExitData d;
  d.code = IntField(e, "code", -1);
  // Any "signal" field means a signal ended it, as the readers have always taken it.
  if (Find(e, "signal")) d.signal = IntField(e, "signal", 0);
  d.stderr_tail = TextField(e, "stderr");
  d.killed_by_harness = FlagField(e, "killed_by_harness");
  return d;
}

KillData KillOf(const Event& e) {
  KillData d;
  d.point = TextField(e, "point");
  d.hit = IntField(e, "hit", 0);
  d.when = TextField(e, "when", "before");
  if (const nlohmann::json* m = Find(e, "model"))
    d.model = m->is_string() ? ModelNamed(m->get<std::string>()) : std::nullopt;
  d.unseen = TextField(e, "unseen");
  d.bytes = OptionalInt(e, "bytes");
  d.offset = OptionalInt(e, "offset");
  d.kept = OptionalInt(e, "kept");
  d.planned = TextField(e, "planned");
  d.uncut = TextField(e, "uncut");
  return d;
}

FailpointData FailpointOf(const Event& e) {
  return {TextField(e, "point"), IntField(e, "hit", 0), IntField(e, "pid", 0),
          OptionalInt(e, "bytes"), TextField(e, "unseen")};
}

PublishData PublishOf(const Event& e) {
  PublishData d;
  d.key = TextField(e, "key");
  d.biz_date = TextField(e, "biz_date");
  d.committed = FlagField(e, "committed");
  d.deduplicated = FlagField(e, "deduplicated");
  d.delivery_id = IntField(e, "delivery_id", 0);
  d.idempotency_key = TextField(e, "idempotency_key");
  d.fault = TextField(e, "fault");
  if (Find(e, "burst")) d.burst = IntField(e, "burst", 0);
  return d;
}

RetryWaitData RetryWaitOf(const Event& e) {
  return {IntField(e, "delay_ms", 0), IntField(e, "next_attempt", 0),
          TextField(e, "reason", "backoff")};
}

BreakerData BreakerOf(const Event& e) { return {TextField(e, "from"), TextField(e, "to")}; }

JobRetryData JobRetryOf(const Event& e) {
  return {TextField(e, "key"),           IntField(e, "attempt", 0),
          IntField(e, "backoff_ms", -1), IntField(e, "delay_ms", -1),
          IntField(e, "at_ms", 0),       TextField(e, "breaker", "closed")};
}

CrashCheckData CrashCheckOf(const Event& e) {
  CrashCheckData d;
  d.point = TextField(e, "point", "?");
  d.hit = IntField(e, "hit", 1);
  d.model = ModelNamed(TextField(e, "model"));
  if (const nlohmann::json* v = Find(e, "verdicts"); v && v->is_array()) d.verdicts = *v;
  return d;
}

}  // namespace killpoint
