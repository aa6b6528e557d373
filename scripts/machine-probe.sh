#!/usr/bin/env bash
# Prints what this machine charges for a page fault, a fork and a spawn (bench/machine_probe.c):
# .ci/run's first line, so that a CI log says which kind of VM its timings came from (docs/ci.md,
# "The machine"). Needs only a C compiler; about a second.
set -euo pipefail
cd "$(dirname "$0")/.."
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
cc -O2 -o "$probe/machine-probe" bench/machine_probe.c
"$probe/machine-probe"
