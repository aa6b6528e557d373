#!/usr/bin/env python3
"""An order state machine on PostgreSQL (docs/catalogue.md), with Debian's psycopg2: each order
of the date goes new -> processing -> completed, and is fulfilled once (a POST /publish to the
harness's downstream, key fulfil-ORDER: the effect no transaction takes back).

  order_state_pg.py setup DATES      the day's orders (comma-separated dates), status 'new'
  order_state_pg.py conditional      correct: UPDATE ... SET status = 'processing' WHERE status =
                                     'new'; only the run whose UPDATE changed the row fulfils
  order_state_pg.py read-then-write  buggy: reads the status, fulfils anything not completed,
                                     then writes; two instances at once both read 'new' and
                                     both fulfil
"""
import json
import os
import sys
import urllib.request

import psycopg2

from kp_failpoint import failpoint


def setup(conn, days):
    with conn, conn.cursor() as cur:
        cur.execute("CREATE TABLE orders (order_id text PRIMARY KEY, biz_date date NOT NULL,"
                    " status text NOT NULL DEFAULT 'new')")
        for day in days.split(","):
            cur.executemany("INSERT INTO orders (order_id, biz_date) VALUES (%s, %s)",
                            [(f"{day}/1", day), (f"{day}/2", day)])


def fulfil(order_id):
    body = json.dumps({"key": f"fulfil-{order_id}", "payload": order_id}).encode()
    request = urllib.request.Request(
        os.environ["KILLPOINT_DOWNSTREAM"] + "/publish", data=body, method="POST",
        headers={"Content-Type": "application/json",
                 "X-Killpoint-Instance": os.environ.get("KILLPOINT_INSTANCE", "1")})
    urllib.request.urlopen(request, timeout=5).read()


def claim_conditional(cur, order_id):
    cur.execute("UPDATE orders SET status = 'processing' WHERE order_id = %s AND status = 'new'",
                (order_id,))
    if cur.rowcount != 1:
        return False  # someone else's, or done
    failpoint("after_claim")
    return True


def claim_read_then_write(cur, order_id):
    cur.execute("SELECT status FROM orders WHERE order_id = %s", (order_id,))
    if cur.fetchone()[0] == "completed":
        return False
    failpoint("after_read")
    cur.execute("UPDATE orders SET status = 'processing' WHERE order_id = %s", (order_id,))
    return True


def main():
    conn = psycopg2.connect("")  # libpq reads PGHOST, PGPORT, PGDATABASE, PGUSER, PGPASSWORD
    if sys.argv[1] == "setup":
        setup(conn, sys.argv[2])
        return 0
    conn.autocommit = True  # each statement its own transaction
    claim = claim_conditional if sys.argv[1] == "conditional" else claim_read_then_write
    day = os.environ["KILLPOINT_BIZ_DATE"]
    with conn.cursor() as cur:
        cur.execute("SELECT order_id FROM orders WHERE biz_date = %s ORDER BY order_id", (day,))
        for (order_id,) in cur.fetchall():
            if claim(cur, order_id):
                fulfil(order_id)
                cur.execute("UPDATE orders SET status = 'completed' WHERE order_id = %s",
                            (order_id,))
    conn.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
