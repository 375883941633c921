#!/usr/bin/env bash
# Runs the runtime's GoogleTest binaries (CPU and GPU tests; kiln-run end to end)
# from a build folder, and prints `N passed, M failed, K skipped`. On the GPU
# machine, with the prebuilt build/unittests/KilnRuntime*Tests, build/unittests/
# KilnRunFileTests and build/bin/kiln-run copied beside each other:
#   runtime/test/run-gpu-tests.sh [BUILD_DIR]      # default: build
# Exits non-zero when a test failed or a binary crashed. Set KILN_DEBUG=1 to
# run every session step by step.
set -uo pipefail
build="${1:-build}"
passed=0 failed=0 skipped=0
for name in KilnRuntimeTests KilnRunFileTests KilnRuntimeGPUTests; do
  binary="$build/unittests/$name"
  if [ ! -x "$binary" ]; then
    echo "$name: missing ($binary)"; failed=$((failed + 1)); continue
  fi
  log="$("$binary" --gtest_color=no 2>&1)"; status=$?
  echo "$log" | grep -E "^\[  FAILED  \] [A-Za-z_]+\..*\(|Failure$|Actual:" | sed "s/^/  $name: /"
  n="$(echo "$log" | sed -nE 's/^\[  PASSED  \] ([0-9]+) tests?\..*/\1/p' | tail -1)"
  passed=$((passed + ${n:-0}))
  n="$(echo "$log" | sed -nE 's/^\[  SKIPPED \] ([0-9]+) tests?, listed below:.*/\1/p' | tail -1)"
  skipped=$((skipped + ${n:-0}))
  n="$(echo "$log" | sed -nE 's/^\[  FAILED  \] ([0-9]+) tests?, listed below:.*/\1/p' | tail -1)"
  if [ -n "$n" ]; then
    failed=$((failed + n))
  elif [ "$status" != 0 ]; then
    echo "  $name: exited $status before its summary"; echo "$log" | tail -5
    failed=$((failed + 1))
  fi
done
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
