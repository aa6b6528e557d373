#include "util/printable.h"

#include <gtest/gtest.h>

namespace killpoint {
namespace {

TEST(Printable, KeepsPrintableAsciiAndValidUtf8) {
  EXPECT_EQ(Printable("job.command[0]: got 'x'"), "job.command[0]: got 'x'");
  EXPECT_EQ(Printable("d\xc3\xa9j\xc3\xa0 \xe2\x82\xac \xf0\x9f\x98\x80"),
            "d\xc3\xa9j\xc3\xa0 \xe2\x82\xac \xf0\x9f\x98\x80");
}

TEST(Printable, EscapesControlCharactersAndBrokenUtf8) {
  EXPECT_EQ(Printable("a\nb\r\tc\x7f"), "a\\x0ab\\x0d\\x09c\\x7f");
  EXPECT_EQ(Printable(std::string("nul\0x", 5)), "nul\\x00x");
  EXPECT_EQ(Printable("\xff\xfe"), "\\xff\\xfe");
  EXPECT_EQ(Printable("\xc3"), "\\xc3");                             // truncated sequence
  EXPECT_EQ(Printable("\xc0\xaf"), "\\xc0\\xaf");                    // overlong '/'
  EXPECT_EQ(Printable("\xed\xa0\x80"), "\\xed\\xa0\\x80");           // a surrogate
  EXPECT_EQ(Printable("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // above U+10FFFF
}

// Found by fuzz/fuzz_scenario.cc: a message was cut to 1000 bytes before escaping, so that
// 1000 bytes of 0x7f printed as 4000.
// A bidi override or a zero-width character would hide or reorder what a message shows.
TEST(Printable, EscapesInvisibleAndReorderingCharacters) {
  EXPECT_EQ(Printable("job\u202etxt.exe"), "job\\u202etxt.exe");
  EXPECT_EQ(Printable("a\u200bb\ufeffc\u2066d"), "a\\u200bb\\ufeffc\\u2066d");
  EXPECT_EQ(Printable("\u0085"), "\\u0085");  // C1: NEL
  EXPECT_EQ(Printable("日本語 é"), "日本語 é");
}

TEST(Printable, CutsTheOutputNotTheInput) {
  EXPECT_EQ(Printable(std::string(1000, '\x7f'), 10), "\\x7f\\x7f...");
  EXPECT_EQ(Printable("abcdef", 3), "abc...");
  EXPECT_EQ(Printable("ab\xc3\xa9", 3), "ab...");  // never half a character
  EXPECT_EQ(Printable("abc", 3), "abc");
}

// Issue 33: a program's output in a report reads "a | b", not "a\x0ab".
TEST(LinesJoined, JoinsLinesAndDropsBlankOnes) {
  EXPECT_EQ(LinesJoined("Traceback:\n  File x\r\nValueError: bad\n\n"),
            "Traceback: |   File x | ValueError: bad");
  EXPECT_EQ(LinesJoined(""), "");
  EXPECT_EQ(LinesJoined("one"), "one");
  EXPECT_EQ(Printable(LinesJoined("a\nb")), "a | b");
}

}  // namespace
}  // namespace killpoint
