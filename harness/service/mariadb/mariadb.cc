#include "service/mariadb/mariadb.h"

#include <signal.h>

#include <optional>

#include "service/mariadb/mysql_client.h"
#include "service/server_launch.h"
#include "service/single_server.h"

namespace killpoint {
namespace {

namespace fs = std::filesystem;
// How the server ends with the service: SIGKILL at once; the data is thrown away.
const ServerStop kMariadbStop{SIGKILL, std::chrono::milliseconds(0)};
constexpr std::chrono::seconds kInstallPatience{180};  // a loaded 2-core machine is slow
constexpr const char* kServer = "/usr/sbin/mariadbd";
constexpr const char* kInstall = "/usr/bin/mariadb-install-db";
constexpr const char* kInitFile = "init.sql";

// What the server runs at every start, before it takes a connection (--init-file): the
// passwordless root accounts mariadb-install-db made ask ServerPassword from now on, and the one
// named after the machine goes (--skip-name-resolve never matches it; a root account should not
// wait for a resolver to become reachable). No account is left without a password.
std::string InitSql() {
  std::string sql =
      "DELETE FROM mysql.global_priv WHERE Host NOT IN ('localhost', '127.0.0.1', '::1');\n"
      "FLUSH PRIVILEGES;\n";
  for (const char* host : {"localhost", "127.0.0.1", "::1"}) {
    sql += std::string("ALTER USER IF EXISTS '") + kMariadbUser + "'@'" + host +
           "' IDENTIFIED BY '" + ServerPassword() + "';\n";
  }
  return sql;
}

// Small InnoDB files: a server per worker copies and starts in a fraction of a second. Durability
// is MariaDB's default; nothing here turns it down. Temporary files go to the server's own folder
// (the data folder's parent), never to the shared /tmp: a MariaDB server deletes every `#sql*`
// file of its tmpdir when it starts (and mariadb-install-db starts one), so with /tmp shared,
// each server start (another worker's, another run's, a server fault's restart) removed the
// on-disk temporary tables of the servers running meanwhile: a reset failed with "Error on delete
// of '/tmp/#sql-temptable-...MAD'", an install with "File '/tmp/#sql-temptable-...MAD' not
// found" (docs/services.md, "MariaDB").
std::vector<std::string> CommonOptions(const fs::path& data) {
  return {"--no-defaults",
          "--datadir=" + data.string(),
          "--tmpdir=" + data.parent_path().string(),
          "--innodb-log-file-size=8M",
          "--innodb-buffer-pool-size=16M",
          "--skip-name-resolve"};
}

// The server on `port`. Durability "fast" (docs/services.md, "Server faults"): a COMMIT neither
// writes nor flushes InnoDB's log (innodb_flush_log_at_trx_commit=0), and the background flush
// comes at most every 2700 s (innodb_flush_log_at_timeout), so that a kill -9 right after a
// commit loses it.
ServerCommand MariadbCommand(const fs::path& dir, const ServerMarks& marks, const std::string& host,
                             int port, bool fast) {
  std::vector<std::string> argv = {kServer};
  for (std::string& o : CommonOptions(dir / "data")) argv.push_back(std::move(o));
  for (std::string o :
       {"--bind-address=" + host, "--port=" + std::to_string(port),
        // relative to the data folder, the server's working folder:
        // a socket's path is at most 107 bytes
        std::string("--socket=mariadbd.sock"), "--pid-file=" + (dir / "mariadbd.pid").string(),
        "--init-file=" + (dir / kInitFile).string()}) {
    argv.push_back(std::move(o));
  }
  if (fast) {
    argv.push_back("--innodb-flush-log-at-trx-commit=0");
    argv.push_back("--innodb-flush-log-at-timeout=2700");
  }
  return {argv, ServerEnvironment(marks), dir / "server.log", marks.cgroup_procs_fd};
}

// Every row of every table of the trial's database, as "TABLE (a,b)".
Result<ServiceSnapshot> MariadbSnapshot(const ServiceAddress& address) {
  auto opened = MysqlConnection::Open(address, kMariadbTrialDatabase, 5);
  if (!opened) return opened.error();
  auto& db = opened.value();
  // A job held at its point may hold a lock the reads wait for: seconds, not for ever.
  if (Status st = db.Exec("SET SESSION lock_wait_timeout = 5, max_statement_time = 5"); !st)
    return st.error();
  auto tables = db.Query(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = DATABASE() AND "
      "table_type = 'BASE TABLE' ORDER BY 1");
  if (!tables) return tables.error();
  ServiceSnapshot out;
  for (const auto& t : tables.value().rows) {
    const std::string table = MysqlIdentifier(t[0].value_or(""));
    auto rows = db.Query("SELECT * FROM " + table);
    if (!rows) return rows.error();
    for (const auto& r : rows.value().rows) {
      std::string text;
      for (const auto& v : r) text += (text.empty() ? "" : ",") + v.value_or("NULL");
      out.push_back(SnapshotEntry{table + " (" + text + ")", -1});
    }
  }
  return out;
}

class Mariadb : public SingleServer<MysqlConnection> {
 public:
  using SingleServer::SingleServer;

  Result<ServiceSnapshot> Snapshot() override { return MariadbSnapshot(address_); }

  Result<ServiceAddress> Reset() override {
    auto failed = [&](const Status& s) {
      return ResetFailed("reset the trial's database", s.error());
    };
    if (Status s = KillOtherConnections(); !s) return failed(s);
    const std::string db = MysqlIdentifier(kMariadbTrialDatabase);
    if (Status s = admin_->Exec("DROP DATABASE IF EXISTS " + db); !s) return failed(s);
    if (Status s = admin_->Exec("CREATE DATABASE " + db); !s) return failed(s);
    return address_;
  }

 private:
  // A killed job's connection may still hold a lock on a table of the database; its KILL ends
  // its transaction (rolled back), and the DROP then waits for nobody.
  Status KillOtherConnections() {
    auto ids = admin_->Query(
        "SELECT id FROM information_schema.processlist WHERE id <> CONNECTION_ID() AND "
        "command <> 'Daemon'");
    if (!ids) return ids.error();
    for (const auto& row : ids.value().rows) {
      if (row[0]) (void)admin_->Exec("KILL " + *row[0]);  // it may have ended meanwhile
    }
    return Ok();
  }

  ServerCommand Command() const override {
    return MariadbCommand(dir_, marks_, address_.host, address_.port, fast_);
  }
  bool Accepting() const override { return MysqlAccepting(address_); }
  Result<MysqlConnection> OpenAdmin() const override { return MysqlConnection::Open(address_, ""); }
};

Result<fs::path> TemplateData(const fs::path& root, const ServerMarks& marks) {
  return ServerTemplate("mariadb", root, [&](const fs::path& data) -> Status {
    std::vector<std::string> argv = {kInstall};
    for (std::string& o : CommonOptions(data)) argv.push_back(std::move(o));
    for (const char* o : {"--auth-root-authentication-method=normal", "--skip-test-db"}) {
      argv.push_back(o);
    }
    ServerCommand install{argv, ServerEnvironment(marks), data.parent_path() / "install.log",
                          marks.cgroup_procs_fd};
    if (Status s = RunServerTool(install, kInstallPatience); !s) {
      return Error::Harness("mariadb-install-db: " + s.error().message);
    }
    return Ok();
  });
}

Result<std::unique_ptr<ServerProcess>> StartServerOn(const fs::path& dir, const ServerMarks& marks,
                                                     ServiceAddress& address, bool fast) {
  return StartOnPickedPort(
      "mariadb", [&](int port) { return MariadbCommand(dir, marks, address.host, port, fast); },
      [&](int port) {
        ServiceAddress a = address;
        a.port = port;
        return MysqlAccepting(a);
      },
      address.port);
}

}  // namespace

Result<std::unique_ptr<RunningService>> StartMariadb(const std::string& name, const fs::path& root,
                                                     const ServerMarks& marks, bool fast) {
  std::error_code ec;
  if (!fs::exists(kServer, ec) || !fs::exists(kInstall, ec)) {
    return Error::Harness(
        "a mariadb service needs Debian's MariaDB server (/usr/sbin/mariadbd and "
        "mariadb-install-db), which is not installed: run scripts/setup.sh (package "
        "mariadb-server)");
  }
  auto dir = MakeServerFolder(root, name);
  if (!dir) return dir.error();
  auto data = TemplateData(root, marks);
  if (!data) return Error::Harness("mariadb service " + name + ": " + data.error().message);
  if (Status s = CopyServerTemplate(data.value(), dir.value(), marks); !s) {
    return Error::Harness("mariadb service " + name + ": " + s.error().message);
  }
  if (Status s = WriteServerFile(dir.value() / kInitFile, InitSql()); !s) {
    return Error::Harness("mariadb service " + name + ": " + s.error().message);
  }
  ServiceAddress address{"mariadb",    "127.0.0.1",     0, kMariadbTrialDatabase,
                         kMariadbUser, ServerPassword()};
  auto server = StartServerOn(dir.value(), marks, address, fast);
  if (!server) return Error::Harness("mariadb service " + name + ": " + server.error().message);
  auto admin = MysqlConnection::Open(address, "");
  if (!admin) return Error::Harness("mariadb service " + name + ": " + admin.error().message);
  return std::unique_ptr<RunningService>(
      new Mariadb({"mariadb", dir.value(), std::move(server.value()), address,
                   std::move(admin.value()), marks, fast, kMariadbStop}));
}

std::string MariadbUrl(const ServiceAddress& a) {
  return "mysql://" + a.user + ":" + a.password + UrlWhere(a) + a.database;
}

void MariadbEnv(const ServiceAddress& a, ServiceEnvironment& env) {
  env["MYSQL_HOST"] = a.host;
  env["MYSQL_TCP_PORT"] = std::to_string(a.port);  // read by the mariadb/mysql clients
  env["MYSQL_PORT"] = std::to_string(a.port);
  env["MYSQL_DATABASE"] = a.database;
  env["MYSQL_USER"] = a.user;
  env["MYSQL_PWD"] = a.password;  // read by the mariadb/mysql clients
}

Result<SqlRows> MariadbReadOnly(const ServiceAddress& address, const std::string& sql) {
  auto conn = MysqlConnection::Open(address, address.database);
  if (!conn) return conn.error();
  if (Status s = conn.value().Exec("START TRANSACTION READ ONLY"); !s) return s.error();
  return conn.value().Query(sql);
}

}  // namespace killpoint
