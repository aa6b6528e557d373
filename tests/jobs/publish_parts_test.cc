// kp-publish's parts in-process: the state file format, the three ways to save it (without a
// controller, so the failpoints are no-ops) and the downstream URL.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "publish/downstream_client.h"
#include "publish/durable_save.h"
#include "publish/state_file.h"
#include "temp_dir.h"

namespace killpoint::publish {
namespace {

using ::testing::HasSubstr;
using testing::ReadFileOrEmpty;
using testing::TempDir;
using testing::WriteFile;

TEST(PublishStateFileTest, SerializesVersionFirstAndDatesSorted) {
  PublishState state;
  state.dates["2026-11-06"] = DateState::kPending;
  state.dates["2026-11-05"] = DateState::kDone;
  EXPECT_EQ(SerializeState(state),
            "{\n  \"version\": 1,\n  \"dates\": {\n    \"2026-11-05\": \"done\",\n"
            "    \"2026-11-06\": \"pending\"\n  }\n}\n");
}

TEST(PublishStateFileTest, RoundTrips) {
  PublishState state;
  state.dates["2026-11-05"] = DateState::kAlerted;
  state.dates["2026-11-06"] = DateState::kDone;
  Result<PublishState> parsed = ParseState(SerializeState(state));
  ASSERT_TRUE(parsed.ok()) << parsed.status().message();
  EXPECT_EQ(parsed.value(), state);
}

TEST(PublishStateFileTest, RejectsEveryOtherShapeWithAReason) {
  const std::pair<const char*, const char*> cases[] = {
      {"", "empty"},
      {"{\"version\":1,\"dates\":{\"2026-11-05\":\"do", "not JSON"},
      {"[1]", "not a JSON object"},
      {"{\"dates\":{}}", "\"version\""},
      {"{\"version\":\"1\",\"dates\":{}}", "\"version\""},
      {"{\"version\":1}", "\"dates\" is missing"},
      {"{\"version\":1,\"dates\":[]}", "\"dates\" is not an object"},
      {"{\"version\":1,\"dates\":{\"11/05/2026\":\"done\"}}", "bad date key"},
      {"{\"version\":1,\"dates\":{\"2026-11-05\":\"sent\"}}", "want \"pending\""},
      {"{\"version\":1,\"dates\":{\"2026-11-05\":1}}", "want \"pending\""},
  };
  for (const auto& [text, reason] : cases) {
    Result<PublishState> parsed = ParseState(text);
    ASSERT_FALSE(parsed.ok()) << text;
    EXPECT_EQ(parsed.status().code(), StatusCode::kUnreadableState) << text;
    EXPECT_THAT(parsed.status().message(), HasSubstr(reason)) << text;
  }
}

TEST(PublishStateFileTest, MissingFileIsAnEmptyState) {
  TempDir dir;
  Result<PublishState> loaded = LoadState(dir.File("absent.json"));
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_TRUE(loaded.value().dates.empty());
}

TEST(PublishStateFileTest, UnreadableFileNamesThePath) {
  TempDir dir;
  WriteFile(dir.File("state.json"), "{");
  Result<PublishState> loaded = LoadState(dir.File("state.json"));
  ASSERT_FALSE(loaded.ok());
  EXPECT_THAT(loaded.status().message(),
              HasSubstr("state file " + dir.File("state.json") + " is unreadable: "));
}

class DurableSaveTest : public ::testing::TestWithParam<SaveMode> {};

TEST_P(DurableSaveTest, ReplacesTheContentAndLeavesNoTemporaryFile) {
  TempDir dir;
  std::string path = dir.File("state.json");
  WriteFile(path, "old content that is longer than the new one");
  Status status = SaveFile(path, "new", GetParam());
  ASSERT_TRUE(status.ok()) << status.message();
  EXPECT_EQ(ReadFileOrEmpty(path), "new");
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp"));
}

TEST_P(DurableSaveTest, AnIoErrorIsRetryableAndNamesThePath) {
  TempDir dir;
  std::string path = dir.File("no-such-dir/state.json");
  Status status = SaveFile(path, "new", GetParam());
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), StatusCode::kRetryable);
  EXPECT_THAT(status.message(), HasSubstr(dir.File("no-such-dir/state.json")));
  EXPECT_THAT(status.message(), HasSubstr("No such file or directory"));
}

std::string ModeName(const ::testing::TestParamInfo<SaveMode>& info) {
  switch (info.param) {
    case SaveMode::kAtomic:
      return "Atomic";
    case SaveMode::kAtomicNoDirsync:
      return "AtomicNoDirsync";
    case SaveMode::kInPlace:
      return "InPlace";
  }
  return "Unknown";
}

INSTANTIATE_TEST_SUITE_P(AllModes, DurableSaveTest,
                         ::testing::Values(SaveMode::kAtomic, SaveMode::kAtomicNoDirsync,
                                           SaveMode::kInPlace),
                         ModeName);

TEST(DownstreamUrlTest, AcceptsHttpHostAndPort) {
  std::optional<Endpoint> endpoint = ParseDownstreamUrl("http://127.0.0.1:8080/");
  ASSERT_TRUE(endpoint);
  EXPECT_EQ(endpoint->host, "127.0.0.1");
  EXPECT_EQ(endpoint->port, 8080);
  EXPECT_EQ(ParseDownstreamUrl("http://localhost")->port, 80);
}

TEST(DownstreamUrlTest, RejectsTheRest) {
  for (const char* url : {"", "127.0.0.1:80", "https://h:1", "http://", "http://h:0",
                          "http://h:70000", "http://h:8x", "http://h:1/path", "http://u@h:1"}) {
    EXPECT_FALSE(ParseDownstreamUrl(url)) << url;
  }
}

}  // namespace
}  // namespace killpoint::publish
