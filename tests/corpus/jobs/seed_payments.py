#!/usr/bin/env python3
"""Setup for the SQLite jobs: ledger.db with payments(id, day, cents), 3 to 5 a day.
Usage: seed_payments.py DB D1,D2,..."""
import sqlite3
import sys

con = sqlite3.connect(sys.argv[1])
con.execute("CREATE TABLE IF NOT EXISTS payments(id INTEGER PRIMARY KEY, day TEXT NOT NULL, cents INTEGER NOT NULL)")
for i, day in enumerate(sys.argv[2].split(",")):
    for n in range(3 + i % 3):
        con.execute("INSERT INTO payments(day, cents) VALUES (?, ?)", (day, 499 + 1000 * n + i))
con.commit()
con.close()
