#!/usr/bin/env bash
# Post the day's summary to the downstream, then add the date to published.txt.
#
# Usage: sh_mktemp_publish.sh correct|buggy
#
# Execute-then-mark (at-least-once). published.txt (one date a line) is rewritten through a
# mktemp file in the same directory: cat the old list and printf the new date into it, sync
# the file, mv it over published.txt, sync the directory.
#
# The bug (form "buggy"): the POST carries no Idempotency-Key. A kill after curl got its answer
# and before mv (mktemp, the redirect, cat, sync, all on a random tmp.XXXXXXXXXX name) makes
# the retry POST the date again, and the downstream, which deduplicates by Idempotency-Key,
# has nothing to compare: the date is delivered twice. Caught by no_double_publish under every
# model, a kill -9 included. The correct form sends "summary-DATE" as the key, the same on
# every attempt: the retry's POST is deduplicated.
set -euo pipefail

form=${1:-correct}
dir=$KILLPOINT_WORKDIR
day=$KILLPOINT_BIZ_DATE
list=$dir/published.txt

if [[ -f $list ]] && grep -qxF "$day" "$list"; then
  echo "summary for $day already published"
  exit 0
fi

headers=(-H 'Content-Type: application/json')
if [[ $form == correct ]]; then
  headers+=(-H "Idempotency-Key: summary-$day")
fi
body=$(printf '{"key":"summary-%s","biz_date":"%s","payload":{"text":"summary of %s"}}' "$day" "$day" "$day")
curl -sS -f --max-time 5 "${headers[@]}" --data "$body" "$KILLPOINT_DOWNSTREAM/publish"
echo

t=$(mktemp -p "$dir")
{
  if [[ -f $list ]]; then cat "$list"; fi
  printf '%s\n' "$day"
} > "$t"
sync "$t"
mv "$t" "$list"
sync "$dir"
echo "published summary for $day"
