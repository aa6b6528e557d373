#!/usr/bin/env python3
"""The ambiguous COMMIT on MariaDB (issue 20), with Debian's PyMySQL: a settlement job whose
COMMIT may commit and never be answered (the harness's fault proxy drops the answer:
docs/services.md). PyMySQL's conn.commit() sends COM_QUERY "COMMIT"; the job sees the
connection lost, reconnects and tries again, up to three times.

  ambiguous_commit_mariadb.py setup DATES  the trial's schema and orders (comma-separated dates)
  ambiguous_commit_mariadb.py naive        buggy: takes the lost answer for a failure and redoes
                                           its plain INSERT: a second row for the date
  ambiguous_commit_mariadb.py keyed        correct: after (re)connecting, looks the date up
                                           first; a COMMIT that did happen is not redone
"""
import os
import sys
import time

import pymysql

SCHEMA = [
    """CREATE TABLE orders (id INT AUTO_INCREMENT PRIMARY KEY, biz_date DATE NOT NULL,
                           amount_cents BIGINT NOT NULL) ENGINE=InnoDB""",
    """CREATE TABLE settlement (id INT AUTO_INCREMENT PRIMARY KEY, biz_date DATE NOT NULL,
                               amount_cents BIGINT NOT NULL) ENGINE=InnoDB""",
]
LOST = (pymysql.err.OperationalError, pymysql.err.InterfaceError)  # the connection, not the SQL


def connect():
    return pymysql.connect(host=os.environ["MYSQL_HOST"], port=int(os.environ["MYSQL_TCP_PORT"]),
                           user=os.environ["MYSQL_USER"], password=os.environ["MYSQL_PWD"],
                           database=os.environ["MYSQL_DATABASE"],
                           autocommit=False)


def setup(days):
    conn = connect()
    with conn.cursor() as cur:
        for statement in SCHEMA:
            cur.execute(statement)
        for i, day in enumerate(days.split(",")):
            cur.executemany("INSERT INTO orders (biz_date, amount_cents) VALUES (%s, %s)",
                            [(day, 100 + i), (day, 250)])
    conn.commit()
    conn.close()


def settle_once(day, keyed):
    conn = connect()
    try:
        with conn.cursor() as cur:
            if keyed:
                cur.execute("SELECT 1 FROM settlement WHERE biz_date = %s", (day,))
                if cur.fetchone():
                    conn.rollback()
                    return  # an earlier try committed: its answer was lost, not its row
            cur.execute("SELECT COALESCE(SUM(amount_cents), 0) FROM orders WHERE biz_date = %s",
                        (day,))
            (total,) = cur.fetchone()
            cur.execute("INSERT INTO settlement (biz_date, amount_cents) VALUES (%s, %s)",
                        (day, total))
        conn.commit()  # COMMIT: the fault proxy may let it through and drop its answer
    finally:
        try:
            conn.close()
        except pymysql.err.Error:
            pass  # already lost


def main():
    if sys.argv[1] == "setup":
        setup(sys.argv[2])
        return 0
    keyed = sys.argv[1] == "keyed"
    day = os.environ["KILLPOINT_BIZ_DATE"]
    for attempt in range(1, 4):
        try:
            settle_once(day, keyed)
            return 0
        except LOST as e:
            sys.stderr.write(f"ambiguous_commit_mariadb.py: try {attempt}: {e}\n")
            time.sleep(0.05)
    return 1


if __name__ == "__main__":
    sys.exit(main())
