#!/usr/bin/env python3
"""At-most-once daily export whose save is done by child processes with a cleaned
environment, as a job that shells out with subprocess.run(..., env={...}) does.

Usage: py_cp_child.py correct|buggy

The new state is written to sent.json.tmp (open, write, flush, os.fsync), then copied over
sent.json by `cp` run with env={"PATH": "/usr/bin:/bin"}, then the report is POSTed.
cp rewrites sent.json in place (O_TRUNC): the state is padded to 512 bytes, one disk sector,
so that a crash mid-copy leaves the old sector or the new one, never half of each. (On a real
ext4 a timer commit between cp's truncation and its write could still leave an empty file,
which this job reads as "nothing sent"; the persistence models take no timer commit.)

  correct   after cp, a second cleaned child, `sync sent.json DIR`, fsyncs the copy and the
            folder (its new name on the first save) before the POST
  buggy     no sync: a power cut after the POST brings the old sent.json back (or none), and
            the retry POSTs the date again

The children run without LD_PRELOAD: the syscall shim sees neither cp nor sync.
"""
import json
import os
import subprocess
import sys
import urllib.request

FORM = sys.argv[1] if len(sys.argv) == 2 else ""
if FORM not in ("correct", "buggy"):
    sys.exit("usage: py_cp_child.py correct|buggy")
WORKDIR = os.environ["KILLPOINT_WORKDIR"]
DAY = os.environ["KILLPOINT_BIZ_DATE"]
STATE = os.path.join(WORKDIR, "sent.json")
CLEAN = {"PATH": "/usr/bin:/bin"}


def load():
    try:
        with open(STATE) as f:
            text = f.read()
    except FileNotFoundError:
        return {"sent": []}
    if not text.strip():
        return {"sent": []}
    try:
        return json.loads(text)
    except ValueError:
        sys.stderr.write(f"export: {STATE} is corrupt ({len(text)} bytes), refusing to guess\n")
        sys.exit(3)


def save(state):
    tmp = STATE + ".tmp"
    with open(tmp, "w") as f:
        f.write(json.dumps(state).ljust(511) + "\n")
        f.flush()
        os.fsync(f.fileno())
    subprocess.run(["cp", tmp, STATE], env=CLEAN, check=True)
    if FORM == "correct":
        subprocess.run(["sync", STATE, WORKDIR], env=CLEAN, check=True)


def publish():
    body = json.dumps({"key": DAY, "biz_date": DAY, "payload": {"report": "daily"}}).encode()
    req = urllib.request.Request(os.environ["KILLPOINT_DOWNSTREAM"] + "/publish", data=body,
                                 headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(req, timeout=5) as resp:
        return json.load(resp).get("delivery_id")


def main():
    state = load()
    if DAY in state["sent"]:
        print(DAY, "was already sent")
        return 0
    state["sent"].append(DAY)
    save(state)
    print("published", DAY, "delivery", publish())
    return 0


if __name__ == "__main__":
    sys.exit(main())
