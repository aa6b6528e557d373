// The output folder's names are a format users and scripts read (docs/reports.md): pinned here,
// spelled in the code only by results/layout.cc.
#include "results/layout.h"

#include <gtest/gtest.h>

namespace killpoint {
namespace {

TEST(Layout, NamesEveryFileOfARunsFolder) {
  EXPECT_EQ(ResultsFile("out"), "out/results.json");
  EXPECT_EQ(RunManifestFile("out"), "out/run.json");
  EXPECT_EQ(ScenarioDir("out", "publish/execute-then-mark"), "out/publish-execute-then-mark");
  EXPECT_EQ(TrialsJournal("out/s"), "out/s/trials.jsonl");
  EXPECT_EQ(HistoryJournal("out/s"), "out/s/history.jsonl");
  EXPECT_EQ(CounterexampleDir("out/s"), "out/s/counterexamples");
}

TEST(Layout, NamesCounterexampleFilesAndReadsTheirTrialBack) {
  EXPECT_EQ(TrialCounterexampleFile("out/s", 12, "no_loss"),
            "out/s/counterexamples/trial-12-no_loss.json");
  EXPECT_EQ(ExploreCounterexampleFile("out/s", "no_loss"),
            "out/s/counterexamples/explore-no_loss.json");
  EXPECT_EQ(TrialOfCounterexample("trial-12-no_loss.json"), 12);
  EXPECT_EQ(TrialOfCounterexample(TrialCounterexampleFile("d", 7, "x").filename().string()), 7);
  for (const char* other : {"explore-no_loss.json", "trial--x.json", "trial-1x-y.json", "trial-12",
                            "notes.txt", "trial-999999999999-x.json"}) {
    EXPECT_EQ(TrialOfCounterexample(other), -1) << other;
  }
}

TEST(Layout, NamesTheReportsBesideTheResults) {
  ReportFiles f = DefaultReportFiles("out");
  EXPECT_EQ(f.html, "out/report.html");
  EXPECT_EQ(f.junit, "out/junit.xml");
  EXPECT_EQ(f.markdown, "out/summary.md");
}

TEST(Layout, ASlugIsOneFolderNameWhateverTheScenariosName) {
  EXPECT_EQ(Slug("catalogue/lock-lease"), "catalogue-lock-lease");
  EXPECT_EQ(Slug("a b/c\\d:e"), "a-b-c-d-e");
  EXPECT_EQ(Slug("v1.2_x"), "v1.2_x");
  // Beyond ASCII: kept, but what shows as nothing or reorders the name (U+202E, U+200B).
  EXPECT_EQ(Slug("é"), "é");
  EXPECT_EQ(Slug("日本語"), "日本語");
  EXPECT_NE(Slug("日本語"), Slug("中文字"));
  EXPECT_EQ(Slug("a\u202eb\u200bc"), "a-b-c");
  EXPECT_EQ(Slug("a\xff"), "a-");  // not UTF-8
  for (const char* name : {"../up", "a/../../b", "/abs"}) {
    EXPECT_EQ(Slug(name).find('/'), std::string::npos) << name;
  }
}

}  // namespace
}  // namespace killpoint
