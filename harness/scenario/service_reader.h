// Reads a scenario's "services" object (docs/services.md): the real servers its job talks to,
// by name. Failures throw FieldError, like every reader of scenario_parser.cc.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "scenario/field_reader.h"
#include "scenario/scenario.h"

namespace killpoint {

// `services` is the raw "services" value (nullptr when absent), `r` the reader of it.
std::map<std::string, ServiceSpec> ReadServices(FieldReader r, const nlohmann::json* services);

// Every check's "service" names a service that can answer it: a postgres one for sql, a redis
// one for keys. `r` reads the root.
void CheckServiceRefs(FieldReader& r, const Scenario& s);

}  // namespace killpoint
