#!/usr/bin/env bash
# The syscall shim's cost, side by side: one job (build/bin/kp-fsync-loop, N appends of 64 bytes
# each followed by an fsync) timed as whole runs under every condition below, in rounds: each
# round runs every condition once, in a rotated order, so that drift of the machine (the disk's
# fsync latency above all) spreads over all of them. Prints the median wall time of each
# condition and its ratios. A benchmark, not a test: it asserts nothing and always exits 0 once
# the runs are done.
#
#   job alone            kp-fsync-loop N DIR
#   shim, not armed      LD_PRELOAD=libkillpoint_shim.so, KILLPOINT_CTL unset (pass-through)
#   strace, filtered     strace -f -o /dev/null -e trace=write,fsync,openat,close
#   strace, full record  strace -f -tt -s 0 -o FILE (how ALICE records a job)
#   fiu-run -x           libfiu's preloads (fiu-utils), no fault enabled
#   shim, bare listener  the shim armed (KILLPOINT_CTL, KILLPOINT_WORKDIR) against a 20-line C
#                        listener that answers CONTINUE to every line: the round trip per crash
#                        point alone, the floor of any harness that answers each point over TCP
#   harness, no shim     killpoint run bench/scenarios/fsync-loop-noshim.json: TRIALS trials
#   harness, process     ... fsync-loop-process.json: syscall_points, model process
#   harness, power       ... fsync-loop-power.json: syscall_points, model power
#   harness, power kill  ... fsync-loop-power-kill.json: each trial's first attempt is killed at
#                        its close under the power model, so the durability tracker follows that
#                        whole attempt, and the sandbox is rolled back before the retry
#
# A harness trial without a kill is one attempt of the job (one date, no failpoints), so a
# harness run's time per attempt compares with one run of the job alone. Attempts are counted
# from the run's history (its spawn events), so trials with retries compare too.
#
# Usage: scripts/bench-shim.sh [--repeat R] [--n N] [--trials T] [--dir DIR] [--no-wait]
#   --repeat  rounds (default 5)          --n       write+fsync pairs per run (default 1000)
#   --trials  trials per harness run (5)  --dir     where the job's files and the harness's
#                                                   sandboxes go (default ${TMPDIR:-/tmp});
#                                                   /dev/shm makes fsync free: the shim's worst case
# Builds nothing: build first (KILLPOINT_BUILD_DIR, default build/, needs the targets killpoint,
# killpoint_shim and kp-fsync-loop). Installs strace and fiu-utils when missing (root).
# Waits before each run while a compiler (cc1plus/cc1) runs, and redoes a run during which one
# started: the machines are shared. --no-wait measures anyway (the ratios of a round still
# compare runs made under the same load) and says so in its first line.
set -euo pipefail
cd "$(dirname "$0")/.."

repeat=5 n=1000 trials=5 dir=${TMPDIR:-/tmp} wait=1
while (($#)); do
  case $1 in
    --repeat) repeat=$2; shift 2 ;;
    --n) n=$2; shift 2 ;;
    --trials) trials=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    --no-wait) wait=0; shift ;;
    -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-shim: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

build=${KILLPOINT_BUILD_DIR:-build}
bin=$(cd "$build/bin" 2>/dev/null && pwd) || { echo "bench-shim: no $build/bin: build first" >&2; exit 2; }
job=$bin/kp-fsync-loop shim=$bin/libkillpoint_shim.so killpoint=$bin/killpoint
for f in "$job" "$shim" "$killpoint"; do
  [[ -e $f ]] || { echo "bench-shim: $f missing: build the targets killpoint killpoint_shim kp-fsync-loop" >&2; exit 2; }
done

# strace and fiu-run, from Debian's packages.
missing=()
command -v strace >/dev/null || missing+=(strace)
command -v fiu-run >/dev/null || missing+=(fiu-utils)
if ((${#missing[@]})); then
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
  echo "bench-shim: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

scratch=$(mktemp -d "$dir/kp-bench-shim-XXXXXX")
listener_pid=""
cleanup() {
  [[ -n $listener_pid ]] && kill "$listener_pid" 2>/dev/null
  rm -rf "$scratch"
}
trap cleanup EXIT
mkdir -p "$scratch/alone" "$scratch/listened" "$scratch/tmp" "$scratch/scenarios"

# The bare listener: one connection at a time (the job is one process), CONTINUE to each line.
cat >"$scratch/listener.c" <<'C'
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
int main(void) {
  int l = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a = {0};
  socklen_t len = sizeof a;
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(l, (struct sockaddr*)&a, sizeof a) || listen(l, 8) || getsockname(l, (struct sockaddr*)&a, &len)) return 1;
  printf("%d\n", ntohs(a.sin_port));
  fflush(stdout);
  for (;;) {
    int c = accept(l, NULL, NULL);
    char buf[8192];
    size_t have = 0;
    ssize_t n;
    while (c >= 0 && (n = recv(c, buf + have, sizeof buf - have, 0)) > 0) {
      char* nl;
      for (have += (size_t)n; (nl = memchr(buf, '\n', have)); have -= (size_t)(nl + 1 - buf), memmove(buf, nl + 1, have)) {
        if (send(c, "CONTINUE\n", 9, MSG_NOSIGNAL) != 9) break;
      }
      if (have == sizeof buf) break;
    }
    if (c >= 0) close(c);
  }
}
C
cc -O2 -o "$scratch/listener" "$scratch/listener.c"
"$scratch/listener" >"$scratch/listener.port" &
listener_pid=$!
for _ in $(seq 50); do [[ -s $scratch/listener.port ]] && break; sleep 0.1; done
port=$(cat "$scratch/listener.port")
# The bundled scenarios with the job's N replaced.
for m in noshim process power power-kill; do
  python3 - "bench/scenarios/fsync-loop-$m.json" "$scratch/scenarios/$m.json" "$n" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["job"]["command"] = [s["job"]["command"][0], sys.argv[3]]
json.dump(s, open(sys.argv[2], "w"), indent=2)
PY
done

declare -A label=(
  [alone]="job alone (no shim)"
  [shim-unarmed]="shim loaded, KILLPOINT_CTL unset"
  [strace]="strace -f, 4 calls, to /dev/null"
  [strace-full]="strace -f -tt -s 0 -o FILE (ALICE)"
  [fiu]="fiu-run -x, no fault enabled"
  [shim-listener]="shim armed, bare C listener"
  [harness-noshim]="harness, no shim"
  [harness-process]="harness, shim, process model"
  [harness-power]="harness, shim, power model"
  [harness-power-kill]="harness, shim, power model, killed"
)
names=(alone shim-unarmed strace strace-full fiu shim-listener harness-noshim harness-process harness-power
       harness-power-kill)

run_condition() {  # the command of one condition; the job's environment has no KILLPOINT_*
  local c=$1 out=$scratch/out
  local clean=(env -u KILLPOINT_CTL -u KILLPOINT_WORKDIR -u LD_PRELOAD)
  case $c in
    alone) "${clean[@]}" "$job" "$n" "$scratch/alone" ;;
    shim-unarmed) "${clean[@]}" LD_PRELOAD="$shim" "$job" "$n" "$scratch/alone" ;;
    strace) "${clean[@]}" strace -f -o /dev/null -e trace=write,fsync,openat,close "$job" "$n" "$scratch/alone" ;;
    strace-full) "${clean[@]}" strace -f -tt -s 0 -o "$scratch/strace.txt" "$job" "$n" "$scratch/alone" ;;
    fiu) "${clean[@]}" fiu-run -x "$job" "$n" "$scratch/alone" ;;
    shim-listener)
      "${clean[@]}" LD_PRELOAD="$shim" KILLPOINT_CTL="127.0.0.1:$port" KILLPOINT_WORKDIR="$scratch/listened" \
        "$job" "$n" "$scratch/listened" ;;
    harness-*)
      rm -rf "$out"
      "${clean[@]}" TMPDIR="$scratch/tmp" "$killpoint" run "$scratch/scenarios/${c#harness-}.json" \
        --trials "$trials" --quiet --out "$out" ;;
  esac
}

compilers() { if ((wait)); then pgrep -c -x 'cc1plus|cc1' 2>/dev/null || true; else echo 0; fi; }
wait_idle() {
  local waited=0
  while (($(compilers) > 0)); do
    ((waited == 0)) && echo "  (a compiler is running: waiting)" >&2
    sleep 5
    waited=$((waited + 5))
    if ((waited >= 900)); then echo "  (still busy after 15 min: measuring anyway)" >&2; return; fi
  done
}

raw=$scratch/times.tsv
: >"$raw"
echo "machine: $(nproc) cores, $(free -g | awk '/^Mem:/ {print $2}') GiB, Linux $(uname -r)," \
  "$(df -T "$scratch" | awk 'NR == 2 {print $2}') at $dir, $(date -u +%Y-%m-%d)"
((wait)) || echo "--no-wait: measured while other work ran on the machine"
echo "job: $n write+fsync pairs of 64 bytes; harness runs: $trials trials of one attempt; $repeat rounds"
count=${#names[@]}
for round in $(seq 1 "$repeat"); do
  line="round $round:"
  for k in $(seq 0 $((count - 1))); do
    c=${names[$(((k + round - 1) % count))]}
    for try in 1 2 3; do
      wait_idle
      start=$(date +%s.%N)
      if ! run_condition "$c" >"$scratch/last.out" 2>&1; then
        echo "bench-shim: condition '$c' failed:" >&2
        tail -20 "$scratch/last.out" >&2
        exit 3
      fi
      end=$(date +%s.%N)
      (($(compilers) == 0)) && break
      echo "  ($c: a compiler started during the run: again)" >&2
    done
    secs=$(echo "$end - $start" | bc -l 2>/dev/null || python3 -c "print($end - $start)")
    attempts=1
    if [[ $c == harness-* ]]; then
      attempts=$(cat "$scratch"/out/*/history.jsonl | grep -c '"type":"spawn"' || true)
    fi
    printf '%s\t%s\t%s\n' "$c" "$secs" "$attempts" >>"$raw"
    line+=$(printf ' %s %.2fs' "$c" "$secs")
  done
  echo "$line"
done

# The table: medians, ratios against the job alone and, for the harness, against the harness
# without the shim; the cost of one crash point from the difference.
labels=$(for c in "${names[@]}"; do printf '%s\t%s\n' "$c" "${label[$c]}"; done)
python3 - "$raw" "$n" "$trials" "$labels" <<'PY'
import statistics, sys
raw, n, trials = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
labels = dict(line.split("\t", 1) for line in sys.argv[4].splitlines())
times, attempts = {}, {}
for line in open(raw):
    c, s, a = line.split("\t")
    times.setdefault(c, []).append(float(s))
    attempts.setdefault(c, []).append(int(a))
med = {c: statistics.median(t) for c, t in times.items()}
# Per attempt: the median of each run's time over its attempts (the same every run: seeded).
per_attempt = {c: statistics.median(t / a for t, a in zip(times[c], attempts[c])) for c in med}
alone, hbase = per_attempt["alone"], per_attempt["harness-noshim"]
print()
print(f"| condition | median wall (s) | attempts a run | per job run (s) | vs job alone | vs harness, no shim | runs: min-max (s) |")
print(f"|---|---|---|---|---|---|---|")
for c in labels:
    if c not in med:
        continue
    vs_h = f"{per_attempt[c] / hbase:.2f}x" if c.startswith("harness") else ""
    print(f"| {labels[c]} | {med[c]:.3f} | {attempts[c][0]} | {per_attempt[c]:.3f} | {per_attempt[c] / alone:.2f}x | {vs_h} "
          f"| {min(times[c]):.3f}-{max(times[c]):.3f} |")
points = 2 * n + 2  # open, N writes, N fsyncs, close
print()
print(f"job alone: {alone / n * 1e6:.0f} us per write+fsync pair (process start included)")
floor = per_attempt["shim-listener"] - alone
print(f"bare listener: {floor * 1e3:+.0f} ms per run over the job alone"
      f" = {floor / points * 1e6:.1f} us per crash point ({points} points)")
for m in ("process", "power", "power-kill"):
    extra = per_attempt[f"harness-{m}"] - hbase
    print(f"{m} model: {extra * 1e3:+.0f} ms per attempt over the harness without shim"
          f" = {extra / points * 1e6:.1f} us per crash point ({points} points)")
goals = {"process": 1.10, "power": 1.5, "power-kill": 1.5}
def verdict(r, goal):
    return "met" if r <= goal else f"missed by {(r / goal - 1) * 100:.0f}%"
for m, goal in goals.items():
    r_h = per_attempt[f"harness-{m}"] / hbase
    r_a = per_attempt[f"harness-{m}"] / alone
    print(f"goal {m} model <= {goal:.2f}x: {r_h:.2f}x vs harness without shim ({verdict(r_h, goal)}),"
          f" {r_a:.2f}x vs job alone ({verdict(r_a, goal)})")
print()
print("raw (s): " + "; ".join(f"{c} " + " ".join(f"{t:.3f}" for t in times[c]) for c in labels if c in times))
PY
