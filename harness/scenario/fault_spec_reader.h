// Reads a scenario's "faults" object (pause, overlap, downstream_burst; docs/faults.md). Part
// of the scenario parser: failures throw FieldError with the field path, as FieldReader does.
#pragma once

#include <string>
#include <vector>

#include "scenario/field_reader.h"
#include "scenario/scenario.h"

namespace killpoint {

// The points a scenario declares: its crash points (`failpoints`) and the points where it may
// only hold the job (`hold_points`). Every pause or overlap point must be one of them.
struct DeclaredPoints {
  const std::vector<std::string>& failpoints;
  const std::vector<std::string>& hold_points;
};

FaultSpec ReadFaults(FieldReader r, const DeclaredPoints& declared);

// Every faults.net point names a service of the scenario, and a commit point a postgres one.
// Run once services are read.
void CheckNetFaultServices(FieldReader& r, const Scenario& s);
// Every faults.server service names a service of the scenario that is not a rabbitmq one.
void CheckServerFaultServices(FieldReader& r, const Scenario& s);

}  // namespace killpoint
