#!/usr/bin/env bash
# The interception backends' cost, side by side: the LD_PRELOAD shim (--intercept preload,
# docs/syscall-shim.md) and the seccomp supervisor (--intercept seccomp, docs/supervisor.md).
# One job (build/bin/kp-fsync-loop, N appends of 64 bytes each followed by an fsync) timed as
# whole runs under every condition below, in rounds: each round runs every condition once, in a
# rotated order, so that drift of the machine (the disk's fsync latency above all) spreads over
# all of them. Prints the median wall time of each condition, its ratios, the cost of one crash
# point under each backend, and a verdict for each goal below.
#
#   job alone            kp-fsync-loop N DIR
#   shim, not armed      LD_PRELOAD=libkillpoint_shim.so, KILLPOINT_CTL unset (pass-through)
#   strace, filtered     strace -f -o /dev/null -e trace=write,fsync,openat,close
#   strace, full record  strace -f -tt -s 0 -o FILE (how ALICE records a job)
#   fiu-run -x           libfiu's preloads (fiu-utils), no fault enabled
#   shim, bare listener  the shim armed (KILLPOINT_CTL, KILLPOINT_WORKDIR) against a 20-line C
#                        listener that answers CONTINUE to every line: the round trip per crash
#                        point alone, the floor of any harness that answers each point over TCP
#   supervisor, bare     killpoint-supervise -- kp-fsync-loop against the same listener: every
#     listener           point is a notification, the supervisor's own call and a round trip
#   harness, no          killpoint run bench/scenarios/fsync-loop-noshim.json: TRIALS trials, no
#     interception       syscall points, neither backend loaded: the base of both
#   harness, process     ... fsync-loop-process.json: syscall_points, model process, the one kill
#                        planned at a named point the job never passes: every syscall point is
#                        reported one way, nothing waits, nothing is killed
#   harness, power       ... fsync-loop-power.json: the same under the power model: the planned
#                        power kill makes the durability tracker follow the whole attempt (the
#                        shim keeps each fsync in its durability journal and waits at no point;
#                        the supervisor keeps no journal and waits at every op but writes:
#                        open, each fsync, close), nothing is killed
#   harness, power kill  ... fsync-loop-power-kill.json: each trial's first attempt is killed at
#                        its close under the power model, so the durability tracker follows that
#                        whole attempt, and the sandbox is rolled back before the retry; the
#                        retry plans no kill and is not tracked (as in process), so per attempt
#                        this averages a tracked, killed attempt and a plain one
# Each of the three last runs under both backends: harness-process, harness-power and
# harness-power-kill with --intercept preload (the shim), the same names with -seccomp with
# --intercept seccomp (the supervisor). The backend is always passed: the default (seccomp where
# the kernel allows it) does not change what a condition measures. Where the kernel has no
# seccomp user notification (docs/supervisor.md, "Limits") the -seccomp conditions and the
# supervisor's listener are left out, with the harness's reason, and their goals are "not
# compared".
#
# Like with like: every condition writes on the same storage, DIR: the job's file, the bare
# listener's, and the harness's sandboxes (--sandbox-root) and results folder. Every fsync
# reaches the kernel in every condition: the harness runs with --real-disk (by default either
# backend answers a sandbox's fsyncs itself, which the job alone and the harness without
# interception do not). The harness runs one trial at a time (--jobs 1), as the job alone runs.
# A harness trial without a kill is one attempt of the job (one date), so a harness run's time
# per attempt compares with one run of the job alone: its scenario's elapsed time (results.json:
# the trials, without the harness's own start and its reports, a cost per run and not per
# attempt) over the attempts counted in its history (spawn events), so the killed trials'
# retries count too. Before the rounds, one harness trial kept with --keep shows that its
# sandbox really is under DIR.
#
# Goals, each a ratio of time per attempt against the harness without interception, same
# storage; each for both backends (the goal's name, and the same with -seccomp):
#   process     harness, process model, no kill fires        <= 1.10x
#   power       harness, power model, tracked, no kill fires <= 1.5x
#   power-kill  harness, power model, killed and retried     <= 1.5x   (issue 19)
# A ratio or goal whose two sides were not both measured, on the same storage, in this run is
# printed as "not compared: WHY", never as a figure or a verdict.
#
# Usage: scripts/bench-shim.sh [--repeat R] [--n N] [--trials T] [--dir DIR] [--only C,...]
#                              [--goal G]... [--no-wait]
#   --repeat  rounds (default 5)          --n       write+fsync pairs per run (default 1000)
#   --trials  trials per harness run (5)  --dir     the storage every condition writes on
#                                                   (default /dev/shm, the harness's default for
#                                                   its sandboxes: tmpfs, fsync is free, the
#                                                   backends' worst case; a disk folder for real
#                                                   fsyncs)
#   --only    the conditions to run, by the names the rounds print (default: all)
#   --goal    a goal to check (process, power, power-kill, process-seccomp, power-seccomp,
#             power-kill-seccomp, all; repeatable). Default: every goal whose two sides run. A
#             verdict (met, missed) needs --repeat 3 or more; with fewer the ratio is printed
#             without one. A goal asked for with --goal that got no verdict, or any goal whose
#             sides ran on different storage, makes the script exit 4 after its report.
# Exit: 0 when every goal checked was compared (met or missed: a benchmark asserts nothing),
# 2 bad usage or no build, 3 a condition failed, 4 a goal was not compared (above).
# Builds nothing: build first (KILLPOINT_BUILD_DIR, default build/, needs the targets killpoint,
# killpoint_shim, killpoint-supervise and kp-fsync-loop). Installs strace and fiu-utils when
# missing (root). Waits before each run while a compiler (cc1plus/cc1) runs, and redoes a run
# during which one started: the machines are shared. --no-wait measures anyway (the ratios of a
# round still compare runs made under the same load) and says so in its first line.
set -euo pipefail
cd "$(dirname "$0")/.."

all_names=(alone shim-unarmed strace strace-full fiu shim-listener supervisor-listener harness-noshim
           harness-process harness-power harness-power-kill
           harness-process-seccomp harness-power-seccomp harness-power-kill-seccomp)
default_dir=/dev/shm
[[ -d $default_dir && -w $default_dir ]] || default_dir=${TMPDIR:-/tmp}
repeat=5 n=1000 trials=5 dir=$default_dir wait=1 only="" goals_asked=()
while (($#)); do
  case $1 in
    --repeat) repeat=$2; shift 2 ;;
    --n) n=$2; shift 2 ;;
    --trials) trials=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --goal) goals_asked+=("$2"); shift 2 ;;
    --no-wait) wait=0; shift ;;
    -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-shim: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
names=("${all_names[@]}")
if [[ -n $only ]]; then
  IFS=, read -r -a names <<<"$only"
  for c in "${names[@]}"; do
    [[ " ${all_names[*]} " == *" $c "* ]] || { echo "bench-shim: --only: no condition '$c' (${all_names[*]})" >&2; exit 2; }
  done
fi
for g in "${goals_asked[@]}"; do
  [[ $g =~ ^(process|power|power-kill)(-seccomp)?$|^all$ ]] ||
    { echo "bench-shim: --goal: no goal '$g' (process, power, power-kill, each also with -seccomp; all)" >&2; exit 2; }
done
[[ -d $dir && -w $dir ]] || { echo "bench-shim: --dir $dir: not a writable folder" >&2; exit 2; }
runs() { [[ " ${names[*]} " == *" $1 "* ]]; }

build=${KILLPOINT_BUILD_DIR:-build}
bin=$(cd "$build/bin" 2>/dev/null && pwd) || { echo "bench-shim: no $build/bin: build first" >&2; exit 2; }
while read -r v; do unset "$v"; done < <(compgen -e | grep '^KILLPOINT_' || true)
unset LD_PRELOAD
job=$bin/kp-fsync-loop shim=$bin/libkillpoint_shim.so killpoint=$bin/killpoint supervise=$bin/killpoint-supervise
for f in "$job" "$shim" "$killpoint" "$supervise"; do
  [[ -e $f ]] || { echo "bench-shim: $f missing: build the targets killpoint killpoint_shim killpoint-supervise" \
    "kp-fsync-loop" >&2; exit 2; }
done

# strace and fiu-run, from Debian's packages, when a condition needs them.
missing=()
if runs strace || runs strace-full; then command -v strace >/dev/null || missing+=(strace); fi
if runs fiu; then command -v fiu-run >/dev/null || missing+=(fiu-utils); fi
if ((${#missing[@]})); then
  SUDO=""
  if [[ $(id -u) -ne 0 ]]; then SUDO="sudo"; fi
  echo "bench-shim: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

scratch=$(mktemp -d "$dir/kp-bench-shim-XXXXXX")
scratch=$(cd "$scratch" && pwd -P)
listener_pid=""
cleanup() {
  [[ -n $listener_pid ]] && kill "$listener_pid" 2>/dev/null
  rm -rf "$scratch"
}
trap cleanup EXIT
mkdir -p "$scratch/alone" "$scratch/listened" "$scratch/sandboxes" "$scratch/tmp" "$scratch/scenarios"

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
if runs shim-listener || runs supervisor-listener; then
  cc -O2 -o "$scratch/listener" "$scratch/listener.c"
  "$scratch/listener" >"$scratch/listener.port" &
  listener_pid=$!
  for _ in $(seq 50); do [[ -s $scratch/listener.port ]] && break; sleep 0.1; done
  port=$(cat "$scratch/listener.port")
fi
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
  [supervisor-listener]="supervisor, bare C listener"
  [harness-noshim]="harness, no interception"
  [harness-process]="harness, shim, process model, no kill fires"
  [harness-power]="harness, shim, power model, tracked, no kill fires"
  [harness-power-kill]="harness, shim, power model, killed and retried"
  [harness-process-seccomp]="harness, supervisor, process model, no kill fires"
  [harness-power-seccomp]="harness, supervisor, power model, tracked, no kill fires"
  [harness-power-kill-seccomp]="harness, supervisor, power model, killed and retried"
)
# The harness's options, the same in every harness condition: its sandboxes under DIR, real
# fsyncs, one trial at a time.
harness_opts=(--trials "$trials" --jobs 1 --real-disk --sandbox-root "$scratch/sandboxes" --quiet)

# The command of one condition, run straight from this shell (no `env` in front, whose exec
# would count in the job's time): the script's environment has no KILLPOINT_* and no LD_PRELOAD
# (unset above), so only what a condition sets reaches the job.
run_condition() {
  local c=$1 out=$scratch/out
  case $c in
    alone) "$job" "$n" "$scratch/alone" ;;
    shim-unarmed) LD_PRELOAD="$shim" "$job" "$n" "$scratch/alone" ;;
    strace) strace -f -o /dev/null -e trace=write,fsync,openat,close "$job" "$n" "$scratch/alone" ;;
    strace-full) strace -f -tt -s 0 -o "$scratch/strace.txt" "$job" "$n" "$scratch/alone" ;;
    fiu) fiu-run -x "$job" "$n" "$scratch/alone" ;;
    shim-listener)
      LD_PRELOAD="$shim" KILLPOINT_CTL="127.0.0.1:$port" KILLPOINT_WORKDIR="$scratch/listened" \
        "$job" "$n" "$scratch/listened" ;;
    supervisor-listener)
      KILLPOINT_CTL="127.0.0.1:$port" KILLPOINT_WORKDIR="$scratch/listened" \
        "$supervise" -- "$job" "$n" "$scratch/listened" ;;
    harness-*-seccomp)
      rm -rf "$out"
      c=${c%-seccomp}
      TMPDIR="$scratch/tmp" "$killpoint" run "$scratch/scenarios/${c#harness-}.json" \
        "${harness_opts[@]}" --intercept seccomp --out "$out" ;;
    harness-*)
      # harness-noshim loads neither backend; --intercept preload there only spares the
      # harness its seccomp probe at start.
      rm -rf "$out"
      TMPDIR="$scratch/tmp" "$killpoint" run "$scratch/scenarios/${c#harness-}.json" \
        "${harness_opts[@]}" --intercept preload --out "$out" ;;
  esac
}
# The folder a condition's job writes its file in: the storage its time is measured on.
files_of() {
  case $1 in
    shim-listener|supervisor-listener) echo "$scratch/listened" ;;
    harness-*) echo "$scratch/sandboxes" ;;
    *) echo "$scratch/alone" ;;
  esac
}
storage_of() { stat -L -f -c %T "$1" | tr -d '\n'; printf ' (device %s)' "$(stat -L -c %d "$1")"; }

# One harness trial, kept, before the rounds: its job's file must be under the sandbox root we
# gave, else the harness conditions would not run on DIR and nothing could be compared.
if [[ " ${names[*]} " == *" harness-"* ]]; then
  mkdir -p "$scratch/probe"
  "$killpoint" run "$scratch/scenarios/noshim.json" --trials 1 --jobs 1 --real-disk --keep \
    --sandbox-root "$scratch/probe" --quiet --out "$scratch/probe-out" >"$scratch/probe.log" 2>&1 || true
  if ! compgen -G "$scratch/probe/*/work/fsync-loop.dat" >/dev/null; then
    echo "bench-shim: a harness trial run with --sandbox-root $scratch/probe left no sandbox there:" \
      "the harness conditions would not run on $dir" >&2
    tail -5 "$scratch/probe.log" >&2
    exit 3
  fi
  rm -rf "$scratch/probe" "$scratch/probe-out"
fi

# The supervisor needs seccomp user notification (Linux 5.19) and pidfd_getfd: one harness trial
# with --intercept seccomp before the rounds. Where the harness refuses it for that, the seccomp
# conditions are left out and their goals are "not compared" with its reason; any other failure
# is a failed condition.
seccomp_why=""
if [[ " ${names[*]} " == *"-seccomp "* || " ${names[*]} " == *" supervisor-listener "* ]]; then
  mkdir -p "$scratch/probe"
  rc=0
  "$killpoint" run "$scratch/scenarios/process.json" --trials 1 --jobs 1 --real-disk --intercept seccomp \
    --sandbox-root "$scratch/probe" --quiet --out "$scratch/probe-out" >"$scratch/probe.log" 2>&1 || rc=$?
  if ((rc != 0)) && grep -q "seccomp supervisor cannot run here" "$scratch/probe.log"; then
    seccomp_why=$(grep -o "the seccomp supervisor cannot run here ([^)]*)" "$scratch/probe.log" | head -1)
    echo "bench-shim: $seccomp_why: the seccomp conditions are left out" >&2
    kept=()
    for c in "${names[@]}"; do [[ $c == *-seccomp || $c == supervisor-listener ]] || kept+=("$c"); done
    names=("${kept[@]}")
    ((${#names[@]})) || { echo "bench-shim: no condition left to run" >&2; exit 3; }
  elif ((rc != 0)); then
    echo "bench-shim: a harness trial with --intercept seccomp failed (exit $rc):" >&2
    tail -5 "$scratch/probe.log" >&2
    exit 3
  fi
  rm -rf "$scratch/probe" "$scratch/probe-out"
fi

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
  "every condition on $(storage_of "$scratch") at $dir, $(date -u +%Y-%m-%d)"
((wait)) || echo "--no-wait: measured while other work ran on the machine"
echo "job: $n write+fsync pairs of 64 bytes; harness runs: $trials trials, --jobs 1 --real-disk; $repeat rounds"
count=${#names[@]}
for round in $(seq 1 "$repeat"); do
  line="round $round:"
  for k in $(seq 0 $((count - 1))); do
    c=${names[$(((k + round - 1) % count))]}
    for _ in 1 2 3; do
      wait_idle
      # bash's `time`: the wall time of the command alone, no process of the script's around it.
      if ! { TIMEFORMAT=%3R; time run_condition "$c" >"$scratch/last.out" 2>&1; } 2>"$scratch/last.time"; then
        echo "bench-shim: condition '$c' failed:" >&2
        tail -20 "$scratch/last.out" >&2
        exit 3
      fi
      (($(compilers) == 0)) && break
      echo "  ($c: a compiler started during the run: again)" >&2
    done
    secs=$(tail -1 "$scratch/last.time")
    attempts=1 work=$secs
    if [[ $c == harness-* ]]; then
      attempts=$(cat "$scratch"/out/*/history.jsonl | grep -c '"type":"spawn"' || true)
      work=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["scenarios"][0]["elapsed_s"])' \
        "$scratch/out/results.json")
    fi
    printf '%s\t%s\t%s\t%s\t%s\n' "$c" "$secs" "$attempts" "$(storage_of "$(files_of "$c")")" "$work" >>"$raw"
    line+=$(printf ' %s %.2fs' "$c" "$secs")
  done
  echo "$line"
done

# The table: medians, ratios against the job alone and, for the harness, against the harness
# without the shim; the cost of one crash point from the difference; the goals' verdicts. A
# ratio is computed only between two conditions measured in this run on the same storage.
labels=$(for c in "${all_names[@]}"; do printf '%s\t%s\n' "$c" "${label[$c]}"; done)
goals_arg=$(IFS=,; echo "${goals_asked[*]:-}")
python3 - "$raw" "$n" "$trials" "$labels" "$goals_arg" "$repeat" "$wait" "$seccomp_why" <<'PY'
import statistics, sys
raw, n, trials = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
labels = dict(line.split("\t", 1) for line in sys.argv[4].splitlines())
asked = [g for g in sys.argv[5].split(",") if g]
rounds, waited = int(sys.argv[6]), sys.argv[7] == "1"
seccomp_why = sys.argv[8]  # why the seccomp conditions were left out, or empty
times, attempts, storage, work = {}, {}, {}, {}
for line in open(raw):
    c, s, a, where, w = line.rstrip("\n").split("\t")
    times.setdefault(c, []).append(float(s))
    attempts.setdefault(c, []).append(int(a))
    storage.setdefault(c, set()).add(where)
    work.setdefault(c, []).append(float(w))
med = {c: statistics.median(t) for c, t in times.items()}
# Per attempt: the median over the runs of each run's work over its attempts (the same count
# every run: seeded). A run's work is its wall time, or for the harness its scenario's elapsed
# time: its trials, without the harness's own start and its reports, a cost per run.
per_attempt = {c: statistics.median(w / a for w, a in zip(work[c], attempts[c]) if a) for c in med
               if any(attempts[c])}

def compare(c, base):
    """(ratio, None) when c and base were both measured here on one storage, else (None, why)."""
    for x in (c, base):
        if x not in times and seccomp_why and (x.endswith("-seccomp") or x == "supervisor-listener"):
            return None, f"'{labels[x]}' was not run: {seccomp_why}"
        if x not in times:
            return None, f"'{labels[x]}' was not run"
        if x not in per_attempt:
            return None, f"'{labels[x]}' ran no attempt"
        if len(storage[x]) != 1:
            return None, f"'{labels[x]}' ran on more than one storage: {', '.join(sorted(storage[x]))}"
    if storage[c] != storage[base]:
        return None, (f"'{labels[c]}' ran on {next(iter(storage[c]))}, "
                      f"'{labels[base]}' on {next(iter(storage[base]))}")
    return per_attempt[c] / per_attempt[base], None

def cell(c, base):
    r, why = compare(c, base)
    return f"{r:.2f}x" if why is None else "not compared"

print()
print("| condition | median wall (s) | attempts a run | per attempt (s) | vs job alone | vs harness, no interception | runs: min-max (s) |")
print("|---|---|---|---|---|---|---|")
for c in labels:
    if c not in med:
        continue
    vs_h = cell(c, "harness-noshim") if c.startswith("harness") else ""
    pa = f"{per_attempt[c]:.3f}" if c in per_attempt else "-"
    print(f"| {labels[c]} | {med[c]:.3f} | {attempts[c][0]} | {pa} | {cell(c, 'alone')} | {vs_h} "
          f"| {min(times[c]):.3f}-{max(times[c]):.3f} |")
points = 2 * n + 2  # open, N writes, N fsyncs, close
print()
where = sorted(set().union(*storage.values())) if storage else []
print(f"storage: {'; '.join(where)}")
if "alone" in per_attempt:
    print(f"job alone: {per_attempt['alone'] / n * 1e6:.0f} us per write+fsync pair (process start included)")

def cost_line(what, c, base, base_label):
    if c not in times and not (seccomp_why and (c.endswith("-seccomp") or c == "supervisor-listener")):
        return
    r, why = compare(c, base)
    if why is not None:
        print(f"{what}: not compared: {why}")
        return
    extra = per_attempt[c] - per_attempt[base]
    note = "  (less than without it: noise, rerun with more rounds on an idle machine)" if extra < 0 else ""
    print(f"{what}: {extra * 1e3:+.1f} ms per attempt over {base_label}"
          f" = {extra / points * 1e6:+.1f} us per crash point ({points} points){note}")

cost_line("shim, bare listener", "shim-listener", "alone", "the job alone")
cost_line("supervisor, bare listener", "supervisor-listener", "alone", "the job alone")
for m in ("process", "power", "power-kill"):
    cost_line(f"shim, {m} model", f"harness-{m}", "harness-noshim", "the harness without interception")
    cost_line(f"supervisor, {m} model", f"harness-{m}-seccomp", "harness-noshim",
              "the harness without interception")

# The supervisor against the shim, per crash point: each one's cost over its base, the
# difference (positive: the supervisor costs more).
def versus_line(what, seccomp, preload, base):
    if seccomp not in times and preload not in times:
        return
    why = [compare(c, base)[1] for c in (seccomp, preload)]
    why = next((w for w in why if w is not None), None)
    if why is None and storage[seccomp] != storage[preload]:
        why = f"'{labels[seccomp]}' and '{labels[preload]}' ran on different storage"
    if why is not None:
        print(f"supervisor against shim, {what}: not compared: {why}")
        return
    d = per_attempt[seccomp] - per_attempt[preload]
    print(f"supervisor against shim, {what}: {d / points * 1e6:+.1f} us per crash point"
          f" ({per_attempt[seccomp] / per_attempt[preload]:.2f}x per attempt)")

print()
versus_line("bare listener", "supervisor-listener", "shim-listener", "alone")
for m in ("process", "power", "power-kill"):
    versus_line(f"{m} model", f"harness-{m}-seccomp", f"harness-{m}", "harness-noshim")

limits = {"process": 1.10, "power": 1.5, "power-kill": 1.5}
goals = {}
for g, limit in limits.items():
    goals[g] = (f"harness-{g}", limit)
for g, limit in limits.items():
    goals[f"{g}-seccomp"] = (f"harness-{g}-seccomp", limit)
if not asked:
    checked = [g for g, (c, _) in goals.items() if c in times and "harness-noshim" in times]
    if seccomp_why and "harness-noshim" in times:
        # Left out for the kernel: said, not silently dropped.
        checked += [g for g, (c, _) in goals.items() if g.endswith("-seccomp") and c not in times]
else:
    checked = list(goals) if "all" in asked else [g for g in goals if g in asked]
print()
uncompared = []
caveat = " [measured under load (--no-wait)]" if not waited else ""
for g in checked:
    c, limit = goals[g]
    r, why = compare(c, "harness-noshim")
    head = f"goal {g}: {labels[c]} <= {limit:.2f}x the harness without interception, per attempt"
    if why is not None:
        print(f"{head}: not compared: {why}")
        uncompared.append(g)
    elif rounds < 3:
        # One or two runs a side are a figure, not a verdict: the spread between runs of the
        # same condition on a shared machine is larger than the margins the goals leave.
        print(f"{head}: {r:.2f}x, no verdict: {rounds} round{'s' if rounds > 1 else ''}, a verdict needs --repeat 3"
              f" or more{caveat}")
        if asked:
            uncompared.append(g)
    else:
        verdict = "met" if r <= limit else f"missed by {(r / limit - 1) * 100:.0f}%"
        print(f"{head}: {r:.2f}x, {verdict} (median of {rounds} rounds){caveat}")
if not checked:
    print("goals: none checked (no goal has both of its sides in this run)")
print()
print("raw (s): " + "; ".join(f"{c} " + " ".join(f"{t:.3f}" for t in times[c]) for c in labels if c in times))
sys.exit(4 if uncompared else 0)
PY
