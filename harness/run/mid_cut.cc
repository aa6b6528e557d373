#include "run/mid_cut.h"

namespace killpoint {

MidCut CutWrite(PersistenceModel model, int64_t bytes, int64_t offset) {
  if (bytes < 0) return {0, kUncutNoSize};
  if (bytes < 2) return {0, kUncutTooSmall};
  if (model != PersistenceModel::kProcess) return {bytes / 2, {}};
  if (offset < 0) return {0, kUncutNoOffset};
  int64_t end = offset + bytes;
  int64_t first = (offset / kPageBytes + 1) * kPageBytes;  // the first boundary after offset
  int64_t last = (end - 1) / kPageBytes * kPageBytes;      // the last one before end
  if (first > last) return {0, kUncutOnePage};
  int64_t mid = offset + bytes / 2;
  int64_t below = mid / kPageBytes * kPageBytes, above = below + kPageBytes;
  if (below < first) return {first - offset, {}};
  if (above > last || mid - below <= above - mid) return {below - offset, {}};
  return {above - offset, {}};
}

}  // namespace killpoint
