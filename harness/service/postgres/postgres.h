// The postgres kind (docs/services.md): Debian's PostgreSQL server, its data folder in the run's
// sandbox root, listening on 127.0.0.1 on a port it picks, with PostgreSQL's default (durable)
// settings. A trial gets a fresh database `killpoint`, created from template0; the one before is
// dropped first (WITH (FORCE): a killed job's connection does not hold it).
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "service/service.h"
#include "util/result.h"

namespace killpoint {

inline constexpr const char* kPostgresUser = "postgres";
inline constexpr const char* kPostgresTrialDatabase = "killpoint";

// Where Debian's server binaries are: the newest /usr/lib/postgresql/N/bin holding postgres and
// initdb; an error with the setup hint when there is none.
Result<std::filesystem::path> PostgresBinDir();

Result<std::unique_ptr<RunningService>> StartPostgres(const std::string& name,
                                                      const std::filesystem::path& root,
                                                      const ServerMarks& marks, bool fast = false);
std::string PostgresUrl(const ServiceAddress& address);
void PostgresEnv(const ServiceAddress& address, ServiceEnvironment& env);
// The query in a read-only transaction, where a write fails.
Result<SqlRows> PostgresReadOnly(const ServiceAddress& address, const std::string& sql);

inline constexpr ServiceKindImpl kPostgresKind{"postgres", &StartPostgres, &PostgresUrl,
                                               &PostgresEnv, &PostgresReadOnly};

}  // namespace killpoint
