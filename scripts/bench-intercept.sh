#!/usr/bin/env bash
# The two candidate kernel-boundary interception backends side by side (issue 32,
# docs/interception-backends.md): a seccomp user-notification supervisor
# (bench/intercept/notif_floor.c) and a FUSE pass-through file system
# (bench/intercept/fuse_pass.c), against the job alone and against today's LD_PRELOAD shim not
# armed. Each workload is timed as whole runs under every condition, in rounds: each round runs
# every condition once, in an order rotated from round to round, so that the machine's drift
# (the disk's fsync latency above all) spreads over all of them. Prints, per storage and
# workload, the median wall and CPU time of each condition, its ratio to the job alone, and the
# cost per intercepted call: (median - median of the job alone) / calls, where calls is the
# number of notifications notif_floor received for that workload (the calls a crash-testing
# tool needs to see, one denominator for every condition of a workload).
#
#   bare            the job alone
#   shim-unarmed    LD_PRELOAD=libkillpoint_shim.so (the --shim path), KILLPOINT_CTL unset:
#                   today's pass-through cost (skipped when the library is missing)
#   notif-continue  notif_floor --mode continue: one notification round trip per call
#   notif-readlink  notif_floor --mode readlink: + the call's path (/proc/PID/fd/N or the path
#                   argument) and NOTIF_ID_VALID, what deciding "in the sandbox?" costs
#   notif-emulate   notif_floor --mode emulate: write, pwrite64, fsync, fdatasync done by the
#                   supervisor (pidfd_getfd + process_vm_readv), the rest continued
#   fuse-mt         the job's folder is a fuse_pass mount (libfuse's multi-threaded loop)
#   fuse-st         the same, one thread (-s)
#   fuse-wb         multi-threaded, writeback cache (writes reach the daemon batched)
#   fuse-dio        multi-threaded, direct_io on every file (no page cache)
#
# Workloads (each run in a folder emptied before it, untimed):
#   fsync    kp-fsync-loop (bench/fsync_loop.c): N appends of 64 bytes, each followed by fsync
#   save     bench/intercept/save_loop.c: N x {open tmp O_CREAT|O_TRUNC, write 4 KiB, fsync,
#            close, rename onto state, fsync dir}
#   py-pass  /usr/bin/python3 -c pass, started in the folder (interpreter start-up)
#   py-save  /usr/bin/python3 running the save loop 100 times (os.open/os.write/os.fsync/
#            os.replace/os.fsync of the folder)
#   git      sh -c 'git init && git add -A && git commit' of a tree of 20 small files (copied
#            in before the run, untimed)
# Storages: shm (/dev/shm, tmpfs: fsync is free, the backends' worst case) and disk (--disk-dir,
# default /var/tmp; the script prints what `df` says it is). The job's folder, the FUSE
# backing folder and the mount point are all on the storage measured.
#
# Usage: scripts/bench-intercept.sh [--rounds R] [--storage shm,disk] [--only C,...]
#            [--workloads W,...] [--disk-dir DIR] [--shim PATH] [--n-fsync SHM,DISK]
#            [--n-save SHM,DISK] [--n-py N]
#   --rounds     rounds (default 7)
#   --only       conditions, by the names above (default: all that can run here)
#   --n-fsync    N of the fsync workload on tmpfs and on the disk (default 2000,200)
#   --n-save     N of the save workload (default 500,50)
#   --n-py       saves of py-save (default 100)
#   --shim       the shim library (default /work/main/build/bin/libkillpoint_shim.so, else
#                build/bin/libkillpoint_shim.so)
# Builds its C programs with gcc -O2 into a temporary folder (needs gcc, libfuse3-dev, fuse3:
# scripts/setup.sh). Run it under nice on a shared machine: `nice -n 10 bash
# scripts/bench-intercept.sh`. It does not wait for an idle machine: it prints the load
# average before and after, and a benchmark asserts nothing (exit 0 once every run succeeded;
# 2 bad usage or missing tools; 3 a run failed).
# Every FUSE mount is made once per storage before the rounds and unmounted (fusermount3 -u) on
# exit, whatever the exit. After the rounds, one more run of each workload per FUSE variant and
# storage on a fresh mount counts the operations the daemon received, and times mount and unmount.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

all_conditions=(bare shim-unarmed notif-continue notif-readlink notif-emulate fuse-mt fuse-st fuse-wb fuse-dio)
all_workloads=(fsync save py-pass py-save git)
rounds=7 storages=shm,disk only="" workloads_arg="" disk_dir=/var/tmp shim="" n_fsync=2000,200 n_save=500,50 n_py=100
while (($#)); do
  case $1 in
    --rounds) rounds=$2; shift 2 ;;
    --storage) storages=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --workloads) workloads_arg=$2; shift 2 ;;
    --disk-dir) disk_dir=$2; shift 2 ;;
    --shim) shim=$2; shift 2 ;;
    --n-fsync) n_fsync=$2; shift 2 ;;
    --n-save) n_save=$2; shift 2 ;;
    --n-py) n_py=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench-intercept: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "bench-intercept: --rounds must be a positive integer" >&2; exit 2; }
IFS=, read -r n_fsync_shm n_fsync_disk <<<"$n_fsync"
IFS=, read -r n_save_shm n_save_disk <<<"$n_save"
IFS=, read -r -a storage_list <<<"$storages"
for s in "${storage_list[@]}"; do
  [[ $s == shm || $s == disk ]] || { echo "bench-intercept: --storage: shm or disk, not '$s'" >&2; exit 2; }
done
workloads=("${all_workloads[@]}")
[[ -n $workloads_arg ]] && IFS=, read -r -a workloads <<<"$workloads_arg"
for w in "${workloads[@]}"; do
  [[ " ${all_workloads[*]} " == *" $w "* ]] || { echo "bench-intercept: no workload '$w' (${all_workloads[*]})" >&2; exit 2; }
done

# What can run here.
for tool in gcc pkg-config git; do
  command -v "$tool" >/dev/null || { echo "bench-intercept: $tool missing (bash scripts/setup.sh)" >&2; exit 2; }
done
python=/usr/bin/python3 # Debian's, not a version manager's wrapper script (whose start-up would be timed too)
[[ -x $python ]] || python=$(command -v python3)
if [[ -z $shim ]]; then
  shim=/work/main/build/bin/libkillpoint_shim.so
  [[ -e $shim ]] || shim=$repo/build/bin/libkillpoint_shim.so
fi
conditions=()
skipped=()
for c in "${all_conditions[@]}"; do
  if [[ -n $only && ",$only," != *",$c,"* ]]; then continue; fi
  case $c in
    shim-unarmed) [[ -e $shim ]] || { skipped+=("shim-unarmed: no $shim"); continue; } ;;
    fuse-*)
      if ! pkg-config --exists fuse3 || ! command -v fusermount3 >/dev/null || [[ ! -e /dev/fuse ]]; then
        skipped+=("$c: needs libfuse3-dev, fuse3 and /dev/fuse")
        continue
      fi ;;
  esac
  conditions+=("$c")
done
((${#conditions[@]})) || { echo "bench-intercept: no condition to run" >&2; exit 2; }

scratch=$(mktemp -d /tmp/kp-bench-intercept-XXXXXX)
bin=$scratch/bin
mkdir -p "$bin" "$scratch/home"
declare -A fuse_pid=() fuse_mnt=()
cleanup() {
  local key
  for key in "${!fuse_mnt[@]}"; do
    mountpoint -q "${fuse_mnt[$key]}" 2>/dev/null && { fusermount3 -u "${fuse_mnt[$key]}" 2>/dev/null || fusermount3 -uz "${fuse_mnt[$key]}" 2>/dev/null || true; }
  done
  for key in "${!fuse_pid[@]}"; do
    kill "${fuse_pid[$key]}" 2>/dev/null || true
    wait "${fuse_pid[$key]}" 2>/dev/null || true
  done
  for s in "${storage_list[@]}"; do [[ -n ${store_root[$s]:-} ]] && rm -rf "${store_root[$s]}"; done
  rm -rf "$scratch"
}
declare -A store_root=()
trap cleanup EXIT

# Build.
cflags=(-O2 -Wall -Wextra)
gcc "${cflags[@]}" -o "$bin/notif_floor" bench/intercept/notif_floor.c -lpthread
gcc "${cflags[@]}" -o "$bin/save_loop" bench/intercept/save_loop.c
gcc "${cflags[@]}" -o "$bin/fsync_loop" bench/fsync_loop.c
if [[ " ${conditions[*]} " == *" fuse-"* ]]; then
  # shellcheck disable=SC2046
  gcc "${cflags[@]}" $(pkg-config --cflags fuse3) -o "$bin/fuse_pass" bench/intercept/fuse_pass.c $(pkg-config --libs fuse3)
fi
cat >"$scratch/save_loop.py" <<'PY'
import os, sys
n, d = int(sys.argv[1]), sys.argv[2]
tmp, state = os.path.join(d, "state.tmp"), os.path.join(d, "state")
dfd = os.open(d, os.O_RDONLY | os.O_DIRECTORY)
for i in range(n):
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.write(fd, (b"save %d\n" % i).ljust(4096, b"x"))
    os.fsync(fd)
    os.close(fd)
    os.replace(tmp, state)
    os.fsync(dfd)
os.close(dfd)
PY
mkdir -p "$scratch/tree"
for i in $(seq 1 20); do
  head -c $((200 + i * 37)) /dev/zero | tr '\0' "$(printf "\\$(printf '%03o' $((97 + i % 26)))")" >"$scratch/tree/file$i.txt"
done
export HOME=$scratch/home GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=kp GIT_AUTHOR_EMAIL=kp@localhost \
  GIT_COMMITTER_NAME=kp GIT_COMMITTER_EMAIL=kp@localhost
unset LD_PRELOAD
while read -r v; do unset "$v"; done < <(compgen -e | grep '^KILLPOINT_' || true)

storage_dir() { if [[ $1 == shm ]]; then echo /dev/shm; else echo "$disk_dir"; fi; }
describe() { df -hT "$1" | awk 'NR == 2 {printf "%s (%s on %s, mounted on %s)", d, $2, $1, $7}' d="$1"; }

start_fuse() { # KEY VARIANT BACKING MOUNTPOINT [fuse_pass options...]
  local key=$1 variant=$2 back=$3 mnt=$4
  shift 4
  local opts=() extra=()
  case $variant in
    fuse-st) extra=(-s) ;;
    fuse-wb) opts=(--writeback) ;;
    fuse-dio) opts=(--direct-io) ;;
  esac
  mkdir -p "$back" "$mnt"
  "$bin/fuse_pass" "${opts[@]}" "$@" "$back" "$mnt" "${extra[@]}" >>"$scratch/fuse.log" 2>&1 &
  fuse_pid[$key]=$!
  fuse_mnt[$key]=$mnt
  local i
  for i in $(seq 1 1000); do
    mountpoint -q "$mnt" && return 0
    kill -0 "${fuse_pid[$key]}" 2>/dev/null || break
    sleep 0.002
  done
  echo "bench-intercept: fuse_pass ($variant) did not mount $mnt:" >&2
  tail -5 "$scratch/fuse.log" >&2
  exit 3
}
stop_fuse() { # KEY
  local key=$1
  fusermount3 -u "${fuse_mnt[$key]}"
  wait "${fuse_pid[$key]}" 2>/dev/null || true
  unset "fuse_pid[$key]" "fuse_mnt[$key]"
}
cpu_ticks() { awk '{print $14 + $15}' "/proc/$1/stat" 2>/dev/null || echo 0; }

# Folders: per storage, one per condition.
for s in "${storage_list[@]}"; do
  base=$(storage_dir "$s")
  [[ -d $base && -w $base ]] || { echo "bench-intercept: $base: not a writable folder" >&2; exit 2; }
  store_root[$s]=$(mktemp -d "$base/kp-bench-intercept-XXXXXX")
  for c in "${conditions[@]}"; do
    if [[ $c == fuse-* ]]; then
      start_fuse "$s/$c" "$c" "${store_root[$s]}/$c/back" "${store_root[$s]}/$c/mnt"
    else
      mkdir -p "${store_root[$s]}/$c/work"
    fi
  done
done
work_of() { if [[ $2 == fuse-* ]]; then echo "${store_root[$1]}/$2/mnt"; else echo "${store_root[$1]}/$2/work"; fi; }
n_of() { # STORAGE WORKLOAD
  case $2 in
    fsync) if [[ $1 == shm ]]; then echo "$n_fsync_shm"; else echo "$n_fsync_disk"; fi ;;
    save) if [[ $1 == shm ]]; then echo "$n_save_shm"; else echo "$n_save_disk"; fi ;;
    py-save) echo "$n_py" ;;
    *) echo 0 ;;
  esac
}

# The workload's command line, in the array `cmd`.
workload_cmd() { # WORKLOAD DIR N
  case $1 in
    fsync) cmd=("$bin/fsync_loop" "$3" "$2") ;;
    save) cmd=("$bin/save_loop" "$3" "$2") ;;
    py-pass) cmd=("$python" -c pass) ;;
    py-save) cmd=("$python" "$scratch/save_loop.py" "$3" "$2") ;;
    git) cmd=(sh -c 'cd "$1" && git init -q && git add -A && git commit -qm x' sh "$2/repo") ;;
  esac
}
# One timed run: the command straight from this shell (no `env` in front).
run_condition() { # CONDITION STATS_FILE
  case $1 in
    bare|fuse-*) "${cmd[@]}" ;;
    shim-unarmed) LD_PRELOAD="$shim" "${cmd[@]}" ;;
    notif-*) "$bin/notif_floor" --mode "${1#notif-}" --stats "$2" -- "${cmd[@]}" ;;
  esac
}

raw=$scratch/times.tsv
: >"$raw"
echo "machine: $(nproc) cores, $(free -g | awk '/^Mem:/ {print $2}') GiB, Linux $(uname -r), $(date -u '+%Y-%m-%d %H:%M UTC')"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg); nice $(nice)"
for s in "${storage_list[@]}"; do echo "storage $s: $(describe "$(storage_dir "$s")")"; done
echo "python: $python ($($python -V 2>&1)); git $(git --version | cut -d' ' -f3); shim: $([[ " ${conditions[*]} " == *" shim-unarmed "* ]] && echo "$shim" || echo none)"
for x in "${skipped[@]}"; do echo "skipped: $x"; done
echo "workloads: ${workloads[*]}; N: fsync ${n_fsync_shm} (shm) / ${n_fsync_disk} (disk), save ${n_save_shm} / ${n_save_disk}, py-save ${n_py}; $rounds rounds"
count=${#conditions[@]}
for round in $(seq 1 "$rounds"); do
  start=$SECONDS
  for s in "${storage_list[@]}"; do
    for w in "${workloads[@]}"; do
      n=$(n_of "$s" "$w")
      for k in $(seq 0 $((count - 1))); do
        c=${conditions[$(((k + round - 1) % count))]}
        dir=$(work_of "$s" "$c")
        find "$dir" -mindepth 1 -delete
        [[ $w == git ]] && cp -r "$scratch/tree" "$dir/repo"
        workload_cmd "$w" "$dir" "$n"
        stats=$scratch/stats
        rm -f "$stats"
        daemon=${fuse_pid[$s/$c]:-}
        before=0
        [[ -n $daemon ]] && before=$(cpu_ticks "$daemon")
        if ! (cd "$dir" && { TIMEFORMAT='%3R %3U %3S'; time run_condition "$c" "$stats" >"$scratch/last.out" 2>&1; } 2>"$scratch/last.time"); then
          echo "bench-intercept: $s $w $c failed:" >&2
          tail -20 "$scratch/last.out" >&2
          exit 3
        fi
        after=0
        [[ -n $daemon ]] && after=$(cpu_ticks "$daemon")
        notes=-
        [[ -s $stats ]] && notes=$(awk '$1 == "notifications" {print $2}' "$stats")
        read -r wall user sys < <(tail -1 "$scratch/last.time")
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$s" "$w" "$c" "$round" "$wall" "$user" "$sys" \
          "$((after - before))" "$notes" >>"$raw"
      done
    done
  done
  echo "round $round: $((SECONDS - start)) s"
done

# The operations each FUSE variant receives per workload and storage (one more run on a fresh
# mount), and the cost of a mount and an unmount.
fuse_ops=$scratch/fuse-ops.tsv
: >"$fuse_ops"
if [[ " ${conditions[*]} " == *" fuse-"* ]]; then
  for s in "${storage_list[@]}"; do
    key=$s/fuse-count
    for c in "${conditions[@]}"; do
      [[ $c == fuse-* ]] || continue
      for w in "${workloads[@]}"; do
        cdir=${store_root[$s]}/count/$c-$w
        back=$cdir/back mnt=$cdir/mnt
        t0=$(date +%s%N)
        start_fuse "$key" "$c" "$back" "$mnt" --stats "$scratch/count.stats"
        t1=$(date +%s%N)
        if [[ $w == git ]]; then
          # The copy of the tree is not the workload's: mount again over the same backing
          # folder, so that the count starts after it.
          cp -r "$scratch/tree" "$mnt/repo"
          stop_fuse "$key"
          start_fuse "$key" "$c" "$back" "$mnt" --stats "$scratch/count.stats"
        fi
        workload_cmd "$w" "$mnt" "$(n_of "$s" "$w")"
        (cd "$mnt" && run_condition "$c" "" >/dev/null 2>&1) || { echo "bench-intercept: count run $s $c $w failed" >&2; exit 3; }
        t2=$(date +%s%N)
        stop_fuse "$key"
        t3=$(date +%s%N)
        rm -rf "$cdir"
        ops=$(awk '$1 == "operations" {print $2}' "$scratch/count.stats")
        detail=$(grep -v '^operations' "$scratch/count.stats" | sort -k2 -nr | head -6 | awk '{printf "%s%s %s", sep, $1, $2; sep=", "}')
        printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$s" "$w" "$c" "$ops" "$(((t1 - t0) / 1000))" "$(((t3 - t2) / 1000))" "$detail" >>"$fuse_ops"
      done
    done
  done
fi
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

python3 - "$raw" "$fuse_ops" "$rounds" "$(getconf CLK_TCK)" <<'PY'
import statistics as st, sys
raw, fuse_ops, rounds, hz = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
rows = {}
for line in open(raw):
    s, w, c, r, wall, user, sys_, daemon, notes = line.rstrip("\n").split("\t")
    d = rows.setdefault((s, w, c), {"wall": [], "cpu": [], "daemon": [], "notes": []})
    d["wall"].append(float(wall))
    d["cpu"].append(float(user) + float(sys_) + int(daemon) / hz)
    d["daemon"].append(int(daemon) / hz)
    if notes != "-":
        d["notes"].append(int(notes))
ops = {}
for line in open(fuse_ops):
    s, w, c, n, mount_us, umount_us, detail = line.rstrip("\n").split("\t")
    ops[(s, w, c)] = (int(n), int(mount_us), int(umount_us), detail)
order = ["bare", "shim-unarmed", "notif-continue", "notif-readlink", "notif-emulate",
         "fuse-mt", "fuse-st", "fuse-wb", "fuse-dio"]
storages = list(dict.fromkeys(k[0] for k in rows))
workloads = list(dict.fromkeys(k[1] for k in rows))
for s in storages:
    for w in workloads:
        conds = [c for c in order if (s, w, c) in rows]
        calls = st.median(rows[(s, w, "notif-continue")]["notes"]) if (s, w, "notif-continue") in rows else None
        bare = rows.get((s, w, "bare"))
        print()
        print(f"### {s}, {w} ({rounds} rounds; calls notified by notif_floor: {calls if calls is not None else '?'})")
        print()
        print("| condition | median wall (ms) | min-max (ms) | vs bare | wall µs per call | median CPU (ms) | CPU µs per call | events the backend handled |")
        print("|---|---|---|---|---|---|---|---|")
        for c in conds:
            d = rows[(s, w, c)]
            m = st.median(d["wall"])
            ratio = per = cpu_per = ""
            cpu = st.median(d["cpu"]) * 1e3
            if c.startswith("fuse-"):
                # The daemon's CPU comes from /proc/PID/stat in clock ticks (10 ms): its mean over
                # the rounds, not a median of mostly-zero ticks.
                cpu = (st.median(x - y for x, y in zip(d["cpu"], d["daemon"])) + st.mean(d["daemon"])) * 1e3
                cpu_s = f"{cpu:.0f} (daemon {st.mean(d['daemon']) * 1e3:.1f}, mean)"
                ev = f"{ops[(s, w, c)][0]} FUSE ops" if (s, w, c) in ops else ""
            else:
                cpu_s = f"{cpu:.0f}"
                ev = f"{int(st.median(d['notes']))} notifications" if d["notes"] else ""
            if bare:
                b = st.median(bare["wall"])
                ratio = f"{m / b:.2f}x"
                if calls and c != "bare":
                    per = f"{(m - b) / calls * 1e6:+.1f}"
                    cpu_per = f"{(cpu - st.median(bare['cpu']) * 1e3) / calls * 1e3:+.1f}"
            print(f"| {c} | {m * 1e3:.1f} | {min(d['wall']) * 1e3:.1f}-{max(d['wall']) * 1e3:.1f} | {ratio} | {per} | {cpu_s} | {cpu_per} | {ev} |")
if ops:
    print()
    print("### FUSE operations received per workload (one run on a fresh mount), mount and unmount")
    print()
    print("| storage | workload | variant | operations | most frequent | mount (ms) | unmount (ms) |")
    print("|---|---|---|---|---|---|---|")
    for (s, w, c), (n, mu, uu, detail) in ops.items():
        print(f"| {s} | {w} | {c} | {n} | {detail} | {mu / 1e3:.1f} | {uu / 1e3:.1f} |")
    mounts = sorted(v[1] for v in ops.values())
    umounts = sorted(v[2] for v in ops.values())
    print(f"\nmount: median {st.median(mounts) / 1e3:.1f} ms, unmount: median {st.median(umounts) / 1e3:.1f} ms"
          f" ({len(mounts)} of each; a mount is fuse_pass's start until `mountpoint` sees it, polled every 2 ms)")
print()
print("raw (ms): " + "; ".join(f"{s}/{w}/{c} " + " ".join(f"{x * 1e3:.1f}" for x in d["wall"]) for (s, w, c), d in rows.items()))
PY
