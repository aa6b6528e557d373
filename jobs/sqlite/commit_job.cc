// kp-sqlite-commit: one SQLite transaction per attempt, to measure what a crash does to
// commits under each journal mode and synchronous setting (docs/sqlite-guarantees.md).
//
//   kp-sqlite-commit --init [--db PATH] --journal-mode delete|wal
//   kp-sqlite-commit [--db PATH] [--biz-date D] --journal-mode delete|wal
//                    --synchronous off|normal|full|extra
//
// --init creates commits(biz_date, attempt, payload) and fsyncs the database and its folder,
// so that a trial measures commits, not the creation of the file. A run inserts the row
// (biz_date, KILLPOINT_ATTEMPT) with a 3 KiB payload (several pages), commits, and passes the
// failpoint after_commit: from there on the commit is acknowledged and must survive.
#include <SQLiteCpp/SQLiteCpp.h>
#include <fcntl.h>
#include <killpoint/failpoint.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <string>

namespace {

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;

struct Options {
  std::string db;
  std::string biz_date;
  std::string journal_mode;
  std::string synchronous = "full";
  bool init = false;
};

std::string Env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

void SyncPath(const std::string& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 || ::fsync(fd) != 0) throw std::runtime_error("cannot fsync " + path);
  ::close(fd);
}

void Configure(SQLite::Database& db, const Options& o) {
  db.exec("PRAGMA journal_mode = " + o.journal_mode);
  db.exec("PRAGMA synchronous = " + o.synchronous);
}

int Init(const Options& o) {
  {
    SQLite::Database db(o.db, SQLite::OPEN_READWRITE | SQLite::OPEN_CREATE);
    Configure(db, o);
    db.exec(
        "CREATE TABLE IF NOT EXISTS commits(biz_date TEXT NOT NULL, attempt INTEGER NOT NULL, "
        "payload BLOB NOT NULL, PRIMARY KEY (biz_date, attempt))");
    if (o.journal_mode == "wal") db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  }
  SyncPath(o.db);
  SyncPath(std::filesystem::path(o.db).parent_path().string());
  return kExitOk;
}

int Commit(const Options& o) {
  SQLite::Database db(o.db, SQLite::OPEN_READWRITE);
  Configure(db, o);
  SQLite::Transaction tx(db);
  SQLite::Statement insert(db, "INSERT OR REPLACE INTO commits VALUES (?, ?, zeroblob(3072))");
  insert.bind(1, o.biz_date);
  insert.bind(2, std::atoi(Env("KILLPOINT_ATTEMPT").c_str()));
  insert.exec();
  tx.commit();
  killpoint::failpoint("after_commit");
  std::cout << "committed " << o.biz_date << " attempt " << Env("KILLPOINT_ATTEMPT") << "\n";
  return kExitOk;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"kp-sqlite-commit: one SQLite transaction per attempt"};
  Options o;
  o.db = Env("KILLPOINT_WORKDIR").empty() ? "" : Env("KILLPOINT_WORKDIR") + "/commits.db";
  o.biz_date = Env("KILLPOINT_BIZ_DATE");
  app.add_flag("--init", o.init, "Create the database and fsync it and its folder");
  app.add_option("--db", o.db, "Database (default $KILLPOINT_WORKDIR/commits.db)");
  app.add_option("--biz-date", o.biz_date, "Business date (default $KILLPOINT_BIZ_DATE)");
  app.add_option("--journal-mode", o.journal_mode)
      ->required()
      ->check(CLI::IsMember({"delete", "wal"}));
  app.add_option("--synchronous", o.synchronous)
      ->check(CLI::IsMember({"off", "normal", "full", "extra"}));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? kExitOk : kExitUsage;
  }
  if (o.db.empty() || (!o.init && o.biz_date.empty())) {
    std::cerr << "kp-sqlite-commit: --db and --biz-date (or KILLPOINT_WORKDIR and "
                 "KILLPOINT_BIZ_DATE) are required\n";
    return kExitUsage;
  }
  try {
    return o.init ? Init(o) : Commit(o);
  } catch (const std::exception& e) {
    std::cerr << "kp-sqlite-commit: " << e.what() << "\n";
    return kExitFailed;
  }
}
