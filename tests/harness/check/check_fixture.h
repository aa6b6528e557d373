// Hand-made sandboxes and histories for checker tests.
#pragma once

#include <SQLiteCpp/SQLiteCpp.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "check/checker.h"
#include "history/event_registry.h"
#include "history/history.h"

namespace killpoint {

class CheckFixture {
 public:
  CheckFixture() {
    static int n = 0;
    dir_ = std::filesystem::temp_directory_path() /
           ("kp-check-" + std::to_string(::getpid()) + "-" + std::to_string(n++));
    std::filesystem::create_directories(dir_);
    scenario_.name = "test";
    scenario_.dates = {"2026-11-01", "2026-11-02"};
    plan_.runs = {{"2026-11-01", 1, {}}, {"2026-11-02", 1, {}}};
  }
  ~CheckFixture() { std::filesystem::remove_all(dir_); }

  const std::filesystem::path& dir() const { return dir_; }
  History& history() { return history_; }
  Plan& plan() { return plan_; }
  Scenario& scenario() { return scenario_; }

  // The checker's verdict; a test that expects one fails on a checker's Error.
  Verdict Check(const std::string& invariant) {
    Result<Verdict> r = TryCheck(invariant);
    if (!r) {
      ADD_FAILURE() << invariant << " returned an error: " << r.error().message;
      return Verdict::Violated(invariant, "error: " + r.error().message);
    }
    return r.value();
  }

  Result<Verdict> TryCheck(const std::string& invariant) {
    events_ = history_.Events();
    CheckInput in{scenario_, plan_, events_, dir_};
    return BuiltinCheckers().at(invariant)(in);
  }

  // settle.db with the reference job's schema; orders of 100 and 250 cents on 2026-11-01.
  SQLite::Database SettleDb() {
    SQLite::Database db((dir_ / "settle.db").string(),
                        SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    db.exec(
        "CREATE TABLE IF NOT EXISTS orders(order_id INTEGER PRIMARY KEY, biz_date TEXT NOT NULL, "
        "amount_cents INTEGER NOT NULL)");
    db.exec(
        "CREATE TABLE IF NOT EXISTS daily_settlement(settle_key TEXT PRIMARY KEY, biz_date TEXT "
        "NOT NULL, amount_cents INTEGER NOT NULL, order_count INTEGER NOT NULL, computed_at TEXT "
        "NOT NULL)");
    db.exec(
        "INSERT OR IGNORE INTO orders VALUES (1, '2026-11-01', 100), (2, '2026-11-01', 250), (3, "
        "'2026-11-02', 40)");
    return db;
  }

  void WriteFile(const std::string& name, const std::string& content) {
    std::ofstream(dir_ / name, std::ios::binary) << content;
  }

  // An attempt of `date` that exited with `code`.
  void Exit(const std::string& date, int code, const std::string& stderr_text = "") {
    history_.SetContext({date, 1, ++attempts_});
    history_.Add(event::Exit::kType, {{"code", code}, {"stderr", stderr_text}});
  }

  void Publish(const std::string& date, bool committed, int delivery_id) {
    history_.Add(event::Publish::kType, {{"key", "publish-" + date},
                                         {"biz_date", date},
                                         {"committed", committed},
                                         {"delivery_id", delivery_id}});
  }

 private:
  std::filesystem::path dir_;
  Scenario scenario_;
  Plan plan_;
  History history_;
  std::vector<Event> events_;
  int attempts_ = 0;
};

}  // namespace killpoint
