#include "channel/protocol_line.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <string>

namespace killpoint {
namespace {

TEST(ProtocolLine, ReadsTheThreeKinds) {
  auto hit = ParseProtocolLine("HIT after_publish 4242");
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->name, "after_publish");
  EXPECT_EQ(hit->pid, 4242);
  EXPECT_FALSE(hit->done);
  EXPECT_FALSE(hit->seen);
  EXPECT_EQ(hit->bytes, -1);

  auto done = ParseProtocolLine("DONE write:state.json 7 512\r");
  ASSERT_TRUE(done);
  EXPECT_TRUE(done->done);
  EXPECT_EQ(done->bytes, 512);

  auto seen = ParseProtocolLine("SEEN fsync:a/b.tmp 9");
  ASSERT_TRUE(seen);
  EXPECT_TRUE(seen->seen);
  EXPECT_EQ(seen->name, "fsync:a/b.tmp");

  auto bare = ParseProtocolLine("HIT x");  // v1: the pid is optional
  ASSERT_TRUE(bare);
  EXPECT_EQ(bare->pid, 0);
}

TEST(ProtocolLine, ReadsTheExclusiveCreateFlag) {  // v1.3
  auto hit = ParseProtocolLine("HIT open:tmpk3x9q1ab 42 excl");
  ASSERT_TRUE(hit);
  EXPECT_TRUE(hit->excl);
  EXPECT_EQ(hit->bytes, -1);
  auto seen = ParseProtocolLine("SEEN open:sub/tmp.Xy12 7 excl");
  ASSERT_TRUE(seen);
  EXPECT_TRUE(seen->excl);
  EXPECT_FALSE(ParseProtocolLine("HIT open:x 1")->excl);
  for (const char* line :
       {"DONE open:x 1 excl", "HIT open:x excl", "HIT open:x 1 excl 2", "HIT open:x 1 EXCL"}) {
    EXPECT_FALSE(ParseProtocolLine(line)) << '"' << line << '"';
  }
}

TEST(ProtocolLine, ReadsTheUnseenWriteFlag) {  // v1.4
  auto hit = ParseProtocolLine("HIT write:tmp.Ab12 42 11 unseen:dup2");
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->bytes, 11);
  EXPECT_EQ(hit->unseen, "dup2");
  auto seen = ParseProtocolLine("SEEN write:out 7 0 unseen:close");
  ASSERT_TRUE(seen);
  EXPECT_EQ(seen->unseen, "close");
  EXPECT_EQ(ParseProtocolLine("HIT write:x 1 5")->unseen, "");
  for (const char* line :
       {"DONE write:x 1 5 unseen:close", "HIT write:x 1 unseen:close",
        "HIT write:x 1 5 unseen:", "HIT write:x 1 5 unseen", "HIT write:x 1 5 unseen:Close",
        "HIT write:x 1 5 unseen:close 2", "HIT open:x 1 excl unseen:close"}) {
    EXPECT_FALSE(ParseProtocolLine(line)) << '"' << line << '"';
  }
}

TEST(ProtocolLine, ReadsTheWritesOffset) {  // v1.7
  auto hit = ParseProtocolLine("HIT write:data.bin 42 10000 at:100");
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->bytes, 10000);
  EXPECT_EQ(hit->offset, 100);
  EXPECT_EQ(ParseProtocolLine("SEEN write:x 7 5 at:0")->offset, 0);
  EXPECT_EQ(ParseProtocolLine("HIT write:x 7 5 at:999999999999999999\r")->offset,
            999'999'999'999'999'999);
  EXPECT_EQ(ParseProtocolLine("HIT write:x 1 5 at:3 unseen:close")->unseen, "close");
  // A line of a shim before v1.7 still reads, with the offset unknown.
  EXPECT_EQ(ParseProtocolLine("HIT write:x 1 5")->offset, -1);
  EXPECT_EQ(ParseProtocolLine("HIT write:x 1 5 unseen:close")->offset, -1);
  EXPECT_EQ(ParseProtocolLine("HIT open:x 1")->offset, -1);
  for (const char* line : {"DONE write:x 1 5 at:3", "HIT write:x 1 at:3", "HIT write:x at:3",
                           "HIT write:x 1 5 at:", "HIT write:x 1 5 at:-3", "HIT write:x 1 5 at:3x",
                           "HIT write:x 1 5 at:1000000000000000000", "HIT write:x 1 5 at:3 at:4",
                           "HIT write:x 1 5 unseen:close at:3", "HIT open:x 1 excl at:3",
                           "HIT write:x 1 5 at:3 2", "HIT write:x 1 5 AT:3"}) {
    EXPECT_FALSE(ParseProtocolLine(line)) << '"' << line << '"';
  }
}

TEST(ProtocolLine, ReadsAWriteOutsideTheSandbox) {  // v1.5
  auto hit = ParseProtocolLine("OUTSIDE rename 42 /var/lib/app/state.json");
  ASSERT_TRUE(hit);
  EXPECT_TRUE(hit->seen);  // one way: never answered
  EXPECT_EQ(hit->outside, "rename");
  EXPECT_EQ(hit->name, "/var/lib/app/state.json");
  EXPECT_EQ(hit->pid, 42);
  // Spaces, '%' and bytes that are not printable ASCII come as %XX; what is not printable
  // UTF-8 once decoded is escaped.
  EXPECT_EQ(ParseProtocolLine("OUTSIDE open 7 /tmp/my%20file%25%C3%A9")->name,
            "/tmp/my file%\xc3\xa9");
  EXPECT_EQ(ParseProtocolLine("OUTSIDE open 7 /tmp/a%0Ab")->name, "/tmp/a\\x0ab");
  EXPECT_EQ(ParseProtocolLine("HIT open:x 1")->outside, "");
  for (const char* line :
       {"OUTSIDE open 7", "OUTSIDE open 7 tmp/x", "OUTSIDE 7 /tmp/x", "OUTSIDE Open 7 /tmp/x",
        "OUTSIDE open x /tmp/x", "OUTSIDE open 7 /tmp/a b", "OUTSIDE open 7 /tmp/%4",
        "OUTSIDE open 7 /tmp/%zz", "OUTSIDE open 7 /tmp/x "}) {
    EXPECT_FALSE(ParseProtocolLine(line)) << '"' << line << '"';
  }
}

TEST(ProtocolLine, ReadsACallTheSupervisorRefused) {  // v1.6
  auto hit = ParseProtocolLine("REFUSED io_uring_setup 42");
  ASSERT_TRUE(hit);
  EXPECT_TRUE(hit->refused);
  EXPECT_TRUE(hit->seen);  // one way: never answered
  EXPECT_EQ(hit->name, "io_uring_setup");
  EXPECT_EQ(hit->pid, 42);
  EXPECT_FALSE(ParseProtocolLine("HIT open:x 1")->refused);
  for (const char* line :
       {"REFUSED io_uring_setup", "REFUSED 42", "REFUSED io_uring_setup x", "REFUSED Io_uring 1",
        "REFUSED io_uring_setup 1 2", "REFUSED open:x 1"}) {
    EXPECT_FALSE(ParseProtocolLine(line)) << '"' << line << '"';
  }
}

TEST(ProtocolLine, RejectsWhatIsNotTheProtocol) {
  for (const char* line :
       {"", "HIT", "HIT ", "hit x 1", "PING x 1", "HIT  x", "HIT x  1", "HIT x 1 ", "HIT x y",
        "HIT x 1 2 3", "HIT x 1234567890", "HIT x 1 1234567890123456789", "HIT a b 1", "HIT x\t1",
        "HIT x -1", "HIT na\xc3\xa9me 1", "SEEN", "DONE x 1 -5"}) {
    EXPECT_FALSE(ParseProtocolLine(line)) << '"' << line << '"';
  }
}

RC_GTEST_PROP(ProtocolLine, WhatTheShimFormatsReadsBack, ()) {
  static const std::string kAlphabet = "ABCxyz0129_.:/-";
  auto name = *rc::gen::nonEmpty(rc::gen::container<std::string>(rc::gen::elementOf(kAlphabet)));
  int pid = *rc::gen::inRange(1, 999999999);
  int64_t bytes = *rc::gen::inRange<int64_t>(0, 999999999999999999);
  std::string kind = *rc::gen::element<std::string>("HIT", "DONE", "SEEN");
  // v1.7: a HIT may say where the write lands.
  int64_t offset = kind == "HIT" ? *rc::gen::inRange<int64_t>(-1, 999999999999999999) : -1;
  auto hit = ParseProtocolLine(kind + " " + name + " " + std::to_string(pid) + " " +
                               std::to_string(bytes) +
                               (offset >= 0 ? " at:" + std::to_string(offset) : ""));
  RC_ASSERT(hit.has_value());
  RC_ASSERT(hit->name == name);
  RC_ASSERT(hit->pid == pid);
  RC_ASSERT(hit->bytes == bytes);
  RC_ASSERT(hit->offset == offset);
  RC_ASSERT(hit->done == (kind == "DONE"));
  RC_ASSERT(hit->seen == (kind == "SEEN"));
}

}  // namespace
}  // namespace killpoint
