// Where a kill in the middle of a write cuts it (docs/persistence-models.md, "Kills in the
// middle of a write"). A kill -9 stops a write to a regular file only between pages: the kernel
// copies a write into the page cache page by page and checks for a fatal signal before each
// page, so the prefix a killed process leaves ends at a page boundary of the file. Under
// `process`, whose crash is that kill and nothing more, a write is cut only there; a write that
// crosses no page boundary cannot be cut at all, and the kill falls before it. Under the models
// that simulate a disk (torn), a write may be cut anywhere: the cut is half of its bytes, as it
// always was. Pure: the decision at a hit (run/attempt_state.h) and its tests.
#pragma once

#include <cstdint>
#include <string_view>

#include "scenario/persistence_model.h"

namespace killpoint {

// The page a kill -9 can stop a write at: 4 KiB, x86-64's base page. (A file system with large
// folios stops only at some of these boundaries; the model takes each to be reachable.)
inline constexpr int64_t kPageBytes = 4096;

// Why a planned mid kill was not a cut: the history's kill event says it ("uncut").
inline constexpr std::string_view kUncutOnePage = "one_page";    // no page boundary inside it
inline constexpr std::string_view kUncutNoOffset = "no_offset";  // where it lands is unknown
inline constexpr std::string_view kUncutTooSmall = "too_small";  // 0 or 1 byte: no middle
inline constexpr std::string_view kUncutNoSize = "no_size";      // the hit carried no size
inline constexpr std::string_view kUncutFailed = "failed";  // cut, but no byte reached the file

struct MidCut {
  int64_t kept = 0;             // the bytes of the write that reach the file; 0: not cut
  std::string_view uncut = {};  // when kept is 0: why (one of the kUncut* above)

  bool cut() const { return kept > 0; }
};

// The cut of a write of `bytes` bytes at file offset `offset` (-1: unknown) killed in its
// middle, with `model` applied after the kill.
//   process: the page boundary of the file nearest the write's midpoint among those strictly
//            inside it (the earlier of two equally near), so that 0 < kept < bytes and
//            offset + kept is a multiple of kPageBytes. None inside (a write within one page),
//            or the offset unknown (a shim or supervisor older than protocol v1.7): not cut.
//   others:  bytes / 2, wherever it falls.
// A write of fewer than 2 bytes, or of unknown size, is never cut.
MidCut CutWrite(PersistenceModel model, int64_t bytes, int64_t offset);

}  // namespace killpoint
