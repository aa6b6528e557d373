#include "counterexample/final_state.h"

#include "check/checker.h"
#include "history/event_registry.h"
#include "util/atomic_file.h"
#include "util/path_probe.h"

namespace killpoint {
namespace {

constexpr int kMaxRows = 200;
constexpr size_t kMaxStateBytes = 64 * 1024;

nlohmann::json ColumnValue(const SQLite::Column& c) {
  if (c.isNull()) return nullptr;
  if (c.isInteger()) return c.getInt64();
  if (c.isFloat()) return c.getDouble();
  return c.getString();
}

nlohmann::json Database(const std::filesystem::path& file) {
  nlohmann::json out = {{"file", file.filename().string()}};
  try {
    auto db = OpenJobDatabase(file);
    if (!db) {
      out["missing"] = true;
      return out;
    }
    nlohmann::json tables = nlohmann::json::object();
    SQLite::Statement names(*db,
                            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE "
                            "'sqlite_%' ORDER BY name");
    while (names.executeStep()) {
      std::string table = names.getColumn(0).getString();
      std::string quoted = "\"";
      for (char ch : table) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
      quoted += "\"";
      SQLite::Statement rows(
          *db, "SELECT * FROM " + quoted + " ORDER BY rowid LIMIT " + std::to_string(kMaxRows + 1));
      nlohmann::json list = nlohmann::json::array();
      while (rows.executeStep()) {
        if (static_cast<int>(list.size()) == kMaxRows) {
          out["truncated"] = true;
          break;
        }
        nlohmann::json row = nlohmann::json::object();
        for (int i = 0; i < rows.getColumnCount(); ++i)
          row[rows.getColumnName(i)] = ColumnValue(rows.getColumn(i));
        list.push_back(std::move(row));
      }
      tables[table] = std::move(list);
    }
    out["tables"] = std::move(tables);
  } catch (const std::exception& e) {
    out["error"] = e.what();
  }
  return out;
}

nlohmann::json StateFile(const std::filesystem::path& file) {
  nlohmann::json out = {{"file", file.filename().string()}};
  Result<bool> present = Present(file);
  if (!present) {
    out["error"] = present.error().message;
    return out;
  }
  if (!present.value()) {
    out["missing"] = true;
    return out;
  }
  auto content = ReadFile(file);
  if (!content) {
    out["error"] = content.error().message;
    return out;
  }
  std::string text = content.value();
  if (text.size() > kMaxStateBytes) {
    text.resize(kMaxStateBytes);
    out["truncated"] = true;
  }
  out["content"] = text;
  return out;
}

// Whether a built-in invariant of the scenario reads check.db.
bool ReadsDatabase(const Scenario& s) {
  for (const auto* list : {&s.must_hold, &s.expected_violations}) {
    for (const auto& name : *list) {
      if (name == "one_row_per_date" || name == "amount_matches_source" ||
          name == "commits_survive")
        return true;
    }
  }
  return false;
}

}  // namespace

nlohmann::json CaptureFinalState(const Scenario& s, const std::filesystem::path& workdir,
                                 const std::vector<Event>& events) {
  nlohmann::json deliveries = nlohmann::json::object(), alerts = nlohmann::json::object();
  for (const Event& e : events) {
    if (auto p = As<event::Publish>(e); p && p->committed) {
      deliveries[p->key] = deliveries.value(p->key, 0) + 1;
    } else if (auto a = As<event::Alert>(e)) {
      alerts[a->key] = alerts.value(a->key, 0) + 1;
    }
  }
  nlohmann::json out = {{"deliveries", deliveries}, {"alerts", alerts}};
  std::error_code ec;
  if (ReadsDatabase(s) || std::filesystem::exists(workdir / s.check.db, ec))
    out["database"] = Database(workdir / s.check.db);
  if (!s.check.state_file.empty()) out["state_file"] = StateFile(workdir / s.check.state_file);
  return out;
}

}  // namespace killpoint
