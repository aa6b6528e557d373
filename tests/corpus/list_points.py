#!/usr/bin/env python3
"""Reads `killpoint points SCENARIO` on stdin and prints SCENARIO with its failpoints set to the
names printed (max_occurrence: the most hits of one), and {scenario_dir} made absolute (the copy lives elsewhere). Used by run.sh's
"listed" mode. Usage: killpoint points S.json | list_points.py S.json > copy.json"""
import json
import os
import sys

path = sys.argv[1]
with open(path) as f:
    scenario = json.load(f)
names, hits = [], 1
for line in sys.stdin:
    cols = line.strip().split("\t")
    if len(cols) < 3 or not cols[0].isdigit():  # a 4th column notes an unseen write
        continue
    name, _, hit = cols[1].partition("#")  # "write:x#3": the 3rd hit of write:x
    hits = max(hits, int(hit or 1))
    if name not in names:
        names.append(name)
scenario["failpoints"] = names
scenario["max_occurrence"] = min(hits, 20)
text = json.dumps(scenario, indent=2).replace("{scenario_dir}", os.path.dirname(os.path.abspath(path)))
print(text)
