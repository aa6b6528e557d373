#!/usr/bin/env python3
"""Inventory decrement with a ledger row on PostgreSQL (docs/catalogue.md), with Debian's
psycopg2. Each shipment of the date takes its quantity off `stock` and writes a `stock_log` row
keyed by its order; a shipment already in the ledger is skipped. Killed and retried.

  inventory_pg.py setup DATES   the trial's stock and the day's shipments (comma-separated dates)
  inventory_pg.py one-tx        correct: the ledger row (ON CONFLICT DO NOTHING) and the
                                decrement in one transaction: both or neither
  inventory_pg.py two-tx        buggy: the decrement commits, then the ledger row in a second
                                transaction; killed between them, the retry finds no ledger row
                                and takes the stock off again
  inventory_pg.py two-tx-reconcile
                                the same two transactions, after a start that recomputes the
                                stock from the ledger: the retry repairs what a kill between them
                                left, so the end is right, but a reader between the kill and the
                                retry sees stock taken with no ledger row (after_every_crash)
"""
import os
import sys

import psycopg2

from kp_failpoint import failpoint

SCHEMA = """
CREATE TABLE stock (sku text PRIMARY KEY, initial integer NOT NULL, qty integer NOT NULL);
CREATE TABLE shipments (order_id text PRIMARY KEY, biz_date date NOT NULL, sku text NOT NULL,
                        qty integer NOT NULL);
CREATE TABLE stock_log (order_id text PRIMARY KEY, biz_date date NOT NULL, sku text NOT NULL,
                        qty integer NOT NULL);
INSERT INTO stock VALUES ('widget', 100, 100);
"""


def setup(conn, days):
    with conn, conn.cursor() as cur:
        cur.execute(SCHEMA)
        for day in days.split(","):
            cur.executemany("INSERT INTO shipments VALUES (%s, %s, 'widget', %s)",
                            [(f"{day}/1", day, 3), (f"{day}/2", day, 5)])


def ship_one_tx(conn, order_id, day, sku, qty):
    with conn, conn.cursor() as cur:  # one transaction
        cur.execute("INSERT INTO stock_log VALUES (%s, %s, %s, %s) ON CONFLICT (order_id) DO NOTHING",
                    (order_id, day, sku, qty))
        if cur.rowcount == 1:  # not shipped before
            cur.execute("UPDATE stock SET qty = qty - %s WHERE sku = %s", (qty, sku))
            failpoint("before_commit")
    failpoint("after_commit")


def ship_two_tx(conn, order_id, day, sku, qty):
    with conn, conn.cursor() as cur:
        cur.execute("SELECT 1 FROM stock_log WHERE order_id = %s", (order_id,))
        if cur.fetchone():
            return  # logged: shipped before
        cur.execute("UPDATE stock SET qty = qty - %s WHERE sku = %s", (qty, sku))
    failpoint("between_transactions")  # the decrement is committed, its ledger row is not
    with conn, conn.cursor() as cur:
        cur.execute("INSERT INTO stock_log VALUES (%s, %s, %s, %s)", (order_id, day, sku, qty))


def reconcile(conn):
    with conn, conn.cursor() as cur:  # the stock as its ledger says
        cur.execute("UPDATE stock s SET qty = s.initial - COALESCE("
                    "(SELECT sum(qty) FROM stock_log l WHERE l.sku = s.sku), 0)")


def main():
    conn = psycopg2.connect("")  # libpq reads PGHOST, PGPORT, PGDATABASE, PGUSER, PGPASSWORD
    if sys.argv[1] == "setup":
        setup(conn, sys.argv[2])
        return 0
    ship = ship_one_tx if sys.argv[1] == "one-tx" else ship_two_tx
    if sys.argv[1] == "two-tx-reconcile":
        reconcile(conn)
    day = os.environ["KILLPOINT_BIZ_DATE"]
    with conn.cursor() as cur:
        cur.execute("SELECT order_id, sku, qty FROM shipments WHERE biz_date = %s ORDER BY order_id",
                    (day,))
        shipments = cur.fetchall()
    conn.commit()
    for order_id, sku, qty in shipments:
        ship(conn, order_id, day, sku, qty)
    conn.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
