#!/usr/bin/env python3
"""Writes tests/foreign/scenarios/*.json, one scenario per (job, linking, form), from the table
below, so that every scenario has the same shape: an at-most-once daily export, every file
operation a crash point ("syscall_points": true, no failpoints), the four persistence models,
two dates, three attempts, 40 trials.

Usage: python3 tests/foreign/make_scenarios.py    (rewrites the folder's files in place)
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))

# (stem, command, form, state file or None, what the form does)
C_JOBS = [
    ("c-rename", "c_rename", [
        ("correct", "correct", "tmp file + write + fsync + rename + fsync of the folder"),
        ("buggy", "buggy", "tmp file + write + fsync + rename, no fsync of the folder")]),
    ("c-raw-syscall", "c_raw_syscall", [
        ("correct", "correct", "syscall(SYS_openat/SYS_write/SYS_fsync/SYS_renameat) + fsync of the folder, no libc wrapper"),
        ("buggy", "buggy", "the same raw system calls, no fsync of the folder")]),
    ("c-osync", "c_osync", [
        ("correct-osync", "osync", "tmp opened O_SYNC + write + rename + fsync of the folder, no fsync call"),
        ("correct-odsync", "odsync", "tmp opened O_DSYNC + write + rename + fsync of the folder, no fsync call"),
        ("buggy", "buggy", "tmp opened without O_SYNC, never fsync'ed + rename + fsync of the folder: the name is durable, the content is not")]),
    ("c-pwritev2", "c_pwritev2", [
        ("correct", "correct", "tmp written with pwritev2(..., RWF_DSYNC) + rename + fsync of the folder"),
        ("buggy", "buggy", "tmp written with pwritev2(..., 0), never fsync'ed + rename + fsync of the folder")]),
    ("c-mmap", "c_mmap", [
        ("correct", "correct", "fixed-size state mapped MAP_SHARED, stores + msync(MS_SYNC)"),
        ("buggy-async", "buggy-async", "the same stores + msync(MS_ASYNC): writeback only scheduled"),
        ("buggy-nomsync", "buggy-nomsync", "the same stores, no msync")]),
    ("c-otmpfile", "c_otmpfile", [
        ("correct", "correct", "open(O_TMPFILE) + write + fsync + linkat via /proc/self/fd + rename + fsync of the folder"),
        ("buggy", "buggy", "the same without the fsync of the unnamed file: the name is durable, the content is not")]),
    ("c-syncfs", "c_syncfs", [
        ("correct-syncfs", "syncfs", "tmp + write + syncfs + rename + syncfs, no fsync"),
        ("correct-sync", "sync", "tmp + write + sync() + rename + sync(), no fsync"),
        ("buggy", "buggy", "tmp + write + syncfs + rename, no sync after the rename")]),
    ("c-stdio", "c_stdio", [
        ("correct", "correct", "fopen(\"w\") tmp + fwrite + fflush + fsync(fileno) + fclose + rename + fsync of the folder"),
        ("buggy-nofsync", "buggy-nofsync", "the same without fsync(fileno(f)): the name is durable, the content is not"),
        ("buggy-inplace", "buggy-inplace", "fopen(\"w\") of sent.json itself (O_TRUNC) + fwrite + fclose, no fsync")]),
    ("c-io-uring", "c_io_uring", [
        ("correct", "correct", "io_uring by raw system calls: OPENAT, WRITE, FSYNC, CLOSE, RENAMEAT, FSYNC of the folder"),
        ("buggy", "buggy", "the same ring without any IORING_OP_FSYNC")]),
]

OTHER_JOBS = [
    ("go-rename", ["{bindir}/kp-foreign-go-rename"], "sent.json", [
        ("correct", "correct", "Go: os.CreateTemp + Write + Sync + Close + os.Rename + Sync of the folder (docs/writing-a-job.md)"),
        ("buggy", "buggy", "Go: the same without the Sync of the folder")]),
    ("rs-rename", ["{bindir}/kp-foreign-rs-rename"], "sent.json", [
        ("correct", "correct", "Rust std: File::create + write_all + sync_all + fs::rename + sync_all of the folder"),
        ("buggy", "buggy", "Rust std: the same without the sync of the folder")]),
    ("py-cp-child", ["/usr/bin/python3", "{scenario_dir}/../jobs/py_cp_child.py"], "sent.json", [
        ("correct", "correct", "Python: tmp + fsync, then cp tmp sent.json and sync sent.json DIR, both children with env={PATH} (no LD_PRELOAD)"),
        ("buggy", "buggy", "Python: the same cp child, no sync child")]),
    ("sh-sync-export", ["/bin/bash", "{scenario_dir}/../jobs/sh_sync_export.sh"], "sent.json", [
        ("correct", "correct", "bash: mktemp -p, printf >, sync FILE, mv, sync DIR (docs/writing-a-job.md)"),
        ("buggy", "buggy", "bash: mktemp -p, printf >, mv, no sync")]),
    ("py-lmdb", ["/usr/bin/python3", "{scenario_dir}/../jobs/py_lmdb_export.py"], None, [
        ("correct-default", "default", "Python + LMDB, lmdb.open() defaults: fdatasync of the pages, meta page through an O_DSYNC descriptor"),
        ("correct-writemap", "writemap", "Python + LMDB, writemap=True: pages and meta page msync'ed (MS_SYNC)"),
        ("buggy-nometasync", "nometasync", "Python + LMDB, metasync=False: the meta page of the commit is never synced"),
        ("buggy-mapasync", "mapasync", "Python + LMDB, writemap=True + map_async=True: msync(MS_ASYNC)")]),
]


def scenario(stem, command, state_file, what, correct, setup=None):
    outcome = ("must pass under every model" if correct else
               "loses the date's mark in a crash after the POST, and the retry POSTs again")
    s = {
        "name": "foreign/" + stem,
        "description": f"At-most-once daily export, {'correct' if correct else 'buggy'}: {what}. "
                       f"It {outcome}.",
        "job": {"command": command, "timeout_ms": 10000},
        "dates": ["2026-11-01", "2026-11-02"],
        "syscall_points": True,
        "models": ["process", "power", "torn", "ext4-ordered"],
        "retry": {"max_attempts": 3, "initial_interval_ms": 1000, "backoff_coefficient": 2.0,
                  "maximum_interval_ms": 30000},
    }
    if setup:
        s["job"]["setup"] = setup
    must = ["no_double_publish", "converges"]
    if state_file:
        s["check"] = {"state_file": state_file}
        must = ["no_double_publish", "state_readable", "converges"]
    s["invariants"] = {"must_hold": must, "expected_violations": ["no_loss"]}
    s["trials"] = 40
    return s


def main():
    out = os.path.join(HERE, "scenarios")
    os.makedirs(out, exist_ok=True)
    wanted = {}
    for stem, source, forms in C_JOBS:
        for link, suffix in (("dyn", ""), ("static", "-static")):
            binary = "{bindir}/kp-foreign-" + source.replace("_", "-") + suffix
            for name, arg, what in forms:
                what_l = what + (" (linked with -static)" if suffix else " (dynamically linked)")
                wanted[f"{stem}-{link}-{name}"] = scenario(
                    f"{stem}-{link}-{name}", [binary, arg], "sent.json", what_l,
                    name.startswith("correct"))
    for stem, command, state_file, forms in OTHER_JOBS:
        for name, arg, what in forms:
            # The LMDB environment is provisioned by the setup (py_lmdb_export.py's docstring).
            setup = command + [arg, "--create", "{workdir}"] if stem == "py-lmdb" else None
            wanted[f"{stem}-{name}"] = scenario(f"{stem}-{name}", command + [arg], state_file,
                                                what, name.startswith("correct"), setup)
    for f in os.listdir(out):
        if f.endswith(".json") and f[:-5] not in wanted:
            os.remove(os.path.join(out, f))
    for stem, s in wanted.items():
        with open(os.path.join(out, stem + ".json"), "w") as f:
            json.dump(s, f, indent=2)
            f.write("\n")
    print(f"{len(wanted)} scenarios in {out}")


if __name__ == "__main__":
    main()
