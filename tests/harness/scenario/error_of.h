// The message of a parse that must fail (and a failure of the test if it did not).
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "scenario/scenario.h"
#include "util/result.h"

namespace killpoint {

inline std::string ErrorOf(const Result<Scenario>& r) {
  EXPECT_FALSE(r);
  return r ? "" : r.error().message;
}

}  // namespace killpoint
