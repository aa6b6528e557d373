#include "run/mid_cut.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstdlib>

namespace killpoint {
namespace {

constexpr PersistenceModel kProcess = PersistenceModel::kProcess;

TEST(MidCut, UnderProcessAWriteIsCutAtThePageBoundaryNearestItsMiddle) {
  // 10,000 bytes at offset 100 cross the boundaries at 4096 and 8192; the middle (5100) is
  // nearer 4096.
  EXPECT_EQ(CutWrite(kProcess, 10'000, 100).kept, 3996);
  // The same write from offset 3000 (middle 8000): 8192 is nearer than 4096.
  EXPECT_EQ(CutWrite(kProcess, 10'000, 3000).kept, 8192 - 3000);
  // A write of two pages from a boundary: cut after the first.
  EXPECT_EQ(CutWrite(kProcess, 8192, 0).kept, 4096);
  // Equally near both: the earlier.
  EXPECT_EQ(CutWrite(kProcess, 8192, 2048).kept, 2048);
  // One boundary only, far from the middle: that one.
  EXPECT_EQ(CutWrite(kProcess, 4000, 4000).kept, 96);
  EXPECT_EQ(CutWrite(kProcess, 4000, 200).kept, 3896);
  // Past 4 GiB.
  EXPECT_EQ(CutWrite(kProcess, 4096, (int64_t{1} << 32) + 10).kept, 4086);
}

TEST(MidCut, UnderProcessAWriteWithinOnePageIsNotCut) {
  for (auto [bytes, offset] :
       {std::pair<int64_t, int64_t>{100, 0}, {4096, 0}, {4096, 8192}, {3000, 1096}, {2, 4094}}) {
    MidCut cut = CutWrite(kProcess, bytes, offset);
    EXPECT_FALSE(cut.cut()) << bytes << " at " << offset;
    EXPECT_EQ(cut.kept, 0);
    EXPECT_EQ(cut.uncut, kUncutOnePage) << bytes << " at " << offset;
  }
  // One byte across the boundary is a cut: 2 bytes at 4095 keep the first.
  EXPECT_EQ(CutWrite(kProcess, 2, 4095).kept, 1);
}

TEST(MidCut, UnderProcessAnUnknownOffsetIsNotCut) {
  MidCut cut = CutWrite(kProcess, 10'000, -1);
  EXPECT_FALSE(cut.cut());
  EXPECT_EQ(cut.uncut, kUncutNoOffset);
}

TEST(MidCut, TheOtherModelsCutInTheMiddleWhereverItFalls) {
  for (PersistenceModel m :
       {PersistenceModel::kTorn, PersistenceModel::kPower, PersistenceModel::kExt4Ordered}) {
    EXPECT_EQ(CutWrite(m, 10'000, 100).kept, 5000) << NameOf(m);
    EXPECT_EQ(CutWrite(m, 118, 0).kept, 59) << NameOf(m);  // within one page
    EXPECT_EQ(CutWrite(m, 9, -1).kept, 4) << NameOf(m);    // offset unknown
    EXPECT_EQ(CutWrite(m, 1, 0).uncut, kUncutTooSmall) << NameOf(m);
  }
}

TEST(MidCut, AWriteWithNoMiddleIsNeverCut) {
  EXPECT_EQ(CutWrite(kProcess, 1, 4095).uncut, kUncutTooSmall);
  EXPECT_EQ(CutWrite(kProcess, 0, 0).uncut, kUncutTooSmall);
  EXPECT_EQ(CutWrite(kProcess, -1, 0).uncut, kUncutNoSize);
  EXPECT_EQ(CutWrite(PersistenceModel::kTorn, -1, 0).uncut, kUncutNoSize);
}

// Whatever the write, a process cut keeps a proper prefix that ends on a page boundary, and
// there is one exactly when a boundary lies strictly inside the write.
RC_GTEST_PROP(MidCut, AProcessCutEndsOnAPageBoundaryInsideTheWrite, ()) {
  const int64_t offset = *rc::gen::inRange<int64_t>(0, int64_t{1} << 40);
  const int64_t bytes = *rc::gen::inRange<int64_t>(2, 5 * kPageBytes);
  MidCut cut = CutWrite(kProcess, bytes, offset);
  bool boundary_inside = (offset / kPageBytes + 1) * kPageBytes < offset + bytes;
  RC_ASSERT(cut.cut() == boundary_inside);
  if (!cut.cut()) {
    RC_ASSERT(cut.uncut == kUncutOnePage);
    return;
  }
  RC_ASSERT(cut.kept > 0);
  RC_ASSERT(cut.kept < bytes);
  RC_ASSERT((offset + cut.kept) % kPageBytes == 0);
  // No boundary inside the write is nearer its middle.
  const int64_t mid = offset + bytes / 2;
  const int64_t distance = std::abs(offset + cut.kept - mid);
  for (int64_t b = (offset / kPageBytes + 1) * kPageBytes; b < offset + bytes; b += kPageBytes)
    RC_ASSERT(std::abs(b - mid) >= distance);
}

}  // namespace
}  // namespace killpoint
