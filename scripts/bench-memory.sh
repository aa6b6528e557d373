#!/usr/bin/env bash
# Peak resident memory of `killpoint run` as the number of trials grows (issue 8: "memory stays
# flat as trials grow"). Runs bench/scenarios/memory-flat.json (one attempt of a tiny job per
# trial) at each trial count given (default: 1000 100000), samples the harness's VmRSS every
# 0.2 s from /proc, and prints per run: trials, wall time, peak RSS (VmHWM), and the RSS at a
# tenth and at the end of the run, so that growth shows as a difference.
# Usage: scripts/bench-memory.sh [TRIALS...]   (extra killpoint options in $KILLPOINT_ARGS)
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${KILLPOINT_BUILD_DIR:-build}/bin/killpoint
[[ -x $bin ]] || { echo "build first: bash scripts/build.sh" >&2; exit 2; }
counts=("$@")
[[ ${#counts[@]} -gt 0 ]] || counts=(1000 100000)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "machine: $(nproc) cores, $(uname -r); goal: peak RSS under 64 MiB and flat"
for n in "${counts[@]}"; do
  python3 - "$bin" "$n" "$out/run-$n" ${KILLPOINT_ARGS:-} <<'PY'
import subprocess, sys, time
binary, n, out, extra = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
cmd = [binary, "run", "bench/scenarios/memory-flat.json", "--trials", str(n), "--quiet", "--out", out] + extra
start = time.monotonic()
p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
samples = []  # (seconds, VmRSS KiB)
hwm = 0
while p.poll() is None:
    try:
        with open(f"/proc/{p.pid}/status") as f:
            fields = dict(line.split(":", 1) for line in f if ":" in line)
        samples.append((time.monotonic() - start, int(fields["VmRSS"].split()[0])))
        hwm = max(hwm, int(fields["VmHWM"].split()[0]))
    except (FileNotFoundError, ProcessLookupError, KeyError, ValueError):
        pass
    time.sleep(0.2)
wall = time.monotonic() - start
if p.returncode != 0:
    sys.exit(f"killpoint run exited {p.returncode}: {' '.join(cmd)}")
if not samples:
    sys.exit("the run ended before one sample of its memory was taken")
tenth = samples[len(samples) // 10][1]
last = samples[-1][1]
print(f"{n:>7} trials  {wall:8.1f} s  {n / wall:7.1f} trials/s  peak RSS {hwm / 1024:6.1f} MiB"
      f"  RSS at 10%: {tenth / 1024:6.1f} MiB, at the end: {last / 1024:6.1f} MiB  ({len(samples)} samples)")
PY
done
