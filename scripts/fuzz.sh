#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/) with clang, ASan and UBSan into build-fuzz/, then runs
# each for SECONDS (default 60). Seeds: the bundled scenarios and fixtures, fuzz/seeds/.
# Corpora grow in build-fuzz/corpus/<target>; a crash is saved as build-fuzz/artifacts/<target>-*
# and makes this script fail. Usage: bash scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
targets=("$@")
if ((${#targets[@]} == 0)); then targets=(scenario protocol_line history); fi

bash scripts/setup.sh
build=${KILLPOINT_FUZZ_BUILD_DIR:-build-fuzz}
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_CXX_FLAGS=-fsanitize=fuzzer-no-link \
  -DKILLPOINT_WERROR=ON -DKILLPOINT_FUZZ=ON -DKILLPOINT_SANITIZE=address,undefined \
  -DBUILD_TESTING=OFF -DKILLPOINT_BENCHMARKS=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" --target "${targets[@]/#/fuzz_}"

seeds_of() {
  case "$1" in
    scenario) ls scenarios/*.json tests/fixtures/*.json tests/fixtures/malformed/*.json ;;
    *) ls fuzz/seeds/"$1"/* ;;
  esac
}

failed=0
mkdir -p "$build/artifacts"
for t in "${targets[@]}"; do
  corpus="$build/corpus/$t"
  mkdir -p "$corpus"
  seeds_of "$t" | while read -r f; do cp "$f" "$corpus/seed-$(basename "$f")"; done
  dict=()
  if [[ -f fuzz/seeds/$t.dict ]]; then dict=(-dict="fuzz/seeds/$t.dict"); fi
  echo "fuzz: $t for ${seconds}s"
  if ! "$build/fuzz/fuzz_$t" "$corpus" "${dict[@]}" -max_total_time="$seconds" -timeout=10 \
      -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
      -artifact_prefix="$build/artifacts/$t-" 2>"$build/fuzz-$t.log"; then
    echo "fuzz: $t FAILED, see $build/fuzz-$t.log and $build/artifacts/"
    tail -40 "$build/fuzz-$t.log"
    failed=1
  fi
  grep -E "^stat::(number_of_executed_units|peak_rss_mb)|^#[0-9]+ *DONE" "$build/fuzz-$t.log" || true
  echo "fuzz: $t corpus now $(ls "$corpus" | wc -l) inputs"
done
exit $failed
