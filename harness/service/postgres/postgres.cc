#include "service/postgres/postgres.h"

#include <signal.h>

#include <cstdlib>
#include <optional>

#include "proc/server_process.h"
#include "service/postgres/pg_client.h"
#include "service/server_launch.h"
#include "service/single_server.h"

namespace killpoint {
namespace {

namespace fs = std::filesystem;
// How the server ends with the service: SIGQUIT, an immediate shutdown; the data is thrown away.
const ServerStop kPostgresStop{SIGQUIT};
constexpr std::chrono::seconds kInitdbPatience{120};  // a loaded 2-core machine is slow

// The server on `port`. Durability "fast" (docs/services.md, "Server faults"): a COMMIT returns
// before its WAL is written, and the WAL writer waits its longest (10 s) between writes, so that
// a kill -9 right after a commit loses it.
ServerCommand PostgresCommand(const fs::path& bin, const fs::path& dir, const ServerMarks& marks,
                              const std::string& host, int port, bool fast) {
  std::vector<std::string> argv = {
      (bin / "postgres").string(), "-D", (dir / "data").string(),   "-h", host, "-p",
      std::to_string(port),        "-c", "unix_socket_directories="};
  if (fast) {
    for (const char* o : {"-c", "synchronous_commit=off", "-c", "wal_writer_delay=10s"})
      argv.push_back(o);
  }
  return {argv, ServerEnvironment(marks), dir / "server.log", marks.cgroup_procs_fd};
}

// Every row of every table of the trial's database, as "TABLE (a,b)".
Result<ServiceSnapshot> PgSnapshot(const ServiceAddress& address) {
  auto opened = PgConnection::Open(address, kPostgresTrialDatabase, 5);
  if (!opened) return opened.error();
  auto& db = opened.value();
  if (Status s = db.Exec("SET statement_timeout = 5000"); !s) return s.error();
  auto tables = db.Query(
      "SELECT quote_ident(schemaname) || '.' || quote_ident(tablename) FROM pg_tables WHERE "
      "schemaname NOT IN ('pg_catalog', 'information_schema') ORDER BY 1");
  if (!tables) return tables.error();
  ServiceSnapshot out;
  for (const auto& t : tables.value().rows) {
    auto rows = db.Query("SELECT t::text FROM " + t[0].value_or("") + " t");
    if (!rows) return rows.error();
    for (const auto& r : rows.value().rows)
      out.push_back(SnapshotEntry{*t[0] + " " + r[0].value_or("NULL"), -1});
  }
  return out;
}

class Postgres : public SingleServer<PgConnection> {
 public:
  Postgres(Parts parts, fs::path bin) : SingleServer(std::move(parts)), bin_(std::move(bin)) {}

  Result<ServiceSnapshot> Snapshot() override { return PgSnapshot(address_); }

  Result<ServiceAddress> Reset() override {
    const std::string db = PgIdentifier(kPostgresTrialDatabase);
    if (Status s = admin_->Exec("DROP DATABASE IF EXISTS " + db + " WITH (FORCE)"); !s)
      return ResetFailed("reset the trial's database", s.error());
    if (Status s = admin_->Exec("CREATE DATABASE " + db + " TEMPLATE template0"); !s)
      return ResetFailed("reset the trial's database", s.error());
    return address_;
  }

 private:
  ServerCommand Command() const override {
    return PostgresCommand(bin_, dir_, marks_, address_.host, address_.port, fast_);
  }
  bool Accepting() const override { return PgAccepting(address_); }
  Result<PgConnection> OpenAdmin() const override {
    return PgConnection::Open(address_, "postgres");
  }

  fs::path bin_;
};

Result<std::unique_ptr<ServerProcess>> StartServerOn(const fs::path& bin, const fs::path& dir,
                                                     const ServerMarks& marks,
                                                     ServiceAddress& address, bool fast) {
  return StartOnPickedPort(
      "postgres",
      [&](int port) { return PostgresCommand(bin, dir, marks, address.host, port, fast); },
      [&](int port) {
        ServiceAddress a = address;
        a.port = port;
        return PgAccepting(a);
      },
      address.port);
}

// The run's template: initdb, once. -N: initdb does not fsync what it wrote (a throw-away
// cluster); the server keeps its defaults, fsync on. Every connection asks the superuser's
// password (ServerPassword, by SCRAM-SHA-256): no trust, whoever the local user.
Result<fs::path> TemplateData(const fs::path& bin, const fs::path& root, const ServerMarks& marks) {
  return ServerTemplate("postgres", root, [&](const fs::path& data) -> Status {
    const fs::path password_file = data.parent_path() / "password";
    if (Status s = WriteServerFile(password_file, ServerPassword() + "\n"); !s) return s;
    ServerCommand initdb{
        {(bin / "initdb").string(), "-D", data.string(), "-U", kPostgresUser, "-A", "scram-sha-256",
         "--pwfile=" + password_file.string(), "-E", "UTF8", "--locale=C", "-N"},
        ServerEnvironment(marks),
        data.parent_path() / "initdb.log",
        marks.cgroup_procs_fd};
    Status made = RunServerTool(initdb, kInitdbPatience);
    std::error_code ec;
    fs::remove(password_file, ec);
    if (!made) return Error::Harness("initdb: " + made.error().message);
    return Ok();
  });
}

}  // namespace

Result<fs::path> PostgresBinDir() {
  fs::path best;
  int best_version = -1;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator("/usr/lib/postgresql", ec)) {
    fs::path bin = e.path() / "bin";
    int version = std::atoi(e.path().filename().c_str());
    if (version > best_version && fs::exists(bin / "postgres") && fs::exists(bin / "initdb")) {
      best = bin;
      best_version = version;
    }
  }
  if (best.empty()) {
    return Error::Harness(
        "a postgres service needs Debian's PostgreSQL server (/usr/lib/postgresql/N/bin/postgres "
        "and initdb), which is not installed: run scripts/setup.sh (package postgresql)");
  }
  return best;
}

Result<std::unique_ptr<RunningService>> StartPostgres(const std::string& name, const fs::path& root,
                                                      const ServerMarks& marks, bool fast) {
  auto bin = PostgresBinDir();
  if (!bin) return bin.error();
  auto dir = MakeServerFolder(root, name);
  if (!dir) return dir.error();
  auto data = TemplateData(bin.value(), root, marks);
  if (!data) return Error::Harness("postgres service " + name + ": " + data.error().message);
  if (Status s = CopyServerTemplate(data.value(), dir.value(), marks); !s) {
    return Error::Harness("postgres service " + name + ": " + s.error().message);
  }
  ServiceAddress address{"postgres",    "127.0.0.1",     0, kPostgresTrialDatabase,
                         kPostgresUser, ServerPassword()};
  auto server = StartServerOn(bin.value(), dir.value(), marks, address, fast);
  if (!server) return Error::Harness("postgres service " + name + ": " + server.error().message);
  auto admin = PgConnection::Open(address, "postgres");
  if (!admin) return Error::Harness("postgres service " + name + ": " + admin.error().message);
  return std::unique_ptr<RunningService>(
      new Postgres({"postgres", dir.value(), std::move(server.value()), address,
                    std::move(admin.value()), marks, fast, kPostgresStop},
                   bin.value()));
}

std::string PostgresUrl(const ServiceAddress& a) {
  return "postgresql://" + a.user + ":" + a.password + UrlWhere(a) + a.database;
}

void PostgresEnv(const ServiceAddress& a, ServiceEnvironment& env) {
  env["PGHOST"] = a.host;
  env["PGPORT"] = std::to_string(a.port);
  env["PGDATABASE"] = a.database;
  env["PGUSER"] = a.user;
  env["PGPASSWORD"] = a.password;  // read by libpq
}

Result<SqlRows> PostgresReadOnly(const ServiceAddress& address, const std::string& sql) {
  auto conn = PgConnection::Open(address, address.database);
  if (!conn) return conn.error();
  if (Status s = conn.value().Exec("BEGIN READ ONLY"); !s) return s.error();
  return conn.value().Query(sql);
}

}  // namespace killpoint
