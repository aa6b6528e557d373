#include "proc/server_log.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace killpoint {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

// The shape of MariaDB 10.11's crash report: the why at the top, a stack trace, the query,
// and the optimizer switch, one line of over a thousand characters (its tail is all the old
// message showed), just before the end.
std::string MariadbCrash() {
  std::string log = "2026-12-02 15:58:01 0 [Note] /usr/sbin/mariadbd: ready for connections.\n";
  log += "241202 15:58:07 [ERROR] mysqld got signal 11 ;\n";
  log += "Sorry, we probably made a mistake, and this is a bug.\n";
  for (int i = 0; i < 20; ++i) {
    log += "/usr/sbin/mariadbd(frame" + std::to_string(i) + "+0x2e)[0x55d0c0ffee" +
           std::to_string(i) + "]\n";
  }
  log += "Trying to get some variables.\n";
  log += "Query (0x7f1c3c012345): DROP DATABASE IF EXISTS `killpoint`\n";
  log += "Connection ID (thread ID): 5\n";
  log += "Status: NOT_KILLED\n\n";
  log += "Optimizer switch: " + std::string(1600, 'o') + "\n\n";
  log += "Writing a core file...\n";
  return log;
}

TEST(ServerLog, AShortLogIsWhole) { EXPECT_EQ(LogExcerpt("one\ntwo\n", 1500), "one\ntwo\n"); }

TEST(ServerLog, ACrashReportKeepsItsSignalAndQueryBeforeTheTail) {
  std::string excerpt = LogExcerpt(MariadbCrash(), 1500);
  EXPECT_THAT(excerpt, StartsWith("241202 15:58:07 [ERROR] mysqld got signal 11 ;\n"
                                  "Query (0x7f1c3c012345): DROP DATABASE IF EXISTS `killpoint`\n"
                                  "..."));
  EXPECT_THAT(excerpt, HasSubstr("Writing a core file...\n"));
  EXPECT_THAT(excerpt, Not(HasSubstr("frame3+")));  // the stack trace is not the why
}

TEST(ServerLog, PostgresNamesTheKilledBackendAndItsStatement) {
  std::string log =
      "LOG:  server process (PID 4242) was terminated by signal 9: Killed\n"
      "DETAIL:  Failed process was running: COMMIT\n" +
      std::string(2000, 'x') + "\n";
  std::string excerpt = LogExcerpt(log, 100);
  EXPECT_THAT(excerpt, StartsWith("LOG:  server process (PID 4242) was terminated by signal 9: "
                                  "Killed\nDETAIL:  Failed process was running: COMMIT\n..."));
}

TEST(ServerLog, KeepsTheLastEightReasonsEachCut) {
  std::string log;
  for (int i = 0; i < 12; ++i) log += "PANIC: reason " + std::to_string(i) + "\n";
  log += "PANIC: " + std::string(1000, 'p') + "\n";
  log += std::string(200, 't');
  std::string excerpt = LogExcerpt(log, 200);
  EXPECT_THAT(excerpt, Not(HasSubstr("reason 4\n")));
  EXPECT_THAT(excerpt, StartsWith("PANIC: reason 5\n"));
  EXPECT_THAT(excerpt,
              HasSubstr("\nPANIC: " + std::string(293, 'p') + "...\n..." + std::string(200, 't')));
}

}  // namespace
}  // namespace killpoint
