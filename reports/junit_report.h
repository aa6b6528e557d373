// JUnit XML for CI test reporters (GitLab's test report, Jenkins' junit step, GitHub actions
// that read JUnit): one <testsuite> per scenario, one <testcase> per invariant.
//   must hold, held             -> passes
//   must hold, violated         -> <failure message="the explanation">the replay command
//   ...</failure> expected to break, shown    -> passes, with a note in <system-out> expected, not
//   demonstrated  -> <skipped message="the reason"/>
// The counts on <testsuites> and each <testsuite> are those of the results, so a reporter's
// totals equal results.json. Text from jobs is escaped; characters XML 1.0 forbids are replaced.
#pragma once

#include <string>

#include "reports/report_model.h"

namespace killpoint {

std::string RenderJunit(const ReportData& report);

}  // namespace killpoint
