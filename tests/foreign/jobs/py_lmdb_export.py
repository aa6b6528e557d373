#!/usr/bin/env python3
"""At-most-once daily export that keeps the dates it sent in an LMDB environment
(Debian's python3-lmdb), sent.lmdb/ in the sandbox: the date is put in a write transaction,
committed, then the report is POSTed.

Usage: py_lmdb_export.py default|writemap|nometasync|mapasync
       py_lmdb_export.py FORM --create DIR     (the scenario's setup)

  default      lmdb.open() as it comes (sync=True, metasync=True): the commit writes the
               pages, fdatasyncs them, then writes the meta page through a second descriptor
               opened O_DSYNC. Correct.
  writemap     writemap=True: the pages are written through a shared mapping and msync'ed
               (MS_SYNC) at commit. Correct.
  nometasync   metasync=False: the meta page that makes the commit visible is written
               without a sync. A power cut after the POST may bring the previous commit back,
               and the retry POSTs the date again. Buggy.
  mapasync     writemap=True, map_async=True: the commit msyncs with MS_ASYNC, which only
               schedules writeback. The same loss. Buggy.

The environment is made by the scenario's setup (--create: open, env.sync(True), fsync of
sent.lmdb/ and of the sandbox, as LMDB never fsyncs a folder), the way a deployment provisions
it: creating an environment is not crash-safe by itself (a crash can leave a data.mdb of
zeros, "MDB_INVALID: File is not an LMDB file", forever), and that is not what this job tests.
The job opens it with create=False, so a lost environment fails loudly instead of starting
afresh. The lock file is on (lock=True, the default).
"""
import json
import os
import sys
import urllib.request

import lmdb

FORMS = {"default": {}, "writemap": {"writemap": True}, "nometasync": {"metasync": False},
         "mapasync": {"writemap": True, "map_async": True}}
FORM = sys.argv[1] if len(sys.argv) in (2, 4) else ""
CREATE = len(sys.argv) == 4 and sys.argv[2] == "--create"
if FORM not in FORMS or (len(sys.argv) == 4 and not CREATE):
    sys.exit("usage: py_lmdb_export.py " + "|".join(FORMS) + " [--create DIR]")
WORKDIR = sys.argv[3] if CREATE else os.environ["KILLPOINT_WORKDIR"]
PATH = os.path.join(WORKDIR, "sent.lmdb")
DAY = os.environ.get("KILLPOINT_BIZ_DATE", "")


def fsync_dir(path):
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def publish():
    body = json.dumps({"key": DAY, "biz_date": DAY, "payload": {"report": "daily"}}).encode()
    req = urllib.request.Request(os.environ["KILLPOINT_DOWNSTREAM"] + "/publish", data=body,
                                 headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(req, timeout=5) as resp:
        return json.load(resp).get("delivery_id")


def create():
    env = lmdb.open(PATH, map_size=1 << 20, **FORMS[FORM])
    env.sync(True)
    env.close()
    fsync_dir(PATH)
    fsync_dir(WORKDIR)
    return 0


def main():
    env = lmdb.open(PATH, map_size=1 << 20, create=False, **FORMS[FORM])
    with env.begin() as txn:
        if txn.get(DAY.encode()) is not None:
            print(DAY, "was already sent")
            return 0
    with env.begin(write=True) as txn:
        txn.put(DAY.encode(), b"sent")
    env.close()
    print("published", DAY, "delivery", publish())
    return 0


if __name__ == "__main__":
    sys.exit(create() if CREATE else main())
