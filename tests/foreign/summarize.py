#!/usr/bin/env python3
"""One row of the foreign corpus's table from a finished `killpoint run --out DIR`.

Usage: summarize.py OUT_DIR STEM EXIT EXPECTED_EXITS MUST_BREAK ALSO_ALLOWED

Prints a tab-separated row: scenario, trials, kills fired of planned, the models the fired
kills ran under, killpoint's exit, the must-hold invariants violated (in how many trials, and
under which models), the expectation, OK or WRONG, and the row's class:

  right        a correct form passed (exit 0, nothing violated); a buggy form was caught (exit
               1) by MUST_BREAK, with no other invariant than ALSO_ALLOWED (what its bug can
               break too); or the run refused loudly (exit 4, not exercised) where EXPECTED_EXITS
               allows it
  false-alarm  a correct form failed, or a buggy form was caught but also accused of
               breaking an invariant its bug cannot break
  false-hint   the verdict is right but a fix hint is not (every job here is an at-most-once
               export: it marks the date sent, then POSTs). A correct form's hint blames its
               save ("never made durable", "never fsync'ed", "fsync the", "in place",
               "synchronous="); a buggy form's says the date was "delivered again" for want
               of a record, where its record was lost; or a buggy form whose scenario names
               check.state_file has no hint naming that file on MUST_BREAK
  silent-pass  a buggy form passed (exit 0): a CI gate would let it through
  missed       a buggy form failed for another reason than its bug (MUST_BREAK held), or was
               not exercised (exit 4) where that is not allowed; a correct form not exercised
  error        killpoint refused the run or failed (exit 2: bad usage, a bad scenario, a job
               that never ran; exit 3: the harness failed): the log says why

Exit status 0 for right, 1 otherwise."""
import collections
import json
import os
import re
import sys

out, stem, code, want_exits, must_break, also = sys.argv[1:7]
code = int(code)
want = {int(c) for c in want_exits.split("|")}
allowed = set() if also == "-" else set(also.split(","))
trials = planned = fired = 0
models = collections.Counter()
violated = {}
results = os.path.join(out, "results.json")
if os.path.exists(results):
    with open(results) as f:
        run = json.load(f)
    for sc in run.get("scenarios", []):
        trials += sc.get("trials", 0)
        ex = sc.get("exercise", {})
        planned += ex.get("kills_planned", 0)
        fired += ex.get("kills_planned", 0) - ex.get("kills_unfired", 0)
        for inv in sc.get("invariants", []):
            # A scenario not exercised because a call was refused judged nothing: its
            # invariants read NOT EXERCISED whatever their checkers saw.
            if (inv.get("expectation") == "must_hold" and inv.get("violated", 0) > 0
                    and inv.get("status") != "NOT EXERCISED"):
                violated[inv["name"]] = (inv["violated"], inv.get("violated_by_model", {}))
    for root, _, files in os.walk(out):
        if "history.jsonl" in files:
            with open(os.path.join(root, "history.jsonl")) as h:
                for line in h:
                    e = json.loads(line)
                    if e.get("type") == "kill":
                        models[e.get("data", {}).get("model", "?")] += 1

# The fix hints of every example, by invariant, and the state file the scenario names.
hints = collections.defaultdict(list)
state_file = ""
if os.path.exists(results):
    for sc in run.get("scenarios", []):
        for inv in sc.get("invariants", []):
            hints[inv["name"]] += [x.get("hint", "") for x in inv.get("examples", [])]
        try:
            with open(sc.get("file", "")) as f:
                state_file = json.load(f).get("check", {}).get("state_file", "")
        except (OSError, ValueError):
            pass
BLAMES_SAVE = re.compile(r"never made durable|never fsync'ed|fsync the|in place|synchronous=")
false_hints = []
if must_break == "-":
    false_hints = [h for hs in hints.values() for h in hs if BLAMES_SAVE.search(h)]
else:
    false_hints = [h for hs in hints.values() for h in hs if "delivered it again" in h]
    if code == 1 and state_file and not any(state_file in h for h in hints.get(must_break, [])):
        false_hints.append(f"no hint on {must_break} names {state_file}")

names = set(violated)
if code in (2, 3) and code not in want:
    klass = "error"
elif must_break == "-":
    klass = "right" if code in want and code != 1 and not names else (
        "false-alarm" if names or code == 1 else "missed")
elif code == 1 and must_break in names:
    klass = "right" if names <= {must_break} | allowed else "false-alarm"
elif code == 4 and 4 in want and not names:
    klass = "right"
elif code == 0:
    klass = "silent-pass"
else:
    klass = "missed"
if klass == "right" and false_hints:
    klass = "false-hint"

expected = f"exit {want_exits}" + ("" if must_break == "-" else f" {must_break}")
shown = []
for name, (n, by_model) in sorted(violated.items()):
    detail = " ".join(f"{m}:{c}" for m, c in sorted(by_model.items()))
    shown.append(f"{name}({n}{': ' + detail if detail else ''})")
row = [stem, str(trials), f"{fired}/{planned}",
       ",".join(f"{m}:{n}" for m, n in sorted(models.items())) or "-", str(code),
       " ".join(shown) or "-", expected, "OK" if klass == "right" else "WRONG", klass]
print("\t".join(row))
for h in false_hints[:3]:
    print(f"{stem}: false hint: {h[:300]}", file=sys.stderr)
sys.exit(0 if klass == "right" else 1)
