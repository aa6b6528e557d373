#!/usr/bin/env python3
"""A settlement that credits an account on PostgreSQL, with Debian's psycopg2 (issue 32): it
writes the date's settlement row, then adds the amount to the account's balance. Run again, it
skips a date that has its row. Its scenarios name no point of the job's own: the fault proxy
makes every statement a crash point (docs/services.md, "Command points").

  autocommit_pg.py setup DATES      the trial's schema, orders and account (comma-separated dates)
  autocommit_pg.py autocommit       buggy: each statement commits on its own (autocommit); killed
                                    between the INSERT and the UPDATE, the retry finds the row and
                                    skips the date: the balance never gets the amount
  autocommit_pg.py one-transaction  correct: both statements in one transaction, committed
                                    together or not at all
"""
import os
import sys

import psycopg2

SCHEMA = """
CREATE TABLE orders (id serial PRIMARY KEY, biz_date date NOT NULL, amount_cents bigint NOT NULL);
CREATE TABLE settlement (biz_date date PRIMARY KEY, amount_cents bigint NOT NULL);
CREATE TABLE account (id int PRIMARY KEY, balance_cents bigint NOT NULL);
"""


def setup(days):
    conn = psycopg2.connect("")  # libpq reads PGHOST, PGPORT, PGDATABASE, PGUSER, PGPASSWORD
    with conn, conn.cursor() as cur:
        cur.execute(SCHEMA)
        cur.execute("INSERT INTO account (id, balance_cents) VALUES (1, 0)")
        for i, day in enumerate(days.split(",")):
            cur.executemany("INSERT INTO orders (biz_date, amount_cents) VALUES (%s, %s)",
                            [(day, 100 + i), (day, 250)])
    conn.close()


def settle(day, autocommit):
    conn = psycopg2.connect("")
    conn.autocommit = autocommit
    try:
        with conn.cursor() as cur:
            cur.execute("SELECT 1 FROM settlement WHERE biz_date = %s", (day,))
            if cur.fetchone():
                conn.rollback()
                return  # settled by an earlier run
            cur.execute("SELECT COALESCE(SUM(amount_cents), 0) FROM orders WHERE biz_date = %s",
                        (day,))
            (total,) = cur.fetchone()
            cur.execute("INSERT INTO settlement (biz_date, amount_cents) VALUES (%s, %s)",
                        (day, total))
            cur.execute("UPDATE account SET balance_cents = balance_cents + %s WHERE id = 1",
                        (total,))
        conn.commit()  # nothing left to commit in autocommit
    finally:
        conn.close()


def main():
    if sys.argv[1] == "setup":
        setup(sys.argv[2])
        return 0
    settle(os.environ["KILLPOINT_BIZ_DATE"], sys.argv[1] == "autocommit")
    return 0


if __name__ == "__main__":
    sys.exit(main())
