#!/usr/bin/env python3
"""A publish job as most Python code is written: mark the date done in a JSON state file, then
publish (mark-then-execute, at-most-once). The state is saved with the common recipe: a temp
file, fsync, os.replace. Without --dirsync the directory is never fsync'ed, so after a power
cut the rename may be gone and the date not marked: the retry publishes it a second time.
Uses only the standard library; speaks the failpoint protocol of docs/failpoint-protocol.md."""
import json
import os
import socket
import sys
import urllib.request


def failpoint(name):
    ctl = os.environ.get("KILLPOINT_CTL")
    if not ctl:
        return
    host, port = ctl.rsplit(":", 1)
    with socket.create_connection((host, int(port))) as conn:
        conn.sendall(f"HIT {name} {os.getpid()}\n".encode())
        if conn.makefile("rb").readline() != b"CONTINUE\n":
            sys.stderr.write(f"killpoint failpoint: broken channel at {name}\n")
            os._exit(70)


def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except FileNotFoundError:
        return {"version": 1, "dates": {}}


def save(path, state, dirsync):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(state, f)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    if dirsync:
        fd = os.open(os.path.dirname(path), os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def publish(base, date):
    key = "publish-" + date
    body = json.dumps({"key": key, "biz_date": date, "payload": {"text": "settlement for " + date}})
    req = urllib.request.Request(base + "/publish", data=body.encode(), method="POST",
                                 headers={"Content-Type": "application/json", "Idempotency-Key": key})
    with urllib.request.urlopen(req, timeout=5) as answer:
        return json.load(answer)


def main():
    workdir, date = os.environ["KILLPOINT_WORKDIR"], os.environ["KILLPOINT_BIZ_DATE"]
    path = os.path.join(workdir, "publish-state.json")
    state = load(path)
    if state["dates"].get(date) == "done":
        print("already done:", date)
        return 0
    state["dates"][date] = "done"
    save(path, state, "--dirsync" in sys.argv[1:])
    failpoint("before_publish")
    try:
        delivery = publish(os.environ["KILLPOINT_DOWNSTREAM"], date)
    except OSError as error:
        sys.stderr.write(f"publish_job.py: publish failed: {error}\n")
        return 1
    failpoint("after_publish")
    print("published", date, delivery)
    return 0


if __name__ == "__main__":
    sys.exit(main())
