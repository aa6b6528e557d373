#!/bin/bash
# The .deb, end to end (docs/installing.md). Reuses the build, never rebuilds:
#   package_test.sh BUILD_DIR
# builds the .deb with CPack (what `cmake --install` lays out, under /usr), checks its control
# fields and contents, unpacks it with `dpkg-deb -x` into a temporary root (no root privileges,
# nothing installed on the machine) and runs a bundled scenario of four families from there,
# from an empty folder with a bare environment: the unpacked killpoint finds its shim, jobs and
# docs beside its own real path, not in the build.
set -euo pipefail
build=$(cd "$1" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kp-package.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

fail() { echo "package_test: $*" >&2; exit 1; }

(cd "$build" && cpack -G DEB -B "$tmp/deb" >/dev/null)
deb=$(ls "$tmp"/deb/killpoint_*.deb)

# Depends: python3, then what dpkg-shlibdeps read from the binaries (cmake/DebDepends.cmake).
depends=$(dpkg-deb -f "$deb" Depends)
for d in 'python3, ' 'libc6 (>= ' 'libstdc++6 (>= ' 'libsqlite3-0 (>= ' 'libfmt9 (>= '; do
  [[ $depends == *"$d"* ]] || fail "Depends lacks $d: $depends"
done
[ "$(dpkg-deb -f "$deb" Package Architecture | tr '\n' ' ')" = \
  "Package: killpoint Architecture: $(dpkg --print-architecture) " ] || fail "Package/Architecture"

# Every file under /usr; the layout of docs/installing.md.
contents=$(dpkg-deb -c "$deb" | awk '{print $6, $7, $8}')
outside=$(echo "$contents" | grep -v '^\./usr/' | grep -v '^\./ ' || true)
[ -z "$outside" ] || fail "files outside /usr: $outside"
[[ $contents == *"./usr/bin/killpoint -> ../lib/killpoint/killpoint"* ]] \
  || fail "no /usr/bin/killpoint symlink into lib/killpoint"
for f in lib/killpoint/killpoint lib/killpoint/killpoint-supervise lib/killpoint/libkillpoint_shim.so lib/killpoint/kp-settle \
         lib/killpoint/publish_job.py include/killpoint/failpoint.h include/killpoint/retry.h \
         lib/cmake/killpoint/killpointConfig.cmake lib/cmake/killpoint/killpointTargets.cmake \
         share/doc/killpoint/README.md share/doc/killpoint/docs/writing-a-job.md \
         share/killpoint/scenarios/settle-upsert.json; do
  [[ $contents == *"./usr/$f "* ]] || fail "the .deb lacks /usr/$f"
done

dpkg-deb -x "$deb" "$tmp/root"
usr=$tmp/root/usr
kp=$usr/bin/killpoint
mkdir "$tmp/cwd" && cd "$tmp/cwd"
bare() { env -i PATH=/usr/bin:/bin HOME="$tmp" TMPDIR="$tmp" "$@"; }

bare "$kp" --version | grep -qx 'killpoint [0-9.]*' || fail "$kp --version"
# The docs it names are the unpacked ones.
bare "$kp" --help | grep -qF "docs: $usr/share/doc/killpoint/ (README.md, docs/)" \
  || fail "--help does not name the unpacked docs: $(bare "$kp" --help | tail -1)"

# One bundled scenario of four families, 2 trials each: a C++ job on SQLite, a C++ job and the
# downstream, a Python job, a catalogue job (the whole bundled suite, 1,400 trials, is
# e2e_test's; the other families run the same binaries and the same shim). Through the shim (a
# kill fired in each), the unpacked jobs ({bindir}) and the downstream.
scenarios=(settle-upsert.json publish-intent-done-query.json python-rename-dirsync.json
           catalogue/queue-ack-after.json)
args=()
for s in "${scenarios[@]}"; do args+=("$usr/share/killpoint/scenarios/$s"); done
rc=0
bare "$kp" run "${args[@]}" --trials 2 --seed 1 --out "$tmp/out" --quiet || rc=$?
# 0, 1 or 4 (with 2 trials, a planned kill may not fire): a verdict, not 2 (bad input, a job
# that never ran) nor 3 (the harness failed).
[[ $rc == [014] ]] || fail "killpoint run from the unpacked .deb exited $rc"
python3 - "$tmp/out/results.json" "${#scenarios[@]}" <<'PY' || fail "results.json: see above"
import json, sys
r = json.load(open(sys.argv[1]))
assert len(r["scenarios"]) == int(sys.argv[2]), f"{len(r['scenarios'])} scenarios"
for s in r["scenarios"]:
    assert not s["never_ran"], s["name"] + " never ran"
    assert s["exercise"]["trials_with_kill"] > 0, s["name"] + ": no kill fired (the shim?)"
PY
# The CI templates as a user writes them, killpoint installed from this .deb by their own
# install step (apt-get played by unpacking: tests/ci/ci_config_test.py --deb).
cd "$tmp"
python3 "$src/tests/ci/ci_config_test.py" --source "$src" --deb "$deb" \
  || fail "the CI templates did not run from the .deb (above)"
echo "package_test: ok"
