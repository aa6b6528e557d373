// A small deterministic random source for plans. std::mt19937 is portable but the standard
// distributions are not (libstdc++ and libc++ draw differently), so plans draw through this.
#pragma once

#include <cstdint>
#include <string_view>

namespace killpoint {

// SplitMix64: tiny state, good mixing, identical output on every platform.
class PlanRng {
 public:
  explicit PlanRng(uint64_t seed) : state_(seed) {}

  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }

  // Uniform in [0, n) without modulo bias; n must be > 0.
  uint64_t Below(uint64_t n) {
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t x;
    do x = Next();
    while (x >= limit);
    return x % n;
  }

  // True with probability p (53-bit resolution).
  bool Chance(double p) { return static_cast<double>(Next() >> 11) * 0x1.0p-53 < p; }

 private:
  uint64_t state_;
};

// FNV-1a, to fold a scenario name into a seed.
inline uint64_t HashName(std::string_view s) {
  uint64_t h = 0xCBF29CE484222325ULL;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001B3ULL;
  return h;
}

}  // namespace killpoint
