#!/usr/bin/env bash
# Settle one day of payments into day_sums with the sqlite3 command-line shell.
#
# Usage: sh_sqlite3_shell.sh correct|buggy
#
# payments(id, day, cents) is filled by the scenario's setup. One sqlite3 call runs one
# transaction (rollback journal, the shell's default), then a line goes to settle.log.
#
# The bug (form "buggy"): the day's row is incremented (cents = cents + the day's sum). A kill
# after the COMMIT (the journal's unlink, the shell's close, the log's open) makes the retry
# add the day again: day_sums says twice the payments. Caught by the scenario's own check
# sums_match_payments under every model, a kill -9 included. The correct form sets the row to
# the full recompute (ON CONFLICT(day) DO UPDATE SET cents = excluded.cents).
set -euo pipefail

form=${1:-correct}
db=$KILLPOINT_WORKDIR/ledger.db
day=$KILLPOINT_BIZ_DATE
[[ $day =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}$ ]] || { echo "bad date $day" >&2; exit 2; }

if [[ $form == correct ]]; then
  on_conflict="cents = excluded.cents, cnt = excluded.cnt"
else
  on_conflict="cents = cents + excluded.cents, cnt = cnt + excluded.cnt"
fi

sqlite3 -bail "$db" <<SQL
CREATE TABLE IF NOT EXISTS day_sums(day TEXT PRIMARY KEY, cents INTEGER NOT NULL, cnt INTEGER NOT NULL);
BEGIN;
INSERT INTO day_sums(day, cents, cnt)
  SELECT '$day', coalesce(sum(cents), 0), count(*) FROM payments WHERE day = '$day'
  ON CONFLICT(day) DO UPDATE SET $on_conflict;
COMMIT;
SQL
echo "$(date -u +%FT%TZ) settled $day ($form)" >> "$KILLPOINT_WORKDIR/settle.log"
