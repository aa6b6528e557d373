#!/usr/bin/env bash
# Builds killpoint with warnings as errors and passes every test (unit, property, end to end),
# then passes them again under ThreadSanitizer and AddressSanitizer + UndefinedBehaviorSanitizer
# (scripts/sanitize.sh): about an hour in all on two cores (docs/hardening.md, "Cost in CI").
# KILLPOINT_SANITIZERS=0 skips the sanitizer builds, for a quick pass on a workstation; CI
# runs them.
set -euo pipefail
cd "$(dirname "$0")/.."
KILLPOINT_CMAKE_ARGS="-DKILLPOINT_WERROR=ON ${KILLPOINT_CMAKE_ARGS:-}" bash scripts/build.sh
ctest --test-dir "${KILLPOINT_BUILD_DIR:-build}" --output-on-failure -j "$(nproc)"
case "${KILLPOINT_SANITIZERS:-1}" in
  0) echo "test: the sanitizer builds are skipped (KILLPOINT_SANITIZERS=0)" ;;
  1) bash scripts/sanitize.sh ;;
  *) echo "test: KILLPOINT_SANITIZERS must be 0 or 1, not '$KILLPOINT_SANITIZERS'" >&2; exit 2 ;;
esac
