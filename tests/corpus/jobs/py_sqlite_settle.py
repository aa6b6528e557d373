#!/usr/bin/env python3
"""Settle one day of payments into daily_totals, in ledger.db (SQLite through Python's sqlite3).

Usage: py_sqlite_settle.py delete|wal correct|buggy

payments(id, day, cents) is filled by the scenario's setup (seed_payments.py). The job sets the
journal mode (DELETE or WAL), creates daily_totals if needed, sums the day's payments and
writes the day's row in one transaction.

The bug (form "buggy"): the row is incremented (total_cents = total_cents + the day's sum)
instead of set to the recomputed sum. A kill after the COMMIT reached the disk (the journal's
unlink in DELETE mode, the WAL's write and sync in WAL mode, the checkpoint and close that
follow) makes the retry add the day a second time: the total is double the payments. Caught by
the scenario's own check totals_match_payments under every model, a kill -9 included. The
correct form writes the full recompute with ON CONFLICT(day) DO UPDATE SET ... = excluded.*:
a rerun gives the same row.
"""
import os
import sqlite3
import sys

MODE, FORM = sys.argv[1], sys.argv[2]
DAY = os.environ["KILLPOINT_BIZ_DATE"]

con = sqlite3.connect(os.path.join(os.environ["KILLPOINT_WORKDIR"], "ledger.db"))
con.execute(f"PRAGMA journal_mode={MODE}")
con.execute("CREATE TABLE IF NOT EXISTS daily_totals("
            "day TEXT PRIMARY KEY, total_cents INTEGER NOT NULL, n INTEGER NOT NULL)")
con.commit()
total, n = con.execute("SELECT coalesce(sum(cents), 0), count(*) FROM payments WHERE day = ?",
                       (DAY,)).fetchone()
if FORM == "correct":
    sql = ("INSERT INTO daily_totals(day, total_cents, n) VALUES (?, ?, ?) ON CONFLICT(day) "
           "DO UPDATE SET total_cents = excluded.total_cents, n = excluded.n")
else:
    sql = ("INSERT INTO daily_totals(day, total_cents, n) VALUES (?, ?, ?) ON CONFLICT(day) "
           "DO UPDATE SET total_cents = total_cents + excluded.total_cents, n = n + excluded.n")
with con:
    con.execute(sql, (DAY, total, n))
con.close()
print(f"settled {DAY}: {n} payments, {total} cents")
