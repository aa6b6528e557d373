// For the framing tests (pg, mysql, redis): a stream fed to a parser in pieces.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "service/client_framing.h"

namespace killpoint {

// `stream` fed in pieces cut at `cuts` (sorted offsets); the ends found, as offsets in `stream`.
inline std::vector<size_t> FeedCut(ClientFraming& p, const std::string& stream,
                                   std::vector<size_t> cuts) {
  std::vector<size_t> ends;
  cuts.push_back(stream.size());
  size_t from = 0;
  for (size_t cut : cuts) {
    if (cut < from) continue;
    for (size_t end : p.Feed(std::string_view(stream).substr(from, cut - from)))
      ends.push_back(from + end);
    from = cut;
  }
  return ends;
}

// Every offset inside `stream`: fed one byte at a time.
inline std::vector<size_t> EveryByte(const std::string& stream) {
  std::vector<size_t> cuts;
  for (size_t i = 1; i < stream.size(); ++i) cuts.push_back(i);
  return cuts;
}

}  // namespace killpoint
