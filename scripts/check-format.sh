#!/usr/bin/env bash
# Checks that every C and C++ file of the project is formatted as .clang-format says
# (Google style, 100 columns), with the clang-format that scripts/setup.sh installs.
#
#   bash scripts/check-format.sh [ROOT]          exit 0, or 1 naming each file that differs
#   bash scripts/check-format.sh --fix [ROOT]    reformats those files in place
#
# The files are git's tracked ones when ROOT is a checkout, else every .c/.h/.cc under it.
# Exit 2 when no clang-format is installed. ctest runs this as the test `format`.
set -euo pipefail
fix=0
if [[ ${1:-} == --fix ]]; then fix=1; shift; fi
root=$(cd "${1:-$(dirname "$0")/..}" && pwd)

tool=""
for candidate in clang-format-14 clang-format; do
  if command -v "$candidate" >/dev/null; then tool=$candidate; break; fi
done
if [[ -z $tool ]]; then
  echo "check-format: no clang-format found; bash scripts/setup.sh installs it" >&2
  exit 2
fi

cd "$root"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1 && [[ $(git rev-parse --show-toplevel) == "$root" ]]; then
  mapfile -t files < <(git ls-files -- '*.c' '*.h' '*.cc' '*.cpp')
else
  mapfile -t files < <(find . -path ./build -prune -o -path './build-*' -prune -o \
    -type f \( -name '*.c' -o -name '*.h' -o -name '*.cc' -o -name '*.cpp' \) -print | sed 's|^\./||' | sort)
fi

if ((fix)); then
  printf '%s\0' "${files[@]}" | xargs -0 -r "$tool" -i
  echo "check-format: formatted ${#files[@]} files with $($tool --version | grep -o 'version [0-9.]*')"
  exit 0
fi

# One clang-format over every file (one process per file takes ~40 s); it names each file that
# differs in its "FILE:LINE:COL: error: code should be clang-formatted" lines.
set +e
out=$(printf '%s\0' "${files[@]}" | xargs -0 -r "$tool" --dry-run -Werror 2>&1)
rc=$?
set -e
mapfile -t differ < <(grep -oE '^[^:]+:[0-9]+:[0-9]+: error: code should be clang-formatted' <<<"$out" |
  cut -d: -f1 | sort -u)
if ((rc != 0 && ${#differ[@]} == 0)); then
  echo "check-format: $tool failed: $out" >&2
  exit 2
fi
if ((${#differ[@]})); then
  printf 'check-format: %s is not formatted as .clang-format says\n' "${differ[@]}" >&2
  echo "check-format: ${#differ[@]} of ${#files[@]} files differ; bash scripts/check-format.sh --fix formats them" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files formatted as .clang-format says ($($tool --version | grep -o 'version [0-9.]*'))"
