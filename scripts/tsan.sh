#!/usr/bin/env bash
# Builds the runtime's GoogleTest binaries with ThreadSanitizer
# (scripts/clang-build.sh tsan: clang-19, build-tsan/; the runtime has no
# MLIR, so this is a small build) and runs them. Without a GPU this covers
# the host side: artifact reading and validation, statuses, loads from many
# threads at once (ThreadSafetyTest), tensor files; the session tests skip.
# On a GPU machine the same binaries also run ConcurrencyTest's sessions
# under TSan (the CUDA libraries themselves are not instrumented).
# Prints `N passed, M failed, K skipped`; any TSan report is a failure.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root" || exit 2
build="${KILN_TSAN_BUILD_DIR:-$root/build-tsan}"
tests=(KilnRuntimeTests KilnRunFileTests KilnRuntimeGPUTests)
if [ "${1:-}" != --no-build ]; then
  mkdir -p "$build"
  if ! scripts/clang-build.sh tsan "${tests[@]}" >"$build/build-output.log" 2>&1; then
    grep -E "error|FAILED" "$build/build-output.log" | head -20
    echo "tsan.sh: the build failed; see $build/build-output.log"
    echo "0 passed, 1 failed, 0 skipped"
    exit 1
  fi
fi
reports="$build/tsan-reports"
rm -rf "$reports"
mkdir -p "$reports"
export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:log_path=$reports/tsan"
passed=0 failed=0 skipped=0
for name in "${tests[@]}"; do
  log="$build/$name.log"
  "$build/unittests/$name" --gtest_color=no >"$log" 2>&1
  status=$?
  n="$(sed -nE 's/^\[  PASSED  \] ([0-9]+) tests?\..*/\1/p' "$log" | tail -1)"
  passed=$((passed + ${n:-0}))
  n="$(sed -nE 's/^\[  SKIPPED \] ([0-9]+) tests?, listed below:.*/\1/p' "$log" | tail -1)"
  skipped=$((skipped + ${n:-0}))
  n="$(sed -nE 's/^\[  FAILED  \] ([0-9]+) tests?, listed below:.*/\1/p' "$log" | tail -1)"
  if [ -n "$n" ]; then
    failed=$((failed + n))
  elif [ "$status" != 0 ] || ! grep -q "^\[  PASSED  \]" "$log"; then
    failed=$((failed + 1))
    echo "$name: exited $status before its summary; see $log"
  fi
  # The summary lines only (the skipped tests are listed one per line).
  echo "$name: $(grep -E '^\[  (PASSED|FAILED|SKIPPED) *\] [0-9]+ tests?' "$log" | tr '\n' ' ')"
done
count=$(find "$reports" -type f | wc -l)
echo "TSan reports: $count${count:+ (in $reports)}"
[ "$count" -gt 0 ] && failed=$((failed + count))
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
