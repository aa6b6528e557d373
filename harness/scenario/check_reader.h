// Reads a scenario's own invariants, the "checks" object (docs/scenarios.md, "Your own
// invariants"). Failures throw FieldError, like every reader of scenario_parser.cc.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "scenario/field_reader.h"
#include "scenario/scenario.h"

namespace killpoint {

// `checks` is the raw "checks" value (nullptr when absent), `r` the reader of the same object.
std::map<std::string, SqlCheck> ReadChecks(FieldReader r, const nlohmann::json* checks);

// check.settlement: the tables and columns the settlement invariants read; a missing object
// reads as the defaults (scenario.h's SettlementSchema).
SettlementSchema ReadSettlementSchema(FieldReader r);

// What is wrong with a check's SQL as far as it can be told without the job's schema: not one
// complete statement, a syntax error, or not a query. nullopt when it may run.
std::optional<std::string> SqlProblem(const std::string& sql);

// The part of SqlProblem that holds for any SQL database (a service's, whose dialect SQLite
// cannot judge): no NUL, and a query. The server refuses the rest when the check runs.
std::optional<std::string> QueryProblem(const std::string& sql);

// A path inside the sandbox: relative, without "..", without NUL.
bool IsSandboxPath(const std::string& path);

}  // namespace killpoint
