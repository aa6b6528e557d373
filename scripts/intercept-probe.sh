#!/usr/bin/env bash
# What each interception backend sees, and where each runs, tested (issue 32,
# docs/interception-backends.md). Builds bench/intercept/{notif_floor,fuse_pass}.c and the
# probes (bench/intercept/probes/probes.c, also linked -static), then:
#
#   sees     runs each probe (static binary, raw `syscall` instruction, io_uring, MAP_SHARED
#            stores + msync, O_SYNC/O_DSYNC writes, two processes taking turns) under
#            notif_floor (its --log: every notification), under fuse_pass in its variants (its
#            --log: every FUSE operation, with the caller's pid) and under today's shim armed
#            against a listener that logs its lines and answers CONTINUE; prints each log.
#   kill     crashes kp-fsync-loop (10 appends + fsync) before its 5th write under each backend
#            (notif_floor --kill write:5, fuse_pass --kill write:5) and prints what is left.
#   where    tries each backend as root; as an unprivileged user (setpriv 65534:65534), with
#            libfuse's own mount, with -o auto_unmount (straight to the setuid fusermount3), and
#            with a crw-rw-rw- /dev/fuse node (the mode Debian's udev rules give it) bound over
#            /dev/fuse in a private mount namespace; inside a user+mount namespace of that user
#            (unshare -Urm), the same three ways; under a seccomp listener already installed
#            (nested notif_floor); and under Docker's default seccomp profile with Docker's
#            default capabilities (scripts/docker-profile-run.py, when --docker-profile FILE
#            is given: moby/profiles, seccomp/default.json).
#
# Usage: scripts/intercept-probe.sh [--only sees,kill,where] [--shim PATH] [--docker-profile FILE]
# Needs root (it switches to the unprivileged user itself), gcc, libfuse3-dev, fuse3; installs
# python3-seccomp for the Docker-profile row when missing. Unmounts everything it mounted and
# removes its folders on exit. Prints logs; asserts nothing (exit 0 unless it could not run).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
only=sees,kill,where shim="" docker_profile=""
while (($#)); do
  case $1 in
    --only) only=$2; shift 2 ;;
    --shim) shim=$2; shift 2 ;;
    --docker-profile) docker_profile=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "intercept-probe: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[[ $(id -u) -eq 0 ]] || { echo "intercept-probe: run as root (it tests the unprivileged cases itself)" >&2; exit 2; }
if [[ -z $shim ]]; then
  shim=/work/main/build/bin/libkillpoint_shim.so
  [[ -e $shim ]] || shim=$repo/build/bin/libkillpoint_shim.so
fi
part() { [[ ",$only," == *",$1,"* ]]; }

scratch=$(mktemp -d /tmp/kp-intercept-probe-XXXXXX)
chmod 755 "$scratch"
bin=$scratch/bin
mkdir -p "$bin"
mounts=() pids=()
cleanup() {
  local m p
  for m in "${mounts[@]}"; do
    if mountpoint -q "$m" 2>/dev/null; then fusermount3 -u "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true; fi
  done
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$scratch"
}
trap cleanup EXIT
gcc -O2 -Wall -o "$bin/notif_floor" bench/intercept/notif_floor.c -lpthread
# shellcheck disable=SC2046
gcc -O2 -Wall $(pkg-config --cflags fuse3) -o "$bin/fuse_pass" bench/intercept/fuse_pass.c $(pkg-config --libs fuse3)
gcc -O2 -Wall -o "$bin/probes" bench/intercept/probes/probes.c
gcc -O2 -Wall -static -o "$bin/probes-static" bench/intercept/probes/probes.c
gcc -O2 -Wall -o "$bin/fsync_loop" bench/fsync_loop.c
chmod -R a+rx "$bin"
echo "Linux $(uname -r); libfuse $(pkg-config --modversion fuse3); $(ls -l /dev/fuse | awk '{print "/dev/fuse " $1 " " $3 ":" $4}');" \
  "fusermount3 $(stat -c %A "$(command -v fusermount3)"); $(date -u '+%Y-%m-%d')"

wait_mount() { # MOUNTPOINT PID
  local i
  for i in $(seq 1 500); do
    mountpoint -q "$1" && return 0
    kill -0 "$2" 2>/dev/null || return 1
    sleep 0.01
  done
  return 1
}
# Mounts fuse_pass (VARIANT: mt, st, wb, dio) over DIR/mnt with DIR/back behind it, logging to
# DIR/fuse.log; extra fuse_pass options after the variant. Sets `fuse_pid`.
mount_fuse() { # DIR VARIANT [options...]
  local d=$1 variant=$2
  shift 2
  local opts=() extra=()
  case $variant in
    st) extra=(-s) ;;
    wb) opts=(--writeback) ;;
    dio) opts=(--direct-io) ;;
  esac
  mkdir -p "$d/back" "$d/mnt"
  "$bin/fuse_pass" "${opts[@]}" --log "$d/fuse.log" "$@" "$d/back" "$d/mnt" "${extra[@]}" 2>"$d/fuse.err" &
  fuse_pid=$!
  pids+=("$fuse_pid")
  mounts+=("$d/mnt")
  wait_mount "$d/mnt" "$fuse_pid" || { echo "  (fuse_pass did not mount: $(tail -1 "$d/fuse.err"))"; return 1; }
}
umount_fuse() { # DIR
  fusermount3 -u "$1/mnt"
  wait "$fuse_pid" 2>/dev/null || true
}
indent() { sed 's/^/    /'; }

# The listener for the shim: logs every line, answers CONTINUE to HIT and DONE.
cat >"$scratch/listener.py" <<'PY'
import socket, sys, threading
out = open(sys.argv[1], "a", buffering=1)
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(16)
print(s.getsockname()[1], flush=True)
def serve(c):
    for line in c.makefile("rb"):
        t = line.decode(errors="replace").rstrip("\n")
        out.write(t + "\n")
        if t.startswith(("HIT", "DONE")):
            c.sendall(b"CONTINUE\n")
while True:
    c, _ = s.accept()
    threading.Thread(target=serve, args=(c,), daemon=True).start()
PY
listener_port=""
start_listener() {
  python3 "$scratch/listener.py" "$scratch/shim.log" >"$scratch/listener.port" &
  pids+=("$!")
  local i
  for i in $(seq 1 100); do [[ -s $scratch/listener.port ]] && break; sleep 0.05; done
  listener_port=$(cat "$scratch/listener.port")
}

# ---- sees -------------------------------------------------------------------------------------
probe_notif() { # LABEL PROBE KIND
  local d=$scratch/n-$1
  rm -rf "$d"
  mkdir -p "$d/work"
  local rc=0
  "$bin/notif_floor" --log "$d/notif.log" -- "$bin/$2" "$3" "$d/work" >"$d/out" 2>&1 || rc=$?
  echo "  notif_floor: exit $rc; notifications naming the folder, io_uring_setup, msync, sync*:"
  grep -E "$d/work|io_uring_setup|msync|sync\(|syncfs" "$d/notif.log" | sed "s|$d/work|DIR|g; s/^[0-9]* //" | indent || true
  echo "    ($(wc -l <"$d/notif.log") notifications in all; the rest: the loader's and libc's closes, stdout)"
}
probe_fuse() { # LABEL PROBE KIND VARIANT
  local d=$scratch/f-$1-$4
  rm -rf "$d"
  mkdir -p "$d"
  mount_fuse "$d" "$4" || return 0
  local rc=0
  "$bin/$2" "$3" "$d/mnt" >"$d/out" 2>&1 || rc=$?
  umount_fuse "$d"
  echo "  fuse_pass ($4): exit $rc; operations (pid = fuse_get_context()->pid; job pid(s) not shown in order):"
  grep -v -E ' getattr pid=[0-9]+ /$| (getattr|access) pid=[0-9]+ /marker-' "$d/fuse.log" | grep -v -E '^[0-9]+ (flush|getattr) .*/(probe|osync|odsync|a|b)\.dat$' \
    | sed 's/^[0-9]* //' | indent || true
  local markers
  markers=$(grep -c '/marker-' "$d/fuse.log" || true)
  echo "    (left out: getattr of / and of the files, flush; markers in order with the operations:)"
  grep -E '/marker-|write|fsync|release|create|open ' "$d/fuse.log" | sed 's/^[0-9]* //' | sed -n '1,60p' \
    | awk '{ if ($0 ~ /marker-/) { sub(/.*marker-/, "--- marker "); print } else print }' | indent
  [[ $markers -ge 0 ]]
}
probe_shim() { # LABEL PROBE KIND
  [[ -e $shim ]] || { echo "  shim: no $shim"; return 0; }
  [[ -n $listener_port ]] || start_listener
  local d=$scratch/s-$1
  rm -rf "$d"
  mkdir -p "$d/work"
  : >"$scratch/shim.log"
  local rc=0
  LD_PRELOAD="$shim" KILLPOINT_CTL="127.0.0.1:$listener_port" KILLPOINT_WORKDIR="$d/work" \
    "$bin/$2" "$3" "$d/work" >"$d/out" 2>&1 || rc=$?
  sleep 0.2
  echo "  shim (armed, every point waits): exit $rc; lines the listener got:"
  sed "s| [0-9][0-9]*\( \|$\)| PID\1|" "$scratch/shim.log" | indent
  [[ -s $scratch/shim.log ]] || echo "    (none)"
}
if part sees; then
  echo
  echo "## sees"
  for spec in "static probes-static write" "raw probes raw" "uring probes uring" "mmap probes mmap" \
              "osync probes osync" "order probes order"; do
    read -r label prog kind <<<"$spec"
    echo
    echo "### $label ($prog $kind)"
    probe_notif "$label" "$prog" "$kind"
    probe_fuse "$label" "$prog" "$kind" mt
    probe_fuse "$label" "$prog" "$kind" wb
    [[ $label == mmap || $label == osync ]] && probe_fuse "$label" "$prog" "$kind" dio
    [[ $label == order ]] && probe_fuse "$label" "$prog" "$kind" st
    probe_shim "$label" "$prog" "$kind"
  done
fi

# ---- kill -------------------------------------------------------------------------------------
if part kill; then
  echo
  echo "## kill before the 5th write of kp-fsync-loop 10"
  d=$scratch/kill-notif
  mkdir -p "$d"
  rc=0
  "$bin/notif_floor" --kill write:5 --log "$d/log" -- "$bin/fsync_loop" 10 "$d" || rc=$?
  echo "  notif_floor --kill write:5: exit $rc, fsync-loop.dat $(stat -c %s "$d/fsync-loop.dat") bytes ($(wc -l <"$d/fsync-loop.dat") records); $(tail -1 "$d/log")"
  for variant in mt wb; do
    d=$scratch/kill-fuse-$variant
    mkdir -p "$d"
    mount_fuse "$d" "$variant" --kill write:5 || continue
    rc=0
    setsid -w "$bin/fsync_loop" 10 "$d/mnt" || rc=$?
    umount_fuse "$d"
    echo "  fuse_pass ($variant) --kill write:5, job in its own group (setsid): exit $rc," \
      "fsync-loop.dat $(stat -c %s "$d/back/fsync-loop.dat") bytes in the backing folder; $(grep -E 'killed|no caller' "$d/fuse.log" || echo 'nothing logged')"
  done
fi

# ---- where ------------------------------------------------------------------------------------
if part where; then
  echo
  echo "## where each runs"
  as_nobody=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  try() { # LABEL COMMAND...: prints ok / failed with the last line of output
    local label=$1 out rc=0
    shift
    out=$("$@" 2>&1) || rc=$?
    if ((rc == 0)); then echo "  $label: ok"; else echo "  $label: FAILED (exit $rc): $(echo "$out" | grep -v '^$' | tail -2 | tr '\n' ' ')"; fi
  }
  d=$scratch/where
  mkdir -p "$d"
  chmod 777 "$d"
  notif_job() { echo "$bin/notif_floor --mode emulate --stats $1/stats -- $bin/probes write $1"; }
  mknod "$d/fuse-node" c 10 229
  chmod 666 "$d/fuse-node"
  # fuse_test DIR [libfuse options...]: mount DIR/mnt over DIR/back, write a probe through it,
  # unmount; ok when the probe's file reached the backing folder. Runs as whoever calls it.
  fuse_test='d=$1; shift; '"$(declare -f wait_mount)"'
    '"$bin"'/fuse_pass $d/back $d/mnt "$@" & p=$!; wait_mount $d/mnt $p || { wait $p; exit 1; }
    '"$bin"'/probes write $d/mnt; r=$?; fusermount3 -u $d/mnt 2>/dev/null || umount $d/mnt; wait $p
    test -s $d/back/probe.dat && exit $r; exit 1'
  # root
  mkdir -p "$d/root-n"
  try "root, seccomp notif (emulate)" $(notif_job "$d/root-n")
  # unprivileged
  install -d -o 65534 -g 65534 "$d/nobody-n"
  mkdir -p "$d/root-f/back" "$d/root-f/mnt"
  mounts+=("$d/root-f/mnt")
  try "root, FUSE" bash -c "$fuse_test" - "$d/root-f"
  try "uid 65534, seccomp notif (emulate)" "${as_nobody[@]}" $(notif_job "$d/nobody-n")
  echo "    $(tr '\n' ' ' <"$d/nobody-n/stats")"
  for x in nobody-f nobody-au nobody-dev userns-f userns-g userns-au; do
    install -d -o 65534 -g 65534 "$d/$x" "$d/$x/back" "$d/$x/mnt"
    mounts+=("$d/$x/mnt")
  done
  try "uid 65534, FUSE, /dev/fuse as here ($(stat -c %A /dev/fuse))" "${as_nobody[@]}" bash -c "$fuse_test" - "$d/nobody-f"
  try "uid 65534, FUSE with -o auto_unmount (libfuse goes straight to the setuid fusermount3)" \
    "${as_nobody[@]}" bash -c "$fuse_test" - "$d/nobody-au" -o auto_unmount
  try "uid 65534, FUSE, a crw-rw-rw- /dev/fuse (Debian's default) bound over it by root in a private mount namespace" \
    unshare -m --propagation private bash -c 'mount --bind "$1" /dev/fuse && shift && exec "$@"' - "$d/fuse-node" \
    "${as_nobody[@]}" bash -c "$fuse_test" - "$d/nobody-dev"
  # user + mount namespace of the unprivileged user
  mkdir -p "$d/userns-n"
  chown 65534:65534 "$d/userns-n"
  try "uid 65534 in unshare -Urm, seccomp notif (emulate)" "${as_nobody[@]}" unshare -Urm $(notif_job "$d/userns-n")
  try "uid 65534 in unshare -Urm, FUSE, /dev/fuse as here ($(stat -c %A /dev/fuse))" \
    "${as_nobody[@]}" unshare -Urm bash -c "$fuse_test" - "$d/userns-f"
  try "uid 65534 in unshare -Urm, FUSE with -o auto_unmount (fusermount3's setuid bit does not apply there)" \
    "${as_nobody[@]}" unshare -Urm bash -c "$fuse_test" - "$d/userns-au" -o auto_unmount
  try "uid 65534 in unshare -Urm, FUSE, a crw-rw-rw- /dev/fuse bound over it inside" \
    "${as_nobody[@]}" unshare -Urm bash -c 'mount --bind "$1" /dev/fuse && shift && exec "$@"' - "$d/fuse-node" \
    bash -c "$fuse_test" - "$d/userns-g"
  # A seccomp listener already in the chain (a supervisor above the job's)
  mkdir -p "$d/nested"
  try "under another seccomp listener (nested notif_floor)" "$bin/notif_floor" -- $(notif_job "$d/nested")
  # Docker's default profile and capabilities
  if [[ -n $docker_profile ]]; then
    if ! /usr/bin/python3 -c 'import seccomp' 2>/dev/null; then
      echo "  (installing python3-seccomp for the Docker-profile row)"
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-seccomp >/dev/null
    fi
    run_docker=(/usr/bin/python3 "$repo/scripts/docker-profile-run.py" "$docker_profile" --)
    for mode in continue readlink emulate; do
      mkdir -p "$d/docker-$mode"
      try "Docker default profile, seccomp notif ($mode)" "${run_docker[@]}" "$bin/notif_floor" --mode "$mode" \
        --stats "$d/docker-$mode/stats" -- "$bin/probes" write "$d/docker-$mode"
      echo "    $(tr '\n' ' ' <"$d/docker-$mode/stats" 2>/dev/null)"
    done
    mkdir -p "$d/docker-uring"
    try "Docker default profile, io_uring probe" "${run_docker[@]}" "$bin/probes" uring "$d/docker-uring"
    mkdir -p "$d/docker-f/back" "$d/docker-f/mnt"
    try "Docker default profile, FUSE (/dev/fuse present, root, every capability)" "${run_docker[@]}" bash -c "$fuse_test" - "$d/docker-f"
    mounts+=("$d/docker-f/mnt")
  else
    echo "  Docker default profile: not tried (no --docker-profile FILE)"
  fi
fi
