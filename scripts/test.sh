#!/usr/bin/env bash
# Builds killpoint with warnings as errors and passes every test (unit, property, end to end),
# then again under AddressSanitizer + UndefinedBehaviorSanitizer and ThreadSanitizer
# (scripts/sanitize.sh; KILLPOINT_SANITIZERS=0 skips them when iterating locally).
set -euo pipefail
cd "$(dirname "$0")/.."
KILLPOINT_CMAKE_ARGS="-DKILLPOINT_WERROR=ON ${KILLPOINT_CMAKE_ARGS:-}" bash scripts/build.sh
ctest --test-dir "${KILLPOINT_BUILD_DIR:-build}" --output-on-failure -j "$(nproc)"
if [[ "${KILLPOINT_SANITIZERS:-1}" != 0 ]]; then
  bash scripts/sanitize.sh
fi
