#!/usr/bin/env python3
"""Refund every order of the day listed in orders.csv, recording each refund in refunds.json.

Usage: py_ntf_refund.py correct|buggy

Execute-then-mark (at-least-once): for each order of the date that refunds.json does not list,
POST the refund, then record it (json.dump into a tempfile.NamedTemporaryFile(delete=False)
beside refunds.json, flush, fsync, os.replace, fsync of the directory). The downstream drops a
request whose Idempotency-Key it has already seen.

The bug (form "buggy"): the Idempotency-Key is a fresh uuid4() per call. A kill after a POST
and before its refund is recorded (any point of the save that follows it) makes the retry POST
the same order again with a new key, which the downstream cannot recognise: the customer is
refunded twice. Caught by one_delivery_per_key under every model, a kill -9 included. The
correct form's key is the order id and the date, the same on every attempt, so the retry's
POST is deduplicated. no_double_publish does not apply: a date has several refunds.
"""
import csv
import json
import os
import sys
import tempfile
import urllib.request
import uuid

FORM = sys.argv[1] if len(sys.argv) > 1 else "correct"
WORKDIR = os.environ["KILLPOINT_WORKDIR"]
DAY = os.environ["KILLPOINT_BIZ_DATE"]
DONE = os.path.join(WORKDIR, "refunds.json")


def orders_of_day():
    with open(os.path.join(WORKDIR, "orders.csv"), newline="") as f:
        return [row for row in csv.DictReader(f) if row["day"] == DAY]


def load_done():
    if not os.path.exists(DONE):
        return {"refunded": {}}
    with open(DONE) as f:
        return json.load(f)


def record(done):
    with tempfile.NamedTemporaryFile("w", dir=WORKDIR, prefix=".refunds-", delete=False) as f:
        json.dump(done, f, sort_keys=True)
        f.flush()
        os.fsync(f.fileno())
    os.replace(f.name, DONE)
    dfd = os.open(WORKDIR, os.O_RDONLY)
    os.fsync(dfd)
    os.close(dfd)


def refund(order):
    key = f"refund-{order['order_id']}-{DAY}" if FORM == "correct" else str(uuid.uuid4())
    body = json.dumps({"key": "refund-" + order["order_id"], "biz_date": DAY,
                       "payload": {"order": order["order_id"], "cents": int(order["cents"])}})
    req = urllib.request.Request(os.environ["KILLPOINT_DOWNSTREAM"] + "/publish", data=body.encode(),
                                 headers={"Content-Type": "application/json", "Idempotency-Key": key})
    with urllib.request.urlopen(req, timeout=5) as resp:
        return json.load(resp)


def main():
    done = load_done()
    for order in orders_of_day():
        if order["order_id"] in done["refunded"]:
            continue
        answer = refund(order)
        done["refunded"][order["order_id"]] = answer.get("delivery_id")
        record(done)
        print("refunded", order["order_id"], answer)
    return 0


if __name__ == "__main__":
    sys.exit(main())
