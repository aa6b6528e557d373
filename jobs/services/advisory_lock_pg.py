#!/usr/bin/env python3
"""A daily payout by check-then-act on PostgreSQL (docs/catalogue.md), with Debian's psycopg2:
"is the date paid? if not, pay", a row in `payouts` (no unique key: the lock is what keeps the
two steps together).

  advisory_lock_pg.py setup DATES  the payouts table (no input needed)
  advisory_lock_pg.py advisory     correct: pg_try_advisory_lock(hashtext(date)) first, a
                                   session lock; a run that cannot take it exits 75 (busy: the
                                   scheduler retries); a killed holder's lock goes with its
                                   connection
  advisory_lock_pg.py none         buggy: no lock; two instances at once both find the date
                                   unpaid and both pay
"""
import os
import sys

import psycopg2

from kp_failpoint import failpoint


def main():
    conn = psycopg2.connect("")  # libpq reads PGHOST, PGPORT, PGDATABASE, PGUSER, PGPASSWORD
    conn.autocommit = True
    cur = conn.cursor()
    if sys.argv[1] == "setup":
        cur.execute("CREATE TABLE payouts (id serial PRIMARY KEY, biz_date date NOT NULL,"
                    " instance integer NOT NULL)")
        return 0
    day = os.environ["KILLPOINT_BIZ_DATE"]
    if sys.argv[1] == "advisory":
        cur.execute("SELECT pg_try_advisory_lock(hashtext(%s))", (day,))
        if not cur.fetchone()[0]:
            sys.stderr.write(f"advisory_lock_pg.py: {day} is locked by another run\n")
            return 75
    cur.execute("SELECT 1 FROM payouts WHERE biz_date = %s", (day,))
    if cur.fetchone() is None:
        failpoint("after_check")  # the date is unpaid
        cur.execute("INSERT INTO payouts (biz_date, instance) VALUES (%s, %s)",
                    (day, int(os.environ.get("KILLPOINT_INSTANCE", "1"))))
        failpoint("after_pay")
    conn.close()  # a session's advisory locks go with it
    return 0


if __name__ == "__main__":
    sys.exit(main())
