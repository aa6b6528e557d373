#!/usr/bin/env python3
"""Checks that no stage of the pipeline includes a later one (docs/architecture.md).

The stages, from the bottom: each may include its own headers and those of the stages before
it, never one after it. A stage is a folder: harness/<stage>/ or reports/. Usage:

    python3 scripts/check-stages.py [ROOT]

Exit 0 when every include points down or sideways, 1 naming each upward include
(FILE:LINE: STAGE includes HEADER), 2 on a folder that is no known stage.
"""
import pathlib
import re
import sys

STAGES = ["util", "scenario", "plan", "history", "proc", "channel", "service", "durability",
          "downstream", "run", "init", "check", "results", "counterexample", "explore", "replay",
          "reports", "suite", "cli"]
NOT_STAGES = {"shim", "supervisor"}  # the LD_PRELOAD shim (C) and the seccomp supervisor: they
# include nothing of the harness, and speak the failpoint protocol to it
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/[^"]+"')


def stage_of(root: pathlib.Path, file: pathlib.Path) -> str:
    rel = file.relative_to(root).parts
    return "reports" if rel[0] == "reports" else rel[1]


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    files = [f for d in ("harness", "reports") for f in sorted((root / d).rglob("*"))
             if f.suffix in (".h", ".cc")]
    rank = {s: i for i, s in enumerate(STAGES)}
    problems, unknown = [], set()
    for f in files:
        stage = stage_of(root, f)
        if stage in NOT_STAGES:
            continue
        if stage not in rank:
            unknown.add(stage)
            continue
        for n, line in enumerate(f.read_text(errors="replace").splitlines(), 1):
            m = INCLUDE.match(line)
            if not m or m.group(1) not in rank:
                continue
            if rank[m.group(1)] > rank[stage]:
                header = line.split('"')[1]
                problems.append(f"{f.relative_to(root)}:{n}: {stage} includes {header}")
    if unknown:
        print("check-stages: folders that are no stage: " + ", ".join(sorted(unknown)) +
              " (add them to STAGES in scripts/check-stages.py, in pipeline order)", file=sys.stderr)
        return 2
    for p in problems:
        print(p, file=sys.stderr)
    if problems:
        print(f"check-stages: {len(problems)} upward include(s); the order is " + " < ".join(STAGES),
              file=sys.stderr)
        return 1
    print(f"check-stages: {len(files)} files, no upward include (" + " < ".join(STAGES) + ")")
    return 0


if __name__ == "__main__":
    sys.exit(main())
