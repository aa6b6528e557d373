#!/bin/bash
# The installed killpoint, end to end (docs/installing.md). Reuses the build, never rebuilds:
#   package_test.sh BUILD_DIR install   cmake --install into a temporary prefix, then run two
#                                       bundled scenarios from the installed copy alone
#   package_test.sh BUILD_DIR deb       cpack -G DEB, check its Depends, dpkg-deb -x it into a
#                                       temporary folder and run a bundled scenario from there
# The installed copy is moved before it runs (a prefix is relocatable: killpoint finds its shim
# and jobs beside its own real path), and runs from an empty folder with a bare environment.
set -euo pipefail
build=$(cd "$1" && pwd)
mode=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/kp-package.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

fail() { echo "package_test: $*" >&2; exit 1; }

# run_installed PREFIX SCENARIO...: killpoint run from PREFIX, 3 trials each, from an empty cwd.
run_installed() {
  local prefix=$1; shift
  local kp=$prefix/bin/killpoint
  [ -L "$kp" ] || fail "$kp is not the symlink into lib/killpoint"
  "$kp" --version | grep -qx 'killpoint [0-9.]*' || fail "$kp --version"
  local scenarios=()
  for s in "$@"; do scenarios+=("$prefix/share/killpoint/scenarios/$s"); done
  mkdir -p "$tmp/cwd" && cd "$tmp/cwd"
  env -i PATH=/usr/bin:/bin HOME="$tmp" TMPDIR="$tmp" \
    "$kp" run "${scenarios[@]}" --trials 3 --seed 1 --out "$tmp/out" --quiet \
    || fail "killpoint run from $prefix exited $?"
  grep -q '"never_ran": false' "$tmp/out/results.json" || fail "a scenario never ran"
  cd / && rm -rf "$tmp/out"
}

case $mode in
  install)
    cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
    for f in bin/killpoint lib/killpoint/libkillpoint_shim.so lib/killpoint/kp-settle \
             lib/killpoint/publish_job.py include/killpoint/failpoint.h include/killpoint/retry.h \
             lib/cmake/killpoint/killpointConfig.cmake share/doc/killpoint/docs/installing.md \
             share/killpoint/scenarios/settle-upsert.json; do
      [ -e "$tmp/prefix/$f" ] || fail "cmake --install left out $f"
    done
    mv "$tmp/prefix" "$tmp/moved"
    run_installed "$tmp/moved" settle-upsert.json python-rename-dirsync.json
    ;;
  deb)
    (cd "$build" && cpack -G DEB -B "$tmp/deb" >/dev/null)
    deb=$(ls "$tmp"/deb/killpoint_*.deb)
    depends=$(dpkg-deb -f "$deb" Depends)
    for d in python3 libsqlite3-0 libc6; do
      [[ $depends == *"$d"* ]] || fail "Depends lacks $d: $depends"
    done
    contents=$(dpkg-deb -c "$deb")
    [[ $contents == *" ./usr/bin/killpoint -> ../lib/killpoint/killpoint"* ]] \
      || fail "the .deb has no /usr/bin/killpoint symlink"
    dpkg-deb -x "$deb" "$tmp/root"
    run_installed "$tmp/root/usr" python-rename-dirsync.json
    ;;
  *) fail "mode install or deb, not $mode" ;;
esac
echo "package_test: $mode: ok"
