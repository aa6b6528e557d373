#!/usr/bin/env bash
# How a run's cost grows with its number of scenarios (issue 34: 2,000 scenarios took 8 minutes
# because results.json was rewritten whole after each one). Makes N trivial scenarios (the job
# is `true`, one date, one trial, no kill), runs `killpoint run` on the folder for each N, and
# prints the wall time, the time per scenario and its ratio to the smallest N's. Linear: the
# per-scenario time stays flat (ratios near 1); quadratic: it grows with N.
#
#   bash scripts/bench-scenarios.sh                    # N = 250 500 1000 2000
#   bash scripts/bench-scenarios.sh 100 400            # other sizes
#   KILLPOINT=/tmp/kp-bin/killpoint bash scripts/bench-scenarios.sh
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
killpoint=${KILLPOINT:-$root/build/bin/killpoint}
[[ -x $killpoint ]] || { echo "bench-scenarios: no killpoint at $killpoint (build it first)" >&2; exit 2; }
sizes=("$@")
((${#sizes[@]})) || sizes=(250 500 1000 2000)
work=$(mktemp -d /tmp/killpoint-bench-scenarios.XXXXXX)
trap 'rm -rf "$work"' EXIT

printf '%8s %10s %14s %8s\n' scenarios wall_s ms_per_scenario ratio
first=""
for n in "${sizes[@]}"; do
  dir=$work/scenarios-$n
  mkdir -p "$dir"
  for ((i = 0; i < n; i++)); do
    printf '{"name": "bench/s%05d", "job": {"command": ["true"]}, "dates": ["2026-11-01"], "invariants": {"must_hold": ["converges"]}, "trials": 1}\n' "$i" > "$dir/s$i.json"
  done
  start=$(date +%s.%N)
  "$killpoint" run "$dir" --out "$work/out-$n" --quiet > "$work/log-$n" 2>&1 || {
    echo "bench-scenarios: killpoint run failed for N=$n (exit $?): $work/log-$n" >&2; cat "$work/log-$n" >&2; exit 1; }
  end=$(date +%s.%N)
  per=$(awk -v s="$start" -v e="$end" -v n="$n" 'BEGIN { printf "%.3f", 1000 * (e - s) / n }')
  [[ -n $first ]] || first=$per
  awk -v s="$start" -v e="$end" -v n="$n" -v per="$per" -v first="$first" \
    'BEGIN { printf "%8d %10.1f %14.2f %8.2f\n", n, e - s, per, per / first }'
done
