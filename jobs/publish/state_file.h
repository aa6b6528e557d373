// The publish job's state file: which business dates are pending, done or alerted.
//
//   {"version":1,"dates":{"2026-11-05":"done","2026-11-06":"pending"}}
//
// A missing file is an empty state. Anything else that is not exactly this shape makes the
// job unable to start (StatusCode::kUnreadableState): the state_readable invariant.
#ifndef KILLPOINT_JOBS_PUBLISH_STATE_FILE_H_
#define KILLPOINT_JOBS_PUBLISH_STATE_FILE_H_

#include <map>
#include <optional>
#include <string>

#include "publish/status.h"

namespace killpoint::publish {

enum class DateState { kPending, kDone, kAlerted };

// "pending", "done", "alerted".
const char* ToString(DateState state);
std::optional<DateState> ParseDateState(const std::string& text);

struct PublishState {
  std::map<std::string, DateState> dates;  // Keyed by business date YYYY-MM-DD.

  std::optional<DateState> Get(const std::string& biz_date) const;
  bool operator==(const PublishState& other) const = default;
};

// Parses the file's text. On failure the status message is the reason alone.
Result<PublishState> ParseState(const std::string& text);

// The file's text: pretty-printed JSON, "version" first, dates sorted, ending in a newline.
std::string SerializeState(const PublishState& state);

// Reads and parses path; a missing file gives an empty state. On failure the message is
// "state file PATH is unreadable: REASON".
Result<PublishState> LoadState(const std::string& path);

}  // namespace killpoint::publish

#endif  // KILLPOINT_JOBS_PUBLISH_STATE_FILE_H_
