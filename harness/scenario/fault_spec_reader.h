// Reads a scenario's "faults" object (pause, overlap, downstream_burst; docs/faults.md). Part
// of the scenario parser: failures throw FieldError with the field path, as FieldReader does.
#pragma once

#include <string>
#include <vector>

#include "scenario/field_reader.h"
#include "scenario/scenario.h"

namespace killpoint {

// `failpoints`: the scenario's crash points; every pause or overlap point must be one of them.
FaultSpec ReadFaults(FieldReader r, const std::vector<std::string>& failpoints);

}  // namespace killpoint
