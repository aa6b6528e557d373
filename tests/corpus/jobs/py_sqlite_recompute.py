#!/usr/bin/env python3
"""Recompute one day's row of daily_totals from payments, in ledger.db (SQLite, WAL mode).

Usage: py_sqlite_recompute.py correct|buggy

The setup (seed_previous_run.py) leaves a previous run's row for every date; late payments
make it stale, so the job replaces it: delete the day's row, insert the recomputed one.

The bug (form "buggy"): the delete and the insert are two transactions (delete, commit,
insert, commit). Each commit is durable, so a crash between them leaves the day without a
row until the retry writes it again: a report, an export or a person reading daily_totals
in that window sees the day missing. The final state is right, so only a check of every
crash state (the scenario's "after_every_crash": true) sees it. The correct form deletes and
inserts in one transaction: a reader sees the old row or the new one, never none.
"""
import os
import sqlite3
import sys

FORM = sys.argv[1]
DAY = os.environ["KILLPOINT_BIZ_DATE"]

con = sqlite3.connect(os.path.join(os.environ["KILLPOINT_WORKDIR"], "ledger.db"))
con.execute("PRAGMA journal_mode=WAL")
total, n = con.execute("SELECT coalesce(sum(cents), 0), count(*) FROM payments WHERE day = ?",
                       (DAY,)).fetchone()
con.execute("DELETE FROM daily_totals WHERE day = ?", (DAY,))
if FORM == "buggy":
    con.commit()
con.execute("INSERT INTO daily_totals(day, total_cents, n) VALUES (?, ?, ?)", (DAY, total, n))
con.commit()
con.close()
print(f"recomputed {DAY}: {n} payments, {total} cents")
