#include "service/postgres.h"

#include <signal.h>
#include <stdlib.h>

#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "service/pg_client.h"
#include "service/server_process.h"

namespace killpoint {
namespace {

namespace fs = std::filesystem;
// Generous: a loaded 2-core machine may take seconds to start a server.
constexpr std::chrono::seconds kInitdbPatience{120};
constexpr std::chrono::seconds kStartPatience{60};
constexpr int kStartTries = 3;  // a picked port taken in between: another port

class Postgres : public RunningService {
 public:
  Postgres(fs::path dir, std::unique_ptr<ServerProcess> server, ServiceAddress address,
           PgConnection admin)
      : dir_(std::move(dir)),
        server_(std::move(server)),
        address_(std::move(address)),
        admin_(std::move(admin)) {}

  ~Postgres() override {
    admin_.reset();
    server_->Stop(SIGQUIT);  // immediate shutdown: the data is thrown away
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  Result<ServiceAddress> Reset() override {
    const std::string db = PgIdentifier(kPostgresTrialDatabase);
    if (Status s = admin_->Exec("DROP DATABASE IF EXISTS " + db + " WITH (FORCE)"); !s)
      return Failed(s.error());
    if (Status s = admin_->Exec("CREATE DATABASE " + db + " TEMPLATE template0"); !s)
      return Failed(s.error());
    return address_;
  }

 private:
  Error Failed(const Error& e) {
    return Error::Harness(
        "postgres service: cannot reset the trial's database: " + e.message +
        (server_->Running() ? "" : "; the server is gone: " + server_->LogTail()));
  }

  fs::path dir_;
  std::unique_ptr<ServerProcess> server_;
  ServiceAddress address_;
  std::optional<PgConnection> admin_;
};

// Waits until the server answers, or has exited, or kStartPatience passed.
bool WaitAccepting(ServerProcess& server, const ServiceAddress& address) {
  auto deadline = std::chrono::steady_clock::now() + kStartPatience;
  while (std::chrono::steady_clock::now() < deadline) {
    if (PgAccepting(address)) return true;
    if (!server.Running()) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return PgAccepting(address);
}

Result<std::unique_ptr<ServerProcess>> StartServerOn(const fs::path& bin, const fs::path& dir,
                                                     const ServerMarks& marks,
                                                     ServiceAddress& address) {
  std::string last;
  for (int attempt = 0; attempt < kStartTries; ++attempt) {
    auto port = PickLoopbackPort();
    if (!port) return port.error();
    address.port = port.value();
    ServerCommand c{{(bin / "postgres").string(), "-D", (dir / "data").string(), "-h", address.host,
                     "-p", std::to_string(address.port), "-c", "unix_socket_directories="},
                    ServerEnvironment(marks),
                    dir / "server.log",
                    marks.cgroup_procs_fd};
    auto server = StartServer(c);
    if (!server) return server.error();
    if (WaitAccepting(*server.value(), address)) return std::move(server.value());
    last = server.value()->LogTail();
    server.value()->Stop(SIGKILL, std::chrono::milliseconds(0));
  }
  return Error::Harness("postgres did not start (" + std::to_string(kStartTries) + " tries, " +
                        std::to_string(kStartPatience.count()) + " s each): " + last);
}

// initdb takes seconds; a copy of its result, a tenth of one. The first postgres service of a
// run (by sandbox root) runs initdb into a template folder there; every one copies it.
Result<fs::path> TemplateData(const fs::path& bin, const fs::path& root, const ServerMarks& marks) {
  static std::mutex mu;
  static std::map<fs::path, fs::path> templates;  // sandbox root -> its template's data folder
  std::lock_guard<std::mutex> lock(mu);
  auto known = templates.find(root);
  if (known != templates.end() && fs::exists(known->second)) return known->second;
  auto dir = MakeServerFolder(root, "postgres-template");
  if (!dir) return dir.error();
  fs::path data = dir.value() / "data";
  // -N: initdb does not fsync what it wrote (a throw-away cluster); the server keeps its
  // defaults, fsync on.
  ServerCommand initdb{{(bin / "initdb").string(), "-D", data.string(), "-U", kPostgresUser, "-A",
                        "trust", "-E", "UTF8", "--locale=C", "-N"},
                       ServerEnvironment(marks),
                       dir.value() / "initdb.log",
                       marks.cgroup_procs_fd};
  if (Status s = RunServerTool(initdb, kInitdbPatience); !s) {
    return Error::Harness("initdb: " + s.error().message);
  }
  templates[root] = data;
  return data;
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
                                                      const ServerMarks& marks) {
  auto bin = PostgresBinDir();
  if (!bin) return bin.error();
  auto dir = MakeServerFolder(root, name);
  if (!dir) return dir.error();
  auto data = TemplateData(bin.value(), root, marks);
  if (!data) return Error::Harness("postgres service " + name + ": " + data.error().message);
  ServerCommand copy{{"/bin/cp", "-a", data.value().string(), (dir.value() / "data").string()},
                     ServerEnvironment(marks),
                     dir.value() / "copy.log",
                     marks.cgroup_procs_fd};
  if (Status s = RunServerTool(copy, kInitdbPatience); !s) {
    return Error::Harness("postgres service " + name +
                          ": copying the template: " + s.error().message);
  }
  ServiceAddress address{"postgres", "127.0.0.1", 0, kPostgresTrialDatabase, kPostgresUser};
  auto server = StartServerOn(bin.value(), dir.value(), marks, address);
  if (!server) return Error::Harness("postgres service " + name + ": " + server.error().message);
  auto admin = PgConnection::Open(address, "postgres");
  if (!admin) return Error::Harness("postgres service " + name + ": " + admin.error().message);
  return std::unique_ptr<RunningService>(
      new Postgres(dir.value(), std::move(server.value()), address, std::move(admin.value())));
}

}  // namespace killpoint
