#!/usr/bin/env python3
"""A Python job under killpoint: logs its start, passes failpoint py_before_mark, then
marks the business date done. Speaks the failpoint protocol of docs/failpoint-protocol.md."""
import os
import socket
import sys


def failpoint(name):
    ctl = os.environ.get("KILLPOINT_CTL")
    if not ctl:
        return  # Not under the harness: a no-op.
    try:
        host, port = ctl.rsplit(":", 1)
        with socket.create_connection((host, int(port))) as conn:
            conn.sendall(f"HIT {name} {os.getpid()}\n".encode())
            answer = conn.makefile("rb").readline().decode(errors="replace")
    except (OSError, ValueError) as error:
        answer = f"channel broken ({error})"
    if answer != "CONTINUE\n":
        sys.stderr.write(f"killpoint failpoint: at {name}: {answer.strip() or 'EOF'}\n")
        os._exit(70)


workdir = os.environ.get("KILLPOINT_WORKDIR")
if not workdir:
    sys.stderr.write("failpoint_job.py: KILLPOINT_WORKDIR is not set\n")
    sys.exit(2)
with open(os.path.join(workdir, "python-job.log"), "a") as log:
    log.write(f"started {os.environ.get('KILLPOINT_ATTEMPT', '1')}\n")
failpoint("py_before_mark")
with open(os.path.join(workdir, "python-job.done"), "w") as done:
    done.write(os.environ.get("KILLPOINT_BIZ_DATE", "") + "\n")
