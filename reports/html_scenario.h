// The per-scenario section of the HTML report (html_report.h): heat map and counterexamples.
// Private to the HTML renderer.
#pragma once

#include <string>

#include "reports/report_model.h"

namespace killpoint {

std::string RenderScenarioSection(const ScenarioRef& s);

// "must hold" or "expected to break".
const char* ExpectationText(const InvariantResult& r);

}  // namespace killpoint
