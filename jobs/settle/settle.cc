// kp-settle: reference job that settles one business date into SQLite.
//
//   kp-settle [--db PATH] [--biz-date YYYY-MM-DD] --strategy upsert|increment|timestamp-key|insert
//   kp-settle [--db PATH] --init --dates D1,D2,...
//
// It sums the orders of the date into daily_settlement with one of four write strategies,
// one correct (upsert) and three with the classic rerun bugs. Failpoints: before_write,
// before_commit, after_commit. See docs/reference-jobs.md.
#include <SQLiteCpp/SQLiteCpp.h>
#include <killpoint/failpoint.h>
#include <sqlite3.h>
#include <time.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "common/biz_date.h"

namespace {

using killpoint::jobs::ParseBizDate;

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;

enum class Strategy { kUpsert, kIncrement, kTimestampKey, kInsert };

const std::map<std::string, Strategy> kStrategies = {
    {"upsert", Strategy::kUpsert},
    {"increment", Strategy::kIncrement},
    {"timestamp-key", Strategy::kTimestampKey},
    {"insert", Strategy::kInsert},
};

struct Options {
  std::string db;
  std::string biz_date;
  std::string strategy;
  bool init = false;
  std::vector<std::string> dates;
};

constexpr const char* kSchema = R"sql(
CREATE TABLE IF NOT EXISTS orders(
  order_id INTEGER PRIMARY KEY,
  biz_date TEXT NOT NULL,
  amount_cents INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS daily_settlement(
  settle_key TEXT PRIMARY KEY,
  biz_date TEXT NOT NULL,
  amount_cents INTEGER NOT NULL,
  order_count INTEGER NOT NULL,
  computed_at TEXT NOT NULL);
)sql";

constexpr const char* kInsertSql =
    "INSERT INTO daily_settlement(settle_key, biz_date, amount_cents, order_count, computed_at)"
    " VALUES (?1, ?2, ?3, ?4, ?5)";

std::string EnvOrEmpty(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr ? std::string() : std::string(value);
}

// Deterministic source data: 3 + day % 4 orders per date, ids YYYYMMDDnn.
void InsertOrders(SQLite::Database& db, const std::string& date) {
  auto ymd = *ParseBizDate(date);
  int64_t yyyymmdd = std::stoll(date.substr(0, 4) + date.substr(5, 2) + date.substr(8, 2));
  unsigned count = 3 + static_cast<unsigned>(ymd.day()) % 4;
  SQLite::Statement insert(
      db, "INSERT OR IGNORE INTO orders(order_id, biz_date, amount_cents) VALUES (?1, ?2, ?3)");
  for (unsigned i = 1; i <= count; ++i) {
    insert.bind(1, yyyymmdd * 100 + i);
    insert.bind(2, date);
    insert.bind(3, static_cast<int64_t>(100 + (yyyymmdd % 997 * 37 + i * 1009) % 50000));
    insert.exec();
    insert.reset();
  }
}

int Init(const Options& options) {
  SQLite::Database db(options.db, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
  SQLite::Transaction transaction(db);
  db.exec(kSchema);
  for (const std::string& date : options.dates) InsertOrders(db, date);
  transaction.commit();
  std::cout << "initialized " << options.db << " with orders for " << options.dates.size()
            << " date(s)\n";
  return kExitOk;
}

struct Totals {
  int64_t amount_cents = 0;
  int64_t order_count = 0;
};

Totals ReadTotals(SQLite::Database& db, const std::string& date) {
  SQLite::Statement query(
      db, "SELECT COALESCE(SUM(amount_cents), 0), COUNT(*) FROM orders WHERE biz_date = ?1");
  query.bind(1, date);
  query.executeStep();
  return Totals{query.getColumn(0).getInt64(), query.getColumn(1).getInt64()};
}

// Current UTC time as 2026-11-05T08:26:01.123456789Z.
std::string UtcNowWithNanos() {
  timespec now{};
  clock_gettime(CLOCK_REALTIME, &now);
  tm utc{};
  gmtime_r(&now.tv_sec, &utc);
  char text[64];
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%09ldZ", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, now.tv_nsec);
  return text;
}

std::string WriteSql(Strategy strategy) {
  switch (strategy) {
    case Strategy::kUpsert:
      return std::string(kInsertSql) +
             " ON CONFLICT(settle_key) DO UPDATE SET amount_cents = excluded.amount_cents,"
             " order_count = excluded.order_count, computed_at = excluded.computed_at";
    case Strategy::kIncrement:
      return std::string(kInsertSql) +
             " ON CONFLICT(settle_key) DO UPDATE SET"
             " amount_cents = amount_cents + excluded.amount_cents,"
             " order_count = order_count + excluded.order_count,"
             " computed_at = excluded.computed_at";
    case Strategy::kTimestampKey:
    case Strategy::kInsert:
      break;
  }
  return kInsertSql;
}

int Settle(const Options& options) {
  Strategy strategy = kStrategies.at(options.strategy);
  SQLite::Database db(options.db, SQLite::OPEN_READWRITE);
  Totals totals = ReadTotals(db, options.biz_date);
  std::string now = UtcNowWithNanos();
  std::string key = options.biz_date;
  if (strategy == Strategy::kTimestampKey) key += "@" + now;

  killpoint::failpoint("before_write");
  SQLite::Transaction transaction(db);
  SQLite::Statement write(db, WriteSql(strategy));
  write.bind(1, key);
  write.bind(2, options.biz_date);
  write.bind(3, totals.amount_cents);
  write.bind(4, totals.order_count);
  write.bind(5, now);
  write.exec();
  killpoint::failpoint("before_commit");
  transaction.commit();
  killpoint::failpoint("after_commit");

  std::cout << "settled " << options.biz_date << " strategy=" << options.strategy << " key=" << key
            << " orders=" << totals.order_count << " amount_cents=" << totals.amount_cents << "\n";
  return kExitOk;
}

// Fills the defaults from the job contract and checks what CLI11 cannot.
// Returns an error message, empty when the options are usable.
std::string CompleteOptions(Options& options) {
  if (options.db.empty()) {
    std::string workdir = EnvOrEmpty("KILLPOINT_WORKDIR");
    if (workdir.empty()) return "no database: pass --db or set KILLPOINT_WORKDIR";
    options.db = workdir + "/settle.db";
  }
  if (options.init) {
    for (const std::string& date : options.dates) {
      if (!ParseBizDate(date)) return "bad date in --dates: \"" + date + "\" (want YYYY-MM-DD)";
    }
    return "";
  }
  if (options.biz_date.empty()) options.biz_date = EnvOrEmpty("KILLPOINT_BIZ_DATE");
  if (options.biz_date.empty())
    return "no business date: pass --biz-date or set KILLPOINT_BIZ_DATE";
  if (!ParseBizDate(options.biz_date)) {
    return "bad business date \"" + options.biz_date + "\" (want a real date as YYYY-MM-DD)";
  }
  return "";
}

void DefineCli(CLI::App& app, Options& options) {
  app.add_option("--db", options.db, "SQLite database (default $KILLPOINT_WORKDIR/settle.db)");
  auto* date = app.add_option("--biz-date", options.biz_date,
                              "Business date YYYY-MM-DD (default $KILLPOINT_BIZ_DATE)");
  auto* strategy = app.add_option("--strategy", options.strategy, "How to write the result")
                       ->check(CLI::IsMember(kStrategies));
  auto* init = app.add_flag("--init", options.init, "Create the tables and the source orders");
  auto* dates = app.add_option("--dates", options.dates, "Dates to create orders for (--init)")
                    ->delimiter(',');
  init->needs(dates)->excludes(strategy)->excludes(date);
  dates->needs(init);
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"kp-settle: settle one business date into SQLite (killpoint reference job)"};
  Options options;
  DefineCli(app, options);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? kExitOk : kExitUsage;
  }
  if (!options.init && options.strategy.empty()) {
    std::cerr << "kp-settle: --strategy is required (or --init)\n";
    return kExitUsage;
  }
  if (std::string error = CompleteOptions(options); !error.empty()) {
    std::cerr << "kp-settle: " << error << "\n";
    return kExitUsage;
  }
  try {
    return options.init ? Init(options) : Settle(options);
  } catch (const SQLite::Exception& e) {
    if (e.getExtendedErrorCode() == SQLITE_CONSTRAINT_PRIMARYKEY) {
      std::cerr << "kp-settle: " << options.biz_date << " is already settled and strategy "
                << options.strategy << " cannot rerun: " << e.what() << "\n";
    } else if (e.getErrorCode() == SQLITE_CANTOPEN) {
      std::cerr << "kp-settle: cannot open " << options.db << ": " << e.what()
                << " (create it with kp-settle --init --dates ...)\n";
    } else {
      std::cerr << "kp-settle: sqlite error on " << options.db << ": " << e.what() << "\n";
    }
    return kExitFailed;
  }
}
