#!/usr/bin/env python3
"""A work queue in a PostgreSQL table (docs/catalogue.md), with Debian's psycopg2: the day's
payment tasks wait in `tasks`; a worker takes one with SELECT ... FOR UPDATE SKIP LOCKED (two
workers never take the same row), pays it (a row in `payments`) and marks it done. `requests`
keeps what was asked for, for the checks.

  queue_pg.py setup DATES    the day's requests and their tasks (comma-separated dates)
  queue_pg.py skip-locked    correct: take, pay and mark done in one transaction; a worker
                             killed before its COMMIT leaves the task as it was, and the retry
                             takes it again
  queue_pg.py ack-before     buggy: take and delete the task (the ack) in one transaction, then
                             pay; killed between the two, the task is gone and never paid
"""
import os
import sys

import psycopg2

from kp_failpoint import failpoint

SCHEMA = """
CREATE TABLE requests (id integer PRIMARY KEY, biz_date date NOT NULL, amount_cents bigint NOT NULL);
CREATE TABLE tasks (request_id integer PRIMARY KEY, biz_date date NOT NULL,
                    done boolean NOT NULL DEFAULT false);
CREATE TABLE payments (id serial PRIMARY KEY, request_id integer NOT NULL, biz_date date NOT NULL,
                       amount_cents bigint NOT NULL);
"""
TAKE = ("SELECT t.request_id, r.amount_cents FROM tasks t JOIN requests r ON r.id = t.request_id"
        " WHERE t.biz_date = %s AND NOT t.done ORDER BY t.request_id FOR UPDATE OF t SKIP LOCKED"
        " LIMIT 1")
PAY = "INSERT INTO payments (request_id, biz_date, amount_cents) VALUES (%s, %s, %s)"


def setup(conn, days):
    with conn, conn.cursor() as cur:
        cur.execute(SCHEMA)
        for i, day in enumerate(days.split(",")):
            for k in (1, 2):
                cur.execute("INSERT INTO requests VALUES (%s, %s, %s)", (10 * i + k, day, 100 * k))
                cur.execute("INSERT INTO tasks (request_id, biz_date) VALUES (%s, %s)",
                            (10 * i + k, day))


def work_skip_locked(conn, day):
    with conn, conn.cursor() as cur:  # one transaction: the task stays locked until COMMIT
        cur.execute(TAKE, (day,))
        task = cur.fetchone()
        if task is None:
            return False
        cur.execute(PAY, (task[0], day, task[1]))
        failpoint("after_pay")
        cur.execute("UPDATE tasks SET done = true WHERE request_id = %s", (task[0],))
    failpoint("after_commit")
    return True


def work_ack_before(conn, day):
    with conn, conn.cursor() as cur:
        cur.execute(TAKE, (day,))
        task = cur.fetchone()
        if task is None:
            return False
        cur.execute("DELETE FROM tasks WHERE request_id = %s", (task[0],))  # the ack
    failpoint("after_ack")  # acked and not paid
    with conn, conn.cursor() as cur:
        cur.execute(PAY, (task[0], day, task[1]))
    return True


def main():
    conn = psycopg2.connect("")  # libpq reads PGHOST, PGPORT, PGDATABASE, PGUSER, PGPASSWORD
    if sys.argv[1] == "setup":
        setup(conn, sys.argv[2])
        return 0
    work = work_skip_locked if sys.argv[1] == "skip-locked" else work_ack_before
    day = os.environ["KILLPOINT_BIZ_DATE"]
    while work(conn, day):
        pass
    conn.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
