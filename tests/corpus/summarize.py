#!/usr/bin/env python3
"""One row of the corpus table from a finished `killpoint run --out DIR`.

Usage: summarize.py OUT_DIR STEM MODE EXIT EXPECTED_EXIT EXPECTED_INVARIANT
Prints a tab-separated row: scenario, mode, trials, trials with a planned kill, kills fired,
models the fired kills ran under, exit, violated must-hold invariants (with their count), the
expectation, OK or WRONG (a correct form: exit 0, nothing violated; a buggy form: exit 1, its
invariant violated and no other). Exit status 0 for OK, 1 for WRONG."""
import collections
import json
import os
import sys

out, stem, mode, code, want_code, want_inv = sys.argv[1:7]
code, want_code = int(code), int(want_code)
trials = planned = fired = 0
models = collections.Counter()
violated = {}
results = os.path.join(out, "results.json")
if os.path.exists(results):
    with open(results) as f:
        run = json.load(f)
    for sc in run.get("scenarios", []):
        trials += sc.get("trials", 0)
        for inv in sc.get("invariants", []):
            if inv.get("expectation") == "must_hold" and inv.get("violated", 0) > 0:
                violated[inv["name"]] = inv["violated"]
        for root, _, files in os.walk(out):
            if "history.jsonl" not in files:
                continue
            with open(os.path.join(root, "history.jsonl")) as h:
                for line in h:
                    e = json.loads(line)
                    e = e.get("event", e)
                    if e.get("type") == "trial_start":
                        plan = e.get("data", {}).get("plan", {})
                        if any(a.get("kill_point") for r in plan.get("runs", []) for a in r.get("attempts", [])):
                            planned += 1
                    elif e.get("type") == "kill":
                        fired += 1
                        models[e.get("data", {}).get("model", "?")] += 1
        break
# A buggy form must break its invariant and no other: anything else is a false alarm.
ok = code == want_code and set(violated) == (set() if want_inv == "-" else {want_inv})
want = "exit 0" if want_inv == "-" else f"exit {want_code} {want_inv}"
row = [stem, mode, str(trials), str(planned), str(fired),
       ",".join(f"{m}:{n}" for m, n in sorted(models.items())) or "-", str(code),
       ",".join(f"{k}({v})" for k, v in sorted(violated.items())) or "-", want, "OK" if ok else "WRONG"]
print("\t".join(row))
sys.exit(0 if ok else 1)
