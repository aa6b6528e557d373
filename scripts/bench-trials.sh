#!/usr/bin/env bash
# Whole-run throughput of the bundled suite against the physical limit (issue 8). Each round
# runs `killpoint run scenarios` and then kp-bare-loop over that run's output: the same job
# attempts with the same arguments, spawned with nothing else (bench/bare_loop.cc). Prints per
# round the trials, attempts and seconds of both and the ratio killpoint / bare loop (goal:
# 1.15x at most) and of their CPU times, then the medians, and the scenarios that cost most
# over their bare loop.
# Usage: scripts/bench-trials.sh [ROUNDS] [extra killpoint run arguments...]
#   e.g. scripts/bench-trials.sh 3 --real-disk     (sandboxes on the disk, real fsyncs)
#        KILLPOINT_SCENARIOS=bench/scenarios/memory-flat.json scripts/bench-trials.sh 3 --trials 2000
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-3}
shift || true
build=${KILLPOINT_BUILD_DIR:-build}
bin=$build/bin/killpoint
[[ -x $bin && -x $build/bin/kp-bare-loop ]] || { echo "build first: bash scripts/build.sh" >&2; exit 2; }
bare_args=()
for a in "$@"; do [[ $a == --real-disk ]] && bare_args+=(--real-disk); done
out=$(mktemp -d)
# On a failure (a scenario that does not load, a loop that cannot start), what the two said.
trap 'rc=$?; ((rc == 0)) || tail -20 "$out/stderr" >&2 2>/dev/null; rm -rf "$out"' EXIT
echo "machine: $(nproc) cores, $(uname -r); killpoint run ${KILLPOINT_SCENARIOS:-scenarios} $*"
# CPU seconds (user + sys of the command and every process it waited for, bash's `time`): what
# the work costs, which a busy machine inflates far less than the wall time.
TIMEFORMAT='%3R %3U %3S'
timed() {  # TIMES STDOUT COMMAND...: runs COMMAND, its stdout to STDOUT, "wall user sys" to TIMES
  local times=$1 stdout=$2
  shift 2
  { time "$@" >"$stdout" 2>>"$out/stderr"; } 2>"$times" || return  # the caller's set -e exits
}
for i in $(seq 1 "$rounds"); do
  timed "$out/time-run$i" /dev/null "$bin" run ${KILLPOINT_SCENARIOS:-scenarios} --quiet --out "$out/run$i" "$@" || true
  timed "$out/time-bare$i" "$out/bare$i.json" "$build/bin/kp-bare-loop" "$out/run$i" "${bare_args[@]}"
  python3 - "$out/run$i" "$out/time-run$i" "$out/bare$i.json" "$out/time-bare$i" >> "$out/rounds.tsv" <<'PY'
import json, sys
r = json.load(open(sys.argv[1] + "/results.json"))
wall, user, sys_ = map(float, open(sys.argv[2]).read().split())
bare = json.load(open(sys.argv[3]))
_, buser, bsys = map(float, open(sys.argv[4]).read().split())
print(f"{r['trials']}\t{bare['attempts']}\t{wall:.3f}\t{bare['seconds']:.3f}\t{user + sys_:.3f}\t{buser + bsys:.3f}")
PY
  tail -1 "$out/rounds.tsv" | awk -F'\t' '{printf "round: %d trials, %d attempts: killpoint %.2f s (%.1f trials/s), bare loop %.2f s: %.2fx; CPU %.2f s against %.2f s: %.2fx\n", $1, $2, $3, $1/$3, $4, $3/$4, $5, $6, $5/$6}'
done
python3 - "$out/rounds.tsv" <<'PY'
import statistics, sys
rows = [list(map(float, l.split("\t"))) for l in open(sys.argv[1])]
k = statistics.median(r[2] for r in rows)
b = statistics.median(r[3] for r in rows)
kc = statistics.median(r[4] for r in rows)
bc = statistics.median(r[5] for r in rows)
print(f"median of {len(rows)}: killpoint {k:.2f} s, bare loop {b:.2f} s, ratio {k / b:.2f}x (goal: 1.15x at most); "
      f"CPU {kc:.2f} s against {bc:.2f} s: {kc / bc:.2f}x")
PY
# Where the difference is: the scenarios of the last round that cost most over their bare loop,
# and those the loop took longer for (it runs a killed attempt to its end, and waits out the
# waits for a lock the jobs reported, docs/faults.md).
python3 - "$out/run$rounds/results.json" "$out/bare$rounds.json" <<'PY'
import json, sys
run = {s["name"]: s for s in json.load(open(sys.argv[1]))["scenarios"]}
loop = json.load(open(sys.argv[2]))
bare = loop.get("scenarios", {})
print(f"the bare loop's own waiting (last round): pauses and holds {loop.get('held_ms', 0) / 1000:.2f} s, "
      f"the jobs' reported waits for a lock {loop.get('waited_ms', 0) / 1000:.2f} s")
rows = sorted(((s["elapsed_s"] - bare.get(n, 0.0), n, s["elapsed_s"], bare.get(n, 0.0), s["trials"])
               for n, s in run.items()), reverse=True)
if len(rows) > 1:
    # The loop runs an attempt the run killed to its end (its backoff, its publish): on suites
    # with kills it does more of the jobs' work than the run did. The pessimistic ratio counts
    # each scenario the loop took longer for as taking it no longer than killpoint.
    k = sum(r[2] for r in rows)
    floor = sum(min(r[2], r[3]) for r in rows)
    print(f"pessimistic ratio (last round): killpoint {k:.2f} s over {floor:.2f} s: {k / max(floor, 1e-9):.2f}x")
    print("most over the bare loop (last round): scenario, trials, killpoint s, bare s, difference")
    for d, n, k, b, t in rows[:8]:
        print(f"  {n:<48} {t:>5} {k:8.2f} {b:8.2f} {d:+8.2f}")
    under = [r for r in rows[8:] if r[0] < 0][-5:]
    if under:
        print("most under the bare loop (last round):")
        for d, n, k, b, t in reversed(under):
            print(f"  {n:<48} {t:>5} {k:8.2f} {b:8.2f} {d:+8.2f}")
PY
