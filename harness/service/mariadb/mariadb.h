// The mariadb kind (docs/services.md): Debian's MariaDB server, its data folder in the run's
// sandbox root, listening on 127.0.0.1 on a port it picks, with MariaDB's default (durable)
// settings (InnoDB, innodb_flush_log_at_trx_commit=1). The job logs in as root with no password,
// over TCP. A trial gets a fresh database `killpoint`; the one before is dropped first, once
// every other connection to the server (a killed job's) has been killed, so that none holds a
// lock the DROP waits for.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "service/service.h"
#include "util/result.h"

namespace killpoint {

inline constexpr const char* kMariadbUser = "root";
inline constexpr const char* kMariadbTrialDatabase = "killpoint";

Result<std::unique_ptr<RunningService>> StartMariadb(const std::string& name,
                                                     const std::filesystem::path& root,
                                                     const ServerMarks& marks, bool fast = false);
std::string MariadbUrl(const ServiceAddress& address);
void MariadbEnv(const ServiceAddress& address, ServiceEnvironment& env);
// The query in a read-only transaction, where a write fails.
Result<SqlRows> MariadbReadOnly(const ServiceAddress& address, const std::string& sql);

inline constexpr ServiceKindImpl kMariadbKind{"mariadb", &StartMariadb, &MariadbUrl, &MariadbEnv,
                                              &MariadbReadOnly};

}  // namespace killpoint
