#!/usr/bin/env bash
# Whole-run throughput of the bundled suite: runs `killpoint run scenarios` REPEAT times
# (default 3) and prints trials, seconds and trials per second of each run, from results.json.
# Usage: scripts/bench-trials.sh [REPEAT] [extra killpoint run arguments...]
set -euo pipefail
cd "$(dirname "$0")/.."
repeat=${1:-3}
shift || true
bin=${KILLPOINT_BUILD_DIR:-build}/bin/killpoint
[[ -x $bin ]] || { echo "build first: bash scripts/build.sh" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "machine: $(nproc) cores, $(uname -r)"
for i in $(seq 1 "$repeat"); do
  start=$(date +%s.%N)
  "$bin" run scenarios --quiet --out "$out/run$i" "$@" || true
  end=$(date +%s.%N)
  python3 - "$out/run$i/results.json" "$start" "$end" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
wall = float(sys.argv[3]) - float(sys.argv[2])
print(f"run: {r['trials']} trials in {wall:.2f}s wall = {r['trials'] / wall:.1f} trials/s")
for s in r["scenarios"]:
    print(f"  {s['name']:<32} {s['trials']:>5} trials {s['elapsed_s']:6.2f}s {s['trials'] / s['elapsed_s']:6.1f}/s")
PY
done
