#!/usr/bin/env bash
# Installs what is missing, configures and builds killpoint into build/ (or $KILLPOINT_BUILD_DIR).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
build_dir=${KILLPOINT_BUILD_DIR:-build}
cmake -S . -B "$build_dir" -DCMAKE_BUILD_TYPE=RelWithDebInfo ${KILLPOINT_CMAKE_ARGS:-}
cmake --build "$build_dir" -j "$(nproc)"
