#!/usr/bin/env bash
# The test suite under sanitizers (docs/hardening.md), warnings as errors as everywhere:
#   build-asan/  AddressSanitizer + UndefinedBehaviorSanitizer: every test.
#   build-tsan/  ThreadSanitizer: what runs threads (control channel, downstream, runner), i.e.
#                the run tests, the jobs' client tests and end-to-end runs of the harness.
# Any report fails the test it happens in (halt_on_error, -fno-sanitize-recover).
# Usage: bash scripts/sanitize.sh [asan|tsan]...   (default: both)
set -euo pipefail
cd "$(dirname "$0")/.."
kinds=("$@")
if ((${#kinds[@]} == 0)); then kinds=(asan tsan); fi
jobs=$(nproc)

# Every process of a test inherits these: the harness, the jobs it runs, the test binaries.
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=1:check_initialization_order=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1"

configure() {  # DIR SANITIZERS
  cmake -S . -B "$1" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DKILLPOINT_WERROR=ON \
    -DKILLPOINT_SANITIZE="$2" -DKILLPOINT_BENCHMARKS=OFF >/dev/null
}

for kind in "${kinds[@]}"; do
  case "$kind" in
    asan)
      echo "sanitize: AddressSanitizer + UndefinedBehaviorSanitizer, every test"
      configure build-asan address,undefined
      cmake --build build-asan -j "$jobs"
      ctest --test-dir build-asan --output-on-failure -j "$jobs"
      ;;
    tsan)
      echo "sanitize: ThreadSanitizer, the threaded parts"
      configure build-tsan thread
      tests=(run_test failpoint_client_test publish_test python_job_test bad_jobs_test e2e_test)
      cmake --build build-tsan -j "$jobs" --target "${tests[@]}" killpoint kp-settle kp-publish killpoint_shim
      # The control channel, the downstream server, the process waiter and the jobs' clients;
      # e2e_test: trials through the TSan-built harness with kills, failpoints, the shim and
      # downstream faults (the bundled suite as a whole is left to the ASan build).
      pids=()
      for t in "${tests[@]}"; do
        filter='*'
        if [[ $t == e2e_test ]]; then filter='Gate.*:PythonJob.*:HungJob.*:Syscalls.*:Torn.*:Replay.*'; fi
        (cd build-tsan && "tests/$t" --gtest_filter="$filter" --gtest_brief=1 >"tsan-$t.log" 2>&1) &
        pids+=($!)
      done
      failed=0
      for i in "${!tests[@]}"; do
        if wait "${pids[$i]}"; then
          echo "tsan: ${tests[$i]}: $(grep -h 'PASSED' "build-tsan/tsan-${tests[$i]}.log" | tail -1)"
        else
          echo "tsan: ${tests[$i]} FAILED"; tail -60 "build-tsan/tsan-${tests[$i]}.log"; failed=1
        fi
      done
      if ((failed)); then exit 1; fi
      ;;
    *) echo "sanitize: unknown kind $kind (asan, tsan)" >&2; exit 2 ;;
  esac
done
