#!/usr/bin/env bash
# Installs what is missing, configures and builds killpoint into build/ (or $KILLPOINT_BUILD_DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
build_dir=${KILLPOINT_BUILD_DIR:-build}
# Ninja for a new folder (it keeps both cores busy across targets); a folder configured before
# keeps its generator, which CMake cannot change in place.
generator=()
if [[ ! -f "$build_dir/CMakeCache.txt" ]]; then generator=(-G Ninja); fi
cmake -S . -B "$build_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo ${KILLPOINT_CMAKE_ARGS:-}
cmake --build "$build_dir" -j "$(nproc)"
