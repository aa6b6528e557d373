#!/usr/bin/env bash
# Runs the foreign corpus (tests/foreign/scenarios) through killpoint and prints one row per
# scenario: trials, kills fired of those planned, the models they ran under, the exit code, the
# must-hold invariants violated (in how many trials, by model), what expected.tsv expects,
# OK or WRONG and the row's class (right, false-alarm, false-hint, silent-pass, missed, error:
# summarize.py).
# A correct form must exit 0 with nothing violated; a buggy form must exit 1 naming
# no_double_publish, and nothing but what its bug can break too (expected.tsv). A scenario
# whose job is not built (no go, no rustc, no python3-lmdb) is SKIPPED, not counted.
# The last line: "N passed, M failed" (and how many were skipped). Exits 1 if any row failed.
#
#   bash tests/foreign/run.sh --killpoint /tmp/kp-bin/killpoint --out /tmp/foreign
#   bash tests/foreign/run.sh --only 'c-rename|go-' --trials 100
#   bash tests/foreign/run.sh -- --jobs 1                  # extra arguments for every run
#   bash tests/foreign/run.sh -- --intercept seccomp       # (the backend to come)
#
# Options: --killpoint PATH (default build/bin/killpoint; the compiled jobs and the shim must
# be in its folder, {bindir}: tests/foreign/CMakeLists.txt), --out DIR (default a new
# /tmp/killpoint-foreign.XXXXXX, kept), --only REGEX (file stems), --trials N (default: the
# scenarios' 40), --seed S (default 1); everything after -- goes to every `killpoint run`.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
killpoint=$root/build/bin/killpoint
out=""
only=.
seed=1
trials=()
extra=()
while (($#)); do
  case $1 in
    --killpoint) killpoint=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --trials) trials=(--trials "$2"); shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    *) echo "run.sh: unknown option $1 (extra arguments for killpoint go after --)" >&2; exit 2 ;;
  esac
done
[[ -x $killpoint ]] || { echo "run.sh: no killpoint at $killpoint (build it first)" >&2; exit 2; }
bindir=$(dirname "$(realpath "$killpoint")")
for ((i = 0; i < ${#extra[@]}; i++)); do
  [[ ${extra[i]} == --bindir ]] && bindir=${extra[i + 1]:-$bindir}
  [[ ${extra[i]} == --bindir=* ]] && bindir=${extra[i]#--bindir=}
done
[[ -n $out ]] || out=$(mktemp -d /tmp/killpoint-foreign.XXXXXX)
mkdir -p "$out"

# The binary a scenario runs, with {bindir} and {scenario_dir} filled in; and whether the
# job can run here (its program exists; python3-lmdb for the LMDB job).
job_missing() {
  local scenario=$1 program
  program=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["job"]["command"][0])' "$scenario")
  program=${program//\{bindir\}/$bindir}
  [[ -x $program ]] || { echo "$program is not built"; return 0; }
  if grep -q py_lmdb_export "$scenario" && ! /usr/bin/python3 -c 'import lmdb' 2>/dev/null; then
    echo "python3-lmdb is not installed"; return 0
  fi
  return 1
}

header="scenario	trials	kills	fired_models	exit	violated	expected	verdict	class"
printf '%s\n' "$header" > "$out/table.tsv"
passed=0 failed=0 skipped=0
while IFS=$'\t' read -r stem want_exits must_break _models also; do
  [[ $stem == \#* || -z $stem ]] && continue
  [[ $stem =~ $only ]] || continue
  scenario=$here/scenarios/$stem.json
  dir=$out/$stem
  rm -rf "$dir"
  if why=$(job_missing "$scenario"); then
    printf '%s\t-\t-\t-\t-\t-\t-\tSKIPPED\t%s\n' "$stem" "$why" >> "$out/table.tsv"
    echo "$stem: skipped, $why" >&2
    skipped=$((skipped + 1))
    continue
  fi
  start=$SECONDS
  "$killpoint" run "$scenario" --out "$dir" --seed "$seed" "${trials[@]}" "${extra[@]}" > "$dir.log" 2>&1
  code=$?
  if row=$(python3 "$here/summarize.py" "$dir" "$stem" "$code" "$want_exits" "$must_break" "$also"); then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
  fi
  echo "$row" >> "$out/table.tsv"
  echo "$row	$((SECONDS - start))s" >&2
done < "$here/expected.tsv"

column -t -s $'\t' "$out/table.tsv"
for class in right false-alarm false-hint silent-pass missed error; do
  printf '%s %s  ' "$class" "$(awk -F'\t' -v c="$class" 'NR > 1 && $9 == c' "$out/table.tsv" | wc -l)"
done
echo
# A job (its dynamic or static build) is told apart when every one of its forms is right: its
# correct forms pass and its buggy forms are caught, for the right reason.
python3 - "$out/table.tsv" <<'PY'
import collections, re, sys
jobs = collections.defaultdict(list)
for line in list(open(sys.argv[1]))[1:]:
    f = line.rstrip("\n").split("\t")
    if f[7] != "SKIPPED":
        jobs[re.sub(r"-(correct|buggy).*$", "", f[0])].append(f[8] == "right")
apart = sorted(j for j, ok in jobs.items() if all(ok))
print(f"{len(apart)} of {len(jobs)} jobs told apart: {' '.join(apart) or '-'}")
PY
echo "logs and results in $out"
echo "$passed passed, $failed failed$( ((skipped)) && echo ", $skipped skipped")"
((failed == 0))
