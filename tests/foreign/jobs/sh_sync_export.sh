#!/bin/bash
# At-most-once daily export in bash, with the shell recipe of docs/writing-a-job.md:
# t=$(mktemp -p "$dir"), printf > "$t", sync "$t", mv "$t" sent.json, sync "$dir", then a
# curl POST.
#
#   sh_sync_export.sh correct   as above
#   sh_sync_export.sh buggy     no sync at all: a power cut after the POST brings the old
#                               sent.json back (or none), and the retry POSTs the date again
#
# sent.json is {"sent":["2026-11-01",...]}; an empty one is "nothing sent yet", one that does
# not look like that makes the job refuse (exit 3) rather than guess.
set -euo pipefail
form=${1:-}
[[ $form == correct || $form == buggy ]] || { echo "usage: $0 correct|buggy" >&2; exit 2; }
dir=$KILLPOINT_WORKDIR
day=$KILLPOINT_BIZ_DATE
state=$dir/sent.json

sent=""
if [[ -e $state ]]; then sent=$(<"$state"); fi
if [[ -z $sent ]]; then
  new="{\"sent\":[\"$day\"]}"
elif [[ $sent != '{"sent":['*']}' ]]; then
  echo "export: $state is corrupt, refusing to guess" >&2
  exit 3
elif [[ $sent == *"\"$day\""* ]]; then
  echo "$day was already sent"
  exit 0
else
  new="${sent%']}'},\"$day\"]}"
fi

t=$(mktemp -p "$dir")
printf '%s\n' "$new" > "$t"
if [[ $form == correct ]]; then sync "$t"; fi
mv "$t" "$state"
if [[ $form == correct ]]; then sync "$dir"; fi

curl -fsS -X POST "$KILLPOINT_DOWNSTREAM/publish" -H 'Content-Type: application/json' \
  -d "{\"key\":\"$day\",\"biz_date\":\"$day\",\"payload\":{\"report\":\"daily\"}}"
echo
echo "published $day"
