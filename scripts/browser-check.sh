#!/usr/bin/env bash
# Opens killpoint's HTML report in a real browser (headless Chromium, Debian's `chromium`
# package, installed here if missing) and fails on any console message: the page has no script
# of its own, so any message at all is an error (a script or fetch the page's policy blocked, a
# markup problem). Checks the rendered DOM and saves a screenshot.
#
#   bash scripts/browser-check.sh                 # runs the bundled scenarios and the hostile
#                                                 # fixture (a job that prints <script>), checks both
#   bash scripts/browser-check.sh --bundled DIR   # the same, with the bundled run already
#                                                 # made: DIR holds its results.json and report.html
#   bash scripts/browser-check.sh REPORT.html...  # checks these reports
#
# .ci/run passes --bundled build/e2e/bundled/out, the run e2e_test made of the bundled scenarios
# (README's main command, default trials and seed) and checked the verdicts of: CI runs the
# 1,400 trials once, not twice.
# The screenshot of the first report goes to $KILLPOINT_SCREENSHOT (default:
# build/browser-check/report.png). The machine needs no network: the flags below keep Chromium
# from trying to reach one.
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${KILLPOINT_BUILD_DIR:-build}
work="$build_dir/browser-check"
screenshot=${KILLPOINT_SCREENSHOT:-$work/report.png}
mkdir -p "$work" "$(dirname "$screenshot")"

if ! command -v chromium >/dev/null; then
  echo "browser-check: installing Debian's chromium"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi

bundled=""
if [ "${1:-}" = "--bundled" ]; then
  bundled=${2:?browser-check: --bundled needs the folder of a bundled run}
  [ -s "$bundled/report.html" ] && [ -s "$bundled/results.json" ] ||
    { echo "browser-check: $bundled has no report.html and results.json of a finished run" >&2; exit 2; }
  shift 2
fi
reports=("$@")
if [ ${#reports[@]} -eq 0 ]; then
  [ -x "$build_dir/bin/killpoint" ] || bash scripts/build.sh
  if [ -z "$bundled" ]; then
    bundled="$work/bundled"
    "$build_dir/bin/killpoint" run scenarios --out "$bundled" --quiet --jobs "$(nproc)"
  fi
  # The hostile job's must-hold invariant breaks by design: exit 1 is the expected verdict.
  rc=0
  "$build_dir/bin/killpoint" run tests/fixtures/hostile-output.json --out "$work/hostile" --quiet || rc=$?
  [ "$rc" -eq 1 ] || { echo "browser-check: the hostile fixture exited $rc, expected 1" >&2; exit 1; }
  reports=("$bundled/report.html" "$work/hostile/report.html")
fi

# Runs Chromium on a page with a fresh profile; its log (with the page's console) on stderr.
chromium_on() {
  local profile
  profile=$(mktemp -d)
  timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$profile" --enable-logging=stderr --v=0 "$@"
  local rc=$?
  rm -rf "$profile"
  return $rc
}

passed=0
failed=0
for report in "${reports[@]}"; do
  url="file://$(realpath "$report")"
  dom="$work/dom.html"
  log="$work/console.log"
  problems=""
  if ! chromium_on --dump-dom "$url" >"$dom" 2>"$log"; then
    problems+="chromium failed on $url (see $log)"$'\n'
  fi
  # Every message the page logged to the console; Chromium's own noise (D-Bus, GPU) is not one.
  console=$(grep -F ':CONSOLE' "$log" || true)
  [ -z "$console" ] || problems+="console messages:"$'\n'"$console"$'\n'
  grep -q '<h1>killpoint report</h1>' "$dom" || problems+="the page did not render its heading"$'\n'
  grep -q '<title>killpoint report</title>' "$dom" || problems+="the page's title changed (a script ran?)"$'\n'
  # Escaped text serializes as &lt;script: a real <script> element in the DOM came from a job.
  if grep -qi '<script' "$dom"; then problems+="a <script> element is in the DOM"$'\n'; fi
  if [ -z "$problems" ]; then
    echo "browser-check: ok $report"
    passed=$((passed + 1))
  else
    printf 'browser-check: FAILED %s\n%s' "$report" "$problems" >&2
    failed=$((failed + 1))
  fi
done

# A screenshot of the first report, for people (README shows one).
chromium_on --hide-scrollbars --window-size=1400,1500 --screenshot="$(realpath -m "$screenshot")" \
  "file://$(realpath "${reports[0]}")" >/dev/null 2>"$work/screenshot.log" ||
  { echo "browser-check: no screenshot (see $work/screenshot.log)" >&2; failed=$((failed + 1)); }
[ -s "$screenshot" ] && echo "browser-check: screenshot $screenshot"
echo "browser-check: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
