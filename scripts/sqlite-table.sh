#!/usr/bin/env bash
# Reproduces docs/sqlite-guarantees.md: every crash point of one SQLite commit, for
# journal_mode DELETE and WAL x synchronous OFF, NORMAL, FULL, EXTRA, under each persistence
# model, and prints the table (Markdown) of corrupted databases and lost acknowledged commits.
# Usage: scripts/sqlite-table.sh [OUT_DIR]   (build first: bash scripts/build.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-out/sqlite}
bin=${KILLPOINT_BUILD_DIR:-build}/bin/killpoint
root=$(mktemp -d "${KILLPOINT_SANDBOX_ROOT:-/dev/shm}/killpoint-sqlite-XXXXXX" 2>/dev/null || mktemp -d)
trap 'rm -rf "$root"' EXIT
"$bin" run scenarios/sqlite --exhaustive --sandbox-root "$root" --out "$out" --quiet || true
python3 - "$out/results.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
models = ["process", "power", "torn"]
print("| journal_mode | synchronous | " + " | ".join(models) + " |")
print("|---|---|" + "---|" * len(models))
for s in r["scenarios"]:
    mode, sync = s["name"].split("/")[1].split("-")
    inv = {i["name"]: i for i in s["invariants"]}
    cells = []
    for m in models:
        n = s["trials_by_model"].get(m, 0)
        corrupt = inv["state_readable"]["violated_by_model"].get(m, 0)
        lost = inv["commits_survive"]["violated_by_model"].get(m, 0)
        cells.append(f"corrupt {corrupt}, lost {lost} / {n}")
    print(f"| {mode.upper()} | {sync.upper()} | " + " | ".join(cells) + " |")
print()
print(f"{r['trials']} trials, seed {r['seed']}, killpoint {r['killpoint_version']}, {r['started_at']}")
PY
