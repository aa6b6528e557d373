#!/usr/bin/env bash
# scripts/check-stages.py must fail on an upward include: a copy of harness/ and reports/ with
# one added (check/checker.cc including suite/suite.h) is exit 1 naming that line; the copy as
# it is passes; a folder that is no stage is exit 2.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r "$root/harness" "$root/reports" "$tmp/"
python3 "$root/scripts/check-stages.py" "$tmp" >/dev/null

echo '#include "suite/suite.h"' >>"$tmp/harness/check/checker.cc"
line=$(wc -l <"$tmp/harness/check/checker.cc")
set +e
out=$(python3 "$root/scripts/check-stages.py" "$tmp" 2>&1)
rc=$?
set -e
[[ $rc -eq 1 ]] || { echo "expected exit 1 on an upward include, got $rc: $out"; exit 1; }
grep -qF "harness/check/checker.cc:$line: check includes suite/suite.h" <<<"$out" ||
  { echo "the upward include is not named: $out"; exit 1; }

sed -i '$d' "$tmp/harness/check/checker.cc"
mkdir "$tmp/harness/newstage" && echo '#pragma once' >"$tmp/harness/newstage/x.h"
set +e
out=$(python3 "$root/scripts/check-stages.py" "$tmp" 2>&1)
rc=$?
set -e
[[ $rc -eq 2 ]] || { echo "expected exit 2 on a folder that is no stage, got $rc: $out"; exit 1; }
grep -qF "newstage" <<<"$out" || { echo "the unknown folder is not named: $out"; exit 1; }
echo "upward_include_test: an upward include is exit 1 naming it; an unknown folder exit 2"
