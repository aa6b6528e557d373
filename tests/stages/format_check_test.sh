#!/usr/bin/env bash
# scripts/check-format.sh must fail on a file that differs from .clang-format: a copy of
# harness/util/ (no git checkout, so every file under it counts) passes as it is, and is exit 1
# naming the one file changed; --fix formats it back.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/harness"
cp "$root/.clang-format" "$tmp/"
cp -r "$root/harness/util" "$tmp/harness/"
bash "$root/scripts/check-format.sh" "$tmp" >/dev/null

file=$(cd "$tmp" && find harness/util -name '*.h' | sort | head -1)
echo 'int   misformatted ;' >>"$tmp/$file"
set +e
out=$(bash "$root/scripts/check-format.sh" "$tmp" 2>&1)
rc=$?
set -e
[[ $rc -eq 1 ]] || { echo "expected exit 1 on a misformatted file, got $rc: $out"; exit 1; }
grep -qF "check-format: $file is not formatted" <<<"$out" || { echo "the file is not named: $out"; exit 1; }

bash "$root/scripts/check-format.sh" --fix "$tmp" >/dev/null
bash "$root/scripts/check-format.sh" "$tmp" >/dev/null || { echo "--fix left the file misformatted"; exit 1; }
echo "format_check_test: a misformatted file is exit 1 naming it; --fix formats it"
