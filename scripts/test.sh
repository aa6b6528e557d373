#!/usr/bin/env bash
# Builds killpoint with warnings as errors and passes every test (unit, property, end to end),
# then passes them again under AddressSanitizer + UndefinedBehaviorSanitizer and
# ThreadSanitizer (scripts/sanitize.sh), as CI does (.ci/run calls this script); docs/hardening.md
# "Cost in CI" has what that costs. KILLPOINT_SANITIZERS=0 skips the sanitizers (local
# development: they add two builds of their own).
set -euo pipefail
cd "$(dirname "$0")/.."
KILLPOINT_CMAKE_ARGS="-DKILLPOINT_WERROR=ON ${KILLPOINT_CMAKE_ARGS:-}" bash scripts/build.sh
ctest --test-dir "${KILLPOINT_BUILD_DIR:-build}" --output-on-failure -j "$(nproc)"
case "${KILLPOINT_SANITIZERS:-1}" in
  0) echo "test: KILLPOINT_SANITIZERS=0: the sanitizer builds are skipped" ;;
  1) bash scripts/sanitize.sh ;;
  *) echo "test: KILLPOINT_SANITIZERS must be 0 or 1, not '$KILLPOINT_SANITIZERS'" >&2; exit 2 ;;
esac
