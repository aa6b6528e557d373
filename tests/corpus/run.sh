#!/usr/bin/env bash
# Runs the corpus (tests/corpus/scenarios) through killpoint and prints one row per
# (scenario, mode): trials, trials with a planned kill, kills that fired, the models they ran
# under, the exit code, the must-hold invariants violated, what was expected, OK or WRONG.
# A correct form must exit 0 with nothing violated; a buggy form must exit 1 naming its
# invariant (expected.tsv) and no other.
# Exits 1 if any row is WRONG.
#
#   bash tests/corpus/run.sh                        # sampled (--trials 40) and --exhaustive
#   bash tests/corpus/run.sh --modes sampled --trials 100 --seed 7
#   bash tests/corpus/run.sh --only 'sqlite' --out /tmp/corpus
#   bash tests/corpus/run.sh --fast                 # the CTest subset (tests/corpus/CMakeLists.txt)
#
# Modes: sampled (the scenario as written, --trials N), exhaustive (--exhaustive), listed
# (sampled, with the scenario's failpoints set to what `killpoint points` printed).
# Options: --killpoint PATH (default build/bin/killpoint), --out DIR (default a temp dir,
# kept), --seed S (1), --trials N (40), --modes sampled,exhaustive, --only REGEX (file stems),
# --jobs N (passed to killpoint).
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
killpoint=$root/build/bin/killpoint
out=""
seed=1
trials=40
modes=sampled,exhaustive
only=.
jobs=()
fast=0
while (($#)); do
  case $1 in
    --killpoint) killpoint=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    --trials) trials=$2; shift 2 ;;
    --modes) modes=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --jobs) jobs=(--jobs "$2"); shift 2 ;;
    --fast) fast=1; shift ;;
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
if ((fast)); then
  # The CTest subset: the scenarios with a trial count in expected.tsv's last column (the
  # buggy forms and two correct ones), sampled with that many trials, to stay near a minute.
  modes=sampled
fi
[[ -x $killpoint ]] || { echo "run.sh: no killpoint at $killpoint (build it first)" >&2; exit 2; }
[[ -n $out ]] || out=$(mktemp -d /tmp/killpoint-corpus.XXXXXX)
mkdir -p "$out"

printf '%s\n' "scenario	mode	trials	planned	fired	fired_models	exit	violated	expected	verdict" > "$out/table.tsv"
wrong=0
while IFS=$'\t' read -r stem want_code want_inv _models fast_trials; do
  [[ $stem == \#* || -z $stem ]] && continue
  [[ $stem =~ $only ]] || continue
  if ((fast)); then
    ((fast_trials > 0)) || continue
    trials=$fast_trials
  fi
  for mode in ${modes//,/ }; do
    dir=$out/$stem-$mode
    rm -rf "$dir"
    scenario=$here/scenarios/$stem.json
    if [[ $mode == listed ]]; then
      # What a user does when told to list crash points: a copy of the scenario whose
      # failpoints are the names `killpoint points` printed (random temp names included).
      scenario=$out/$stem-listed.json
      "$killpoint" points "$here/scenarios/$stem.json" 2>/dev/null |
        python3 "$here/list_points.py" "$here/scenarios/$stem.json" > "$scenario"
    fi
    args=(run "$scenario" --out "$dir" --seed "$seed" "${jobs[@]}")
    if [[ $mode == exhaustive ]]; then args+=(--exhaustive); else args+=(--trials "$trials"); fi
    start=$SECONDS
    "$killpoint" "${args[@]}" > "$dir.log" 2>&1
    code=$?
    row=$(python3 "$here/summarize.py" "$dir" "$stem" "$mode" "$code" "$want_code" "$want_inv") || wrong=$((wrong + 1))
    echo "$row" >> "$out/table.tsv"
    echo "$row	$((SECONDS - start))s" >&2
  done
done < "$here/expected.tsv"

column -t -s $'\t' "$out/table.tsv"
echo "logs and results in $out; $wrong WRONG"
((wrong == 0))
