#include "publish/publish_flow.h"

#include <killpoint/failpoint.h>

#include "publish/durable_save.h"

namespace killpoint::publish {
namespace {

constexpr const char* kNoQueryReason =
    "found pending intent and cannot ask the downstream; a human must check";

}  // namespace

std::string IdempotencyKey(const std::string& biz_date) { return "publish-" + biz_date; }

PublishJob::PublishJob(PublishOptions options, std::ostream* out)
    : options_(std::move(options)),
      key_(IdempotencyKey(options_.biz_date)),
      downstream_(options_.downstream, options_.timeout),
      out_(out) {}

Status PublishJob::Run() {
  Result<PublishState> loaded = LoadState(options_.state_path);
  if (!loaded.ok()) return loaded.status();
  state_ = std::move(loaded.value());
  std::optional<DateState> current = state_.Get(options_.biz_date);
  if (current == DateState::kDone || current == DateState::kAlerted) {
    *out_ << "already done: " << options_.biz_date << " is " << ToString(*current) << "\n";
    return Status::Ok();
  }
  switch (options_.order) {
    case Order::kExecuteThenMark:
      return ExecuteThenMark();
    case Order::kMarkThenExecute:
      return MarkThenExecute();
    case Order::kIntentDone:
      return current == DateState::kPending ? ResolvePendingIntent() : IntentDone();
  }
  return Status::Usage("unknown order");
}

Status PublishJob::ExecuteThenMark() {
  if (Status s = PublishOnce(); !s.ok()) return s;
  return Mark(DateState::kDone);
}

Status PublishJob::MarkThenExecute() {
  if (Status s = Mark(DateState::kDone); !s.ok()) return s;
  return PublishOnce();
}

Status PublishJob::IntentDone() {
  if (Status s = Mark(DateState::kPending); !s.ok()) return s;
  killpoint::failpoint("after_intent");
  return ExecuteThenMark();
}

// A previous attempt recorded its intent and died before recording done: it may or may not
// have published. Ask the downstream, or page a human when the job may not ask.
Status PublishJob::ResolvePendingIntent() {
  if (options_.no_query) {
    if (Status s = downstream_.Alert(key_, options_.biz_date, kNoQueryReason); !s.ok()) return s;
    if (Status s = Mark(DateState::kAlerted); !s.ok()) return s;
    *out_ << "alerted " << options_.biz_date << " key=" << key_ << ": " << kNoQueryReason << "\n";
    return Status::Ok();
  }
  Result<int64_t> count = downstream_.CountDeliveries(key_);
  if (!count.ok()) return count.status();
  if (count.value() == 0) return ExecuteThenMark();
  if (Status s = Mark(DateState::kDone); !s.ok()) return s;
  *out_ << "reconciled " << options_.biz_date << " key=" << key_ << ": the downstream has "
        << count.value() << " deliveries\n";
  return Status::Ok();
}

Status PublishJob::PublishOnce() {
  killpoint::failpoint("before_publish");
  Result<Delivery> delivery = downstream_.Publish(key_, options_.biz_date);
  if (!delivery.ok()) return delivery.status();
  killpoint::failpoint("after_publish");
  *out_ << "published " << options_.biz_date << " key=" << key_
        << " delivery_id=" << delivery.value().delivery_id
        << " deduplicated=" << (delivery.value().deduplicated ? "true" : "false") << "\n";
  return Status::Ok();
}

Status PublishJob::Mark(DateState state) {
  state_.dates[options_.biz_date] = state;
  return SaveFile(options_.state_path, SerializeState(state_), options_.save);
}

}  // namespace killpoint::publish
