// What every fuzz target asserts beyond "no crash": a broken property aborts, and libFuzzer
// saves the input that broke it.
#pragma once

#include <cstdio>
#include <cstdlib>

#define KP_FUZZ_CHECK(cond)                                                                  \
  do {                                                                                       \
    if (!(cond)) {                                                                           \
      std::fprintf(stderr, "fuzz property failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
      std::abort();                                                                          \
    }                                                                                        \
  } while (0)
