// Bad input end to end: `killpoint run FILE` on each malformed scenario exits 2 with exactly
// one line on stderr that names the file and the field path, never a crash or a trace.
// The corpus is tests/fixtures/malformed/, its expected paths in expected.tsv; a few more
// files (a directory, a FIFO, invalid UTF-8, an empty file, huge strings) are made here.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>

#include "killpoint_cli.h"

namespace killpoint::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

struct Malformed {
  std::string file;  // relative to the source tree, or absolute when made by the test
  std::string path;  // the field path the message must name
};

void PrintTo(const Malformed& m, std::ostream* os) { *os << m.file << " -> " << m.path; }

std::vector<Malformed> Corpus() {
  std::vector<Malformed> out;
  std::ifstream in(KILLPOINT_SOURCE_DIR "/tests/fixtures/malformed/expected.tsv");
  std::string line;
  while (std::getline(in, line)) {
    size_t tab = line.find('\t');
    if (line.empty() || line[0] == '#' || tab == std::string::npos) continue;
    out.push_back({"tests/fixtures/malformed/" + line.substr(0, tab), line.substr(tab + 1)});
  }
  return out;
}

void ExpectOneLineNaming(const CliRun& r, const Malformed& m) {
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_THAT(r.err, StartsWith("killpoint: "));
  EXPECT_THAT(r.err, HasSubstr(m.file + ": " + m.path + ": ")) << r.err;
  EXPECT_EQ(r.out, "");
  for (const char* trace : {"terminate", "what()", "Aborted", "exception", "AddressSanitizer"}) {
    EXPECT_THAT(r.err, ::testing::Not(HasSubstr(trace)));
  }
}

class MalformedScenario : public ::testing::TestWithParam<Malformed> {};

TEST_P(MalformedScenario, ExitsTwoWithOneLineNamingFileAndField) {
  const Malformed& m = GetParam();
  ASSERT_TRUE(fs::exists(fs::path(KILLPOINT_SOURCE_DIR) / m.file)) << m.file;
  ExpectOneLineNaming(RunKillpoint("malformed", {"run", m.file}), m);
}

INSTANTIATE_TEST_SUITE_P(Corpus, MalformedScenario, ::testing::ValuesIn(Corpus()),
                         [](const auto& info) {
                           std::string n = fs::path(info.param.file).stem().string();
                           std::replace_if(
                               n.begin(), n.end(), [](char c) { return !std::isalnum(c); }, '_');
                           return n;
                         });

TEST(MalformedCorpus, HasAtLeastThirtyFilesAndEveryFileIsListed) {
  auto corpus = Corpus();
  EXPECT_GE(corpus.size(), 30u);
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(KILLPOINT_SOURCE_DIR "/tests/fixtures/malformed")) {
    files += e.path().extension() == ".json";
  }
  EXPECT_EQ(files, corpus.size());
}

// Files the test makes: what cannot (or should not) live in the repository.
class MadeHere : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = FreshDir("malformed-made"); }
  void TearDown() override { fs::remove_all(dir_); }
  Malformed Write(const std::string& name, const std::string& text, const std::string& path) {
    std::ofstream(dir_ / name, std::ios::binary) << text;
    return {(dir_ / name).string(), path};
  }
  static std::string Valid(const std::string& extra) {
    return R"({"name": "made/x", "job": {"command": ["true"]}, "dates": ["2026-11-01"], )" + extra +
           R"("invariants": {"must_hold": ["converges"]}})";
  }
  fs::path dir_;
};

// A directory argument is a folder of scenarios; one named like a scenario holds none.
TEST_F(MadeHere, ADirectoryNamedLikeAScenario) {
  fs::create_directories(dir_ / "dir.json");
  std::string file = (dir_ / "dir.json").string();
  CliRun r = RunKillpoint("malformed-dir", {"run", file});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr(file + ": holds no *.json scenario"));
}

TEST_F(MadeHere, AFifoIsRejectedInsteadOfBlocking) {
  ASSERT_EQ(::mkfifo((dir_ / "fifo.json").c_str(), 0600), 0);
  CliRun r = RunKillpoint("malformed-fifo", {"run", (dir_ / "fifo.json").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("fifo.json: is not a regular file"));
}

TEST_F(MadeHere, AnEmptyFile) {
  Malformed m = Write("empty.json", "", "(root)");
  ExpectOneLineNaming(RunKillpoint("malformed-empty", {"run", m.file}), m);
}

TEST_F(MadeHere, BinaryGarbage) {
  Malformed m = Write("binary.json",
                      std::string("\x7f"
                                  "ELF\x02\x01\x01\0\0\0\n\n",
                                  12),
                      "(root)");
  ExpectOneLineNaming(RunKillpoint("malformed-binary", {"run", m.file}), m);
}

TEST_F(MadeHere, InvalidUtf8InAString) {
  Malformed m = Write("utf8.json",
                      R"({"name": "bad )"
                      "\xff\xfe\n"
                      R"(name"})",
                      "name");
  CliRun r = RunKillpoint("malformed-utf8", {"run", m.file});
  ExpectOneLineNaming(r, m);
  EXPECT_THAT(r.err, HasSubstr("\\xff"));  // escaped, not a raw byte
}

TEST_F(MadeHere, InvalidUtf8InAFileName) {
  Malformed m = Write("bad-\xff\n-name.json", "{", "(root)");
  CliRun r = RunKillpoint("malformed-utf8-name", {"run", m.file});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_THAT(r.err, HasSubstr("bad-\\xff\\x0a-name.json: (root): not valid JSON"));
}

TEST_F(MadeHere, AHugeFailpointName) {
  // std::regex recursed once per character here and overflowed the stack.
  Malformed m =
      Write("long-point.json", Valid(R"("failpoints": [")" + std::string(300000, 'a') + R"( "], )"),
            "failpoints[0]");
  ExpectOneLineNaming(RunKillpoint("malformed-long-point", {"run", m.file}), m);
}

TEST_F(MadeHere, AHugePlaceholder) {
  Malformed m =
      Write("long-placeholder.json",
            R"({"name": "made/x", "job": {"command": ["echo", "{)" + std::string(300000, 'x') +
                R"(}"]}, "dates": ["2026-11-01"], "invariants": {"must_hold": ["converges"]}})",
            "job.command[1]");
  CliRun r = RunKillpoint("malformed-long-placeholder", {"run", m.file});
  ExpectOneLineNaming(r, m);
  EXPECT_LT(r.err.size(), 2000u);  // the message is cut, not 300 kB long
}

TEST_F(MadeHere, AFileBeyondTheSizeLimit) {
  Malformed m = Write(
      "big.json", Valid(R"("description": ")" + std::string(5 << 20, 'd') + R"(", )"), "(root)");
  CliRun r = RunKillpoint("malformed-big", {"run", m.file});
  ExpectOneLineNaming(r, m);
  EXPECT_THAT(r.err, HasSubstr("a scenario is at most"));
}

}  // namespace
}  // namespace killpoint::testing
