// Errors as values inside kp-publish. Only publish.cc turns a Status into a message on stderr
// and an exit code (see ExitCodeFor there).
#ifndef KILLPOINT_JOBS_PUBLISH_STATUS_H_
#define KILLPOINT_JOBS_PUBLISH_STATUS_H_

#include <string>
#include <utility>
#include <variant>

namespace killpoint::publish {

enum class StatusCode {
  kOk,
  kUsage,            // Bad command line or missing environment: exit 2.
  kRetryable,        // I/O error or downstream failure; a later attempt may succeed: exit 1.
  kUnreadableState,  // The state file cannot be used; the job cannot start: exit 3.
};

class Status {
 public:
  static Status Ok() { return Status(StatusCode::kOk, ""); }
  static Status Usage(std::string message) { return {StatusCode::kUsage, std::move(message)}; }
  static Status Retryable(std::string message) {
    return {StatusCode::kRetryable, std::move(message)};
  }
  static Status UnreadableState(std::string message) {
    return {StatusCode::kUnreadableState, std::move(message)};
  }

  bool ok() const { return code_ == StatusCode::kOk; }
  StatusCode code() const { return code_; }
  const std::string& message() const { return message_; }

 private:
  Status(StatusCode code, std::string message) : code_(code), message_(std::move(message)) {}

  StatusCode code_;
  std::string message_;
};

// A value or the Status saying why there is none. value() requires ok().
template <typename T>
class Result {
 public:
  Result(T value) : data_(std::move(value)) {}         // NOLINT: implicit on purpose.
  Result(Status status) : data_(std::move(status)) {}  // NOLINT: status must not be ok.

  bool ok() const { return std::holds_alternative<T>(data_); }
  Status status() const { return ok() ? Status::Ok() : std::get<Status>(data_); }
  const T& value() const { return std::get<T>(data_); }
  T& value() { return std::get<T>(data_); }

 private:
  std::variant<T, Status> data_;
};

}  // namespace killpoint::publish

#endif  // KILLPOINT_JOBS_PUBLISH_STATUS_H_
