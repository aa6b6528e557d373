#!/usr/bin/env python3
"""Publish the day's report once, remembering what was sent in sent.json.

Usage: py_mkstemp_publish.py correct|buggy

At-most-once: the date is written to sent.json first, then the report is POSTed, then the
delivery id is appended to deliveries.log. sent.json is replaced atomically: tempfile.mkstemp
in the same directory, write, flush, fsync, os.replace.

The bug (form "buggy"): the directory is never fsync'ed after os.replace. The rename lives in
the page cache only. A kill -9 (model "process") keeps it, so nothing is ever sent twice. A
power cut (models "power", "torn") after the POST (for instance while deliveries.log is being
written) brings back the old directory entry: sent.json no longer lists the date, the retry
POSTs the report a second time. Caught by no_double_publish under power and torn only.
The correct form fsyncs the directory before it POSTs. Both forms give up no_loss (a crash
between the mark and the POST loses the date): that is the at-most-once trade-off.
"""
import json
import os
import sys
import tempfile
import urllib.request

FORM = sys.argv[1] if len(sys.argv) > 1 else "correct"
WORKDIR = os.environ["KILLPOINT_WORKDIR"]
DAY = os.environ["KILLPOINT_BIZ_DATE"]
STATE = os.path.join(WORKDIR, "sent.json")


def load_sent():
    try:
        with open(STATE) as f:
            return json.load(f)
    except FileNotFoundError:
        return {"sent": []}


def save_sent(state):
    fd, tmp = tempfile.mkstemp(dir=WORKDIR)
    with os.fdopen(fd, "w") as f:
        json.dump(state, f, indent=2)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, STATE)
    if FORM == "correct":
        dfd = os.open(WORKDIR, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


def post_report():
    body = json.dumps({"key": "daily-report/" + DAY, "biz_date": DAY,
                       "payload": {"title": "Daily report " + DAY}}).encode()
    req = urllib.request.Request(os.environ["KILLPOINT_DOWNSTREAM"] + "/publish", data=body,
                                 headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(req, timeout=5) as resp:
        return json.load(resp).get("delivery_id")


def main():
    state = load_sent()
    if DAY in state["sent"]:
        print("report for", DAY, "was already sent")
        return 0
    state["sent"].append(DAY)
    save_sent(state)
    delivery = post_report()
    with open(os.path.join(WORKDIR, "deliveries.log"), "a") as log:
        log.write(f"{DAY} delivery={delivery}\n")
    print("sent report for", DAY, "delivery", delivery)
    return 0


if __name__ == "__main__":
    sys.exit(main())
