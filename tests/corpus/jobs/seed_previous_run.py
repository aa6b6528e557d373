#!/usr/bin/env python3
"""Setup for py_sqlite_recompute.py: ledger.db in WAL mode with payments(id, day, cents), 3 to 5
a day, and daily_totals(day, total_cents, n) as a previous run left it, before the day's last
payment came in: every date has its row, each one payment short, so the job must recompute it.
Usage: seed_previous_run.py DB D1,D2,..."""
import sqlite3
import sys

con = sqlite3.connect(sys.argv[1])
con.execute("PRAGMA journal_mode=WAL")
con.execute("CREATE TABLE payments(id INTEGER PRIMARY KEY, day TEXT NOT NULL, cents INTEGER NOT NULL)")
con.execute("CREATE TABLE daily_totals(day TEXT PRIMARY KEY, total_cents INTEGER NOT NULL, n INTEGER NOT NULL)")
for i, day in enumerate(sys.argv[2].split(",")):
    cents = [499 + 1000 * n + i for n in range(3 + i % 3)]
    con.executemany("INSERT INTO payments(day, cents) VALUES (?, ?)", [(day, c) for c in cents])
    con.execute("INSERT INTO daily_totals VALUES (?, ?, ?)", (day, sum(cents[:-1]), len(cents) - 1))
con.commit()
con.close()
