#include "publish/state_file.h"

#include <nlohmann/json.hpp>

#include "common/biz_date.h"
#include "publish/posix_file.h"

namespace killpoint::publish {
namespace {

constexpr int kVersion = 1;

Status ShapeError(std::string reason) { return Status::UnreadableState(std::move(reason)); }

Result<PublishState> ParseDates(const nlohmann::json& dates) {
  if (!dates.is_object()) return ShapeError("\"dates\" is not an object");
  PublishState state;
  for (const auto& [date, value] : dates.items()) {
    if (!jobs::ParseBizDate(date)) return ShapeError("dates has a bad date key \"" + date + "\"");
    std::optional<DateState> parsed;
    if (value.is_string()) parsed = ParseDateState(value.get<std::string>());
    if (!parsed) {
      return ShapeError("dates.\"" + date + "\" is " + value.dump() +
                        ", want \"pending\", \"done\" or \"alerted\"");
    }
    state.dates[date] = *parsed;
  }
  return state;
}

}  // namespace

const char* ToString(DateState state) {
  switch (state) {
    case DateState::kPending:
      return "pending";
    case DateState::kDone:
      return "done";
    case DateState::kAlerted:
      return "alerted";
  }
  return "?";
}

std::optional<DateState> ParseDateState(const std::string& text) {
  for (DateState state : {DateState::kPending, DateState::kDone, DateState::kAlerted}) {
    if (text == ToString(state)) return state;
  }
  return std::nullopt;
}

std::optional<DateState> PublishState::Get(const std::string& biz_date) const {
  auto it = dates.find(biz_date);
  if (it == dates.end()) return std::nullopt;
  return it->second;
}

Result<PublishState> ParseState(const std::string& text) {
  if (text.empty()) return ShapeError("the file is empty");
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    return ShapeError(std::string("not JSON: ") + e.what());
  }
  if (!json.is_object()) return ShapeError("the top level is not a JSON object");
  auto version = json.find("version");
  if (version == json.end() || !version->is_number_integer() || *version != kVersion) {
    return ShapeError("\"version\" is missing or not 1");
  }
  auto dates = json.find("dates");
  if (dates == json.end()) return ShapeError("\"dates\" is missing");
  return ParseDates(*dates);
}

std::string SerializeState(const PublishState& state) {
  nlohmann::ordered_json json;
  json["version"] = kVersion;
  json["dates"] = nlohmann::ordered_json::object();
  for (const auto& [date, date_state] : state.dates) json["dates"][date] = ToString(date_state);
  return json.dump(2) + "\n";
}

Result<PublishState> LoadState(const std::string& path) {
  Result<std::optional<std::string>> text = ReadFileIfExists(path);
  std::string reason;
  if (!text.ok()) {
    reason = text.status().message();
  } else if (!text.value()) {
    return PublishState{};
  } else {
    Result<PublishState> state = ParseState(*text.value());
    if (state.ok()) return state;
    reason = state.status().message();
  }
  return Status::UnreadableState("state file " + path + " is unreadable: " + reason);
}

}  // namespace killpoint::publish
