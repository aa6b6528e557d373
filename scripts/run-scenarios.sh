#!/usr/bin/env bash
# The main job: builds killpoint and runs the bundled scenarios against the reference jobs.
# Writes out/results.json, out/report.html and the per-scenario histories; exits as killpoint does.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
exec build/bin/killpoint run scenarios --out out "$@"
