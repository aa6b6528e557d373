#!/usr/bin/env bash
# README's test command: builds killpoint with warnings as errors and passes every test (unit,
# property, end to end) in build/: about 6 to 12 minutes cold on two cores (docs/ci.md).
# `ctest --test-dir build -L unit` is the fast loop after a build (under a minute).
# The sanitizer passes are scripts/sanitize.sh, which .ci/run calls after this.
set -euo pipefail
cd "$(dirname "$0")/.."
TIMEFORMAT="test: %lR wall, %lU user + %lS sys"
echo "test: build"
# The test binaries' own sources at -O1 (KILLPOINT_TEST_OPTIMIZATION, tests/CMakeLists.txt):
# about 27% less compile time than -O2 for a test's translation unit (16.4 s against 12.0 s of
# CPU for scenario_test), with GCC's flow analysis and its warnings still on; killpoint, the
# jobs and the shim keep -O2 (docs/ci.md).
time KILLPOINT_CMAKE_ARGS="-DKILLPOINT_WERROR=ON -DKILLPOINT_TEST_OPTIMIZATION=-O1 ${KILLPOINT_CMAKE_ARGS:-}" bash scripts/build.sh
echo "test: every test"
time ctest --test-dir "${KILLPOINT_BUILD_DIR:-build}" --output-on-failure -j "$(nproc)"
