#!/usr/bin/env bash
# Sets up, builds and runs every kiln test suite: lit, the GoogleTest binaries,
# the ONNX node tests on the CPU evaluator, a short fuzz run of each
# libFuzzer target (scripts/fuzz.sh), the runtime package's install
# (examples/embed built against it), the Python package's pytest suite
# (installed into .venv with pip first), the benchmarks' build-machine tests
# (benchmarks/tests), the random-graph property test and the model zoo.
# Prints one line per suite and, last, `N passed, M failed, K skipped` over all suites. Exits non-zero when a
# test failed, the build failed or a suite could not run (each of those two
# counts as one failure in the totals).
#   scripts/test.sh               # setup, build, all suites
#   scripts/test.sh --no-build    # skip setup and build (after a build)
#   scripts/test.sh lit unit      # only these suites (lit, unit, node, fuzz, install, python, bench,
#                                 # graphs, zoo)
#   KILN_GRAPH_COUNT=200 scripts/test.sh graphs   # fewer random graphs (CI: 2000)
#   KILN_ZOO_FILTER=bert scripts/test.sh zoo        # only the zoo files matching a regex
# KILN_FUZZ_SECONDS (default 40) is each fuzz target's time, KILN_FUZZ_TARGETS
# (default all three) the fuzz targets.
# Full logs: build/test-logs/ (lit.log, unit-NAME.log, node.log, node.json,
# fuzz.log, install.log, python-install.log, python.log, bench.log, graphs.log,
# graphs.json, zoo.log, zoo.json).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root" || exit 2
build="${KILN_BUILD_DIR:-$root/build}"
logs="$build/test-logs"
lit_py=/usr/lib/llvm-19/build/utils/lit/lit.py
expect_list="$root/test/onnx-node/cpu-expected-pass.txt"
jobs="${KILN_TEST_JOBS:-2}"

do_build=1
suites=()
for arg in "$@"; do
  case "$arg" in
    --no-build) do_build=0 ;;
    lit|unit|node|fuzz|install|python|bench|graphs|zoo) suites+=("$arg") ;;
    -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
    *) echo "test.sh: unknown argument '$arg'" >&2; exit 2 ;;
  esac
done
[ "${#suites[@]}" -gt 0 ] || suites=(lit unit node fuzz install python bench graphs zoo)

total_passed=0 total_failed=0 total_skipped=0 broken=0
summary=()
start_all=$SECONDS

# record SUITE PASSED FAILED SKIPPED NOTE
record() {
  total_passed=$((total_passed + $2))
  total_failed=$((total_failed + $3))
  total_skipped=$((total_skipped + $4))
  summary+=("$(printf '%-11s %4d passed, %d failed, %d skipped%s' "$1:" "$2" "$3" "$4" "$5")")
  echo "${summary[-1]}"
}
# could_not_run SUITE REASON: counts one failure.
could_not_run() {
  broken=1
  total_failed=$((total_failed + 1))
  summary+=("$(printf '%-11s could not run: %s (counted as 1 failure)' "$1:" "$2")")
  echo "${summary[-1]}"
}

# --- Setup and build --------------------------------------------------------------
if [ "$do_build" = 1 ]; then
  echo "== setup"
  if ! scripts/setup.sh; then
    echo "test.sh: setup failed"
    echo "0 passed, 1 failed, 0 skipped"
    exit 1
  fi
  echo "== build (scripts/build.sh, all targets)"
  build_start=$SECONDS
  mkdir -p "$build"
  # -k 0: build everything that can be built, so that the suites of the parts
  # that do build still run when one part is broken.
  if scripts/build.sh -k 0 >"$build/build-output.log" 2>&1; then
    echo "build: ok in $((SECONDS - build_start)) s"
  else
    grep -E "error|FAILED|undefined reference" "$build/build-output.log" | grep -v "^: &&" |
      cut -c1-300 | head -30
    could_not_run "build" "compile errors after $((SECONDS - build_start)) s; see $build/build-output.log"
  fi
fi
mkdir -p "$logs"

# Hold the build lock shared while the suites run: scripts/build.sh (which
# takes it exclusively) then cannot relink a binary under a running test, and
# several test runs can still share the build.
exec 8>"$build/.build-lock"
if ! flock -s -n 8; then
  echo "(waiting for a build in progress in $build)"
  flock -s 8
fi

# --- lit ----------------------------------------------------------------------------
run_lit() {
  echo "== lit"
  local log="$logs/lit.log"
  if [ ! -f "$build/test/lit.site.cfg.py" ]; then
    could_not_run "lit" "no $build/test/lit.site.cfg.py (configure with scripts/build.sh)"
    return
  fi
  KILN_PYTHON="$root/.venv/bin/python" python3 "$lit_py" -v -j "$jobs" \
    "$build/test" >"$log" 2>&1
  local status=$?
  grep -E "^(FAIL|XPASS|UNRESOLVED|TIMEOUT): " "$log" | head -50
  if grep -q "did not discover any tests" "$log"; then
    record "lit" 0 0 0 " (no lit tests discovered)"
    return
  fi
  if ! grep -q "^Total Discovered Tests:" "$log"; then
    tail -20 "$log"
    could_not_run "lit" "lit exited $status without a summary; see $log"
    return
  fi
  # Summary lines: "  Passed     : 12 (80.00%)"; labels may hold spaces.
  local passed=0 failed=0 skipped=0 label count
  while IFS='|' read -r label count; do
    case "$label" in
      "Passed"|"Passed With Retry"|"Expectedly Failed") passed=$((passed + count)) ;;
      "Unsupported"|"Skipped"|"Excluded") skipped=$((skipped + count)) ;;
      *) failed=$((failed + count)) ;;
    esac
  done < <(sed -n '/^Total Discovered Tests:/,$p' "$log" |
    sed -nE 's/^  ([A-Za-z][A-Za-z ]*[A-Za-z]) *: *([0-9]+) \(.*/\1|\2/p')
  if [ "$failed" = 0 ] && [ "$status" != 0 ]; then
    could_not_run "lit" "lit exited $status with no failed test; see $log"
    return
  fi
  record "lit" "$passed" "$failed" "$skipped" ""
}

# --- GoogleTest ---------------------------------------------------------------------
run_unit() {
  echo "== unit (GoogleTest binaries in $build/unittests)"
  local passed=0 failed=0 skipped=0 binaries=0 binary name log status n
  for binary in "$build"/unittests/*; do
    if [ ! -f "$binary" ] || [ ! -x "$binary" ]; then continue; fi
    binaries=$((binaries + 1))
    name="$(basename "$binary")"
    log="$logs/unit-$name.log"
    "$binary" --gtest_color=no </dev/null >"$log" 2>&1
    status=$?
    n="$(sed -nE 's/^\[  PASSED  \] ([0-9]+) tests?\..*/\1/p' "$log" | tail -1)"
    passed=$((passed + ${n:-0}))
    n="$(sed -nE 's/^\[  SKIPPED \] ([0-9]+) tests?, listed below:.*/\1/p' "$log" | tail -1)"
    skipped=$((skipped + ${n:-0}))
    n="$(sed -nE 's/^\[  FAILED  \] ([0-9]+) tests?, listed below:.*/\1/p' "$log" | tail -1)"
    if [ -n "$n" ]; then
      failed=$((failed + n))
      grep -E "^\[  FAILED  \] [A-Za-z_].*\(" "$log" | sed "s/^/  $name: /" | head -30
    elif [ "$status" != 0 ] || ! grep -q "^\[  PASSED  \]" "$log"; then
      # Crashed or exited before its summary: one failure for the binary.
      failed=$((failed + 1))
      echo "  $name: exited $status before its summary; last lines of $log:"
      tail -5 "$log" | sed 's/^/    /'
    fi
  done
  local note=""
  [ "$binaries" = 0 ] && note=" (no test binaries yet)" || note=" ($binaries binaries)"
  record "unit" "$passed" "$failed" "$skipped" "$note"
}

# --- ONNX node tests on the CPU -------------------------------------------------------
run_node() {
  echo "== node (ONNX node tests through kiln-interpret)"
  local log="$logs/node.log" json="$logs/node.json"
  rm -f "$json"
  scripts/onnx-node-tests.sh --expect-list "$expect_list" --jobs "$jobs" \
    --json "$json" --table failing >"$log" 2>&1
  local status=$?
  grep -E "^(REGRESSION|MISSING) |^newly passing|^onnx-node-tests: note" "$log" | head -60
  if [ ! -f "$json" ]; then
    tail -5 "$log"
    could_not_run "node (CPU)" "onnx-node-tests exited $status; see $log"
    return
  fi
  local counts
  counts="$("$root/.venv/bin/python" -c '
import json, sys
s = json.load(open(sys.argv[1]))["summary"]
print(s["passed"], s["failed"], s["skipped"], s["total"], s["newly_passing"])' "$json")"
  local passed failed skipped total newly
  read -r passed failed skipped total newly <<<"$counts"
  record "node (CPU)" "$passed" "$failed" "$skipped" \
    "  [of $total: failed = regressions vs test/onnx-node/cpu-expected-pass.txt, skipped = failing tests not in that list; $newly newly passing]"
}

# --- Fuzzing --------------------------------------------------------------------
run_fuzz() {
  echo "== fuzz (scripts/fuzz.sh ${KILN_FUZZ_TARGETS:-onnx-import artifact-reader tensor-file}, ${KILN_FUZZ_SECONDS:-40} s each)"
  local log="$logs/fuzz.log" fuzz_build=()
  [ "$do_build" = 1 ] || fuzz_build=(--no-build)
  # Builds with clang in build-fuzz/ beside $build, linking $build's libraries.
  # KILN_FUZZ_TARGETS picks the targets; by default all three, 40 s each
  # (the onnx-import target had stopped linking, and both it and the
  # tensor-file target found crashes within a minute, unseen while CI ran
  # the artifact reader only).
  # fuzz.sh's build takes the build lock that this script holds shared:
  # drop it meanwhile (as run_python does), or the two wait for each other.
  flock -u 8
  KILN_BUILD_DIR="$build" KILN_FUZZ_BUILD_DIR="${KILN_FUZZ_BUILD_DIR:-$build-fuzz}" \
    KILN_FUZZ_TARGETS="${KILN_FUZZ_TARGETS:-onnx-import artifact-reader tensor-file}" \
    scripts/fuzz.sh --seconds "${KILN_FUZZ_SECONDS:-40}" "${fuzz_build[@]}" </dev/null >"$log" 2>&1
  local status=$?
  flock -s 8
  grep -E "^fuzz |^  " "$log" | head -30
  local counts
  counts="$(sed -nE 's/^([0-9]+) passed, ([0-9]+) failed$/\1 \2/p' "$log" | tail -1)"
  if [ -z "$counts" ]; then
    tail -5 "$log"
    could_not_run "fuzz" "fuzz.sh exited $status without a summary; see $log"
    return
  fi
  local passed failed
  read -r passed failed <<<"$counts"
  if [ "$failed" = 0 ] && [ "$status" != 0 ]; then
    could_not_run "fuzz" "fuzz.sh exited $status; see $log"
    return
  fi
  record "fuzz" "$passed" "$failed" 0 "  [targets without a crash; inputs and crashes in $log]"
}

# --- The runtime package: install, examples/embed ---------------------------------
run_install() {
  echo "== install (cmake --install, examples/embed with find_package and pkg-config)"
  local log="$logs/install.log"
  KILN_BUILD_DIR="$build" scripts/test-install.sh >"$log" 2>&1
  local status=$?
  grep -E "^FAIL: " "$log" | head -20
  local line
  line="$(grep -E "^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$" "$log" | tail -1)"
  if [ -z "$line" ]; then
    tail -10 "$log"
    could_not_run "install" "scripts/test-install.sh exited $status without a summary; see $log"
    return
  fi
  local passed failed skipped
  read -r passed _ failed _ skipped _ <<<"$line"
  record "install" "$passed" "$failed" "$skipped" ""
}

# --- The Python package (python/) -----------------------------------------------------
run_python() {
  echo "== python (pip install ./python into .venv, then pytest python/tests)"
  local log="$logs/python.log" install_log="$logs/python-install.log"
  # pip builds into $build (python/pyproject.toml's build-dir) and so needs the
  # build lock that this script holds shared: drop it for the install.
  flock -u 8
  flock "$build/.build-lock" "$root/.venv/bin/pip" install --no-build-isolation \
    --no-deps --disable-pip-version-check -C "build-dir=$build" "$root/python" \
    >"$install_log" 2>&1
  local status=$?
  flock -s 8
  if [ "$status" != 0 ]; then
    grep -E "error|Error" "$install_log" | head -20
    could_not_run "python" "pip install ./python exited $status; see $install_log"
    return
  fi
  # From another folder, so that the installed package is the one imported.
  run_pytest "python" "$log" " (the skipped ones need a GPU or torch)" "$root/python/tests"
}

# run_pytest SUITE LOG NOTE PATH...: pytest on PATH from the log folder;
# records its totals (an error counts as a failure; no results, as a broken suite).
run_pytest() {
  local suite="$1" log="$2" note="$3"
  shift 3
  (cd "$logs" && "$root/.venv/bin/python" -m pytest -p no:cacheprovider -rs "$@" >"$log" 2>&1)
  local status=$?
  grep -E "^(FAILED|ERROR) " "$log" | head -30
  # Exit 5: no tests collected, which is a broken suite here.
  if [ "$status" = 5 ] || ! grep -qE "^=+ .* in [0-9.]+s" "$log"; then
    tail -5 "$log"
    could_not_run "$suite" "pytest exited $status without results; see $log"
    return
  fi
  # The last line: "=== 2 failed, 30 passed, 9 skipped, 1 error in 12.3s ===".
  local totals passed failed=0 skipped n
  totals="$(grep -E "^=+ .* in [0-9.]+s" "$log" | tail -1)"
  passed="$(echo "$totals" | grep -oE "[0-9]+ passed" | cut -d' ' -f1)"
  for n in $(echo "$totals" | grep -oE "[0-9]+ (failed|errors?)" | cut -d' ' -f1); do
    failed=$((failed + n))
  done
  skipped="$(echo "$totals" | grep -oE "[0-9]+ skipped" | cut -d' ' -f1)"
  if [ "$failed" = 0 ] && [ "$status" != 0 ]; then
    could_not_run "$suite" "pytest exited $status with no failed test; see $log"
    return
  fi
  record "$suite" "${passed:-0}" "$failed" "${skipped:-0}" "$note"
}

# --- The benchmarks' build-machine tests (benchmarks/tests) ---------------------------
run_bench() {
  echo "== bench (the zoo benchmark's bundle builder and summary; pytest benchmarks/tests)"
  run_pytest "bench" "$logs/bench.log" " (the bundle test needs torch: KILN_TORCH_PYTHON)" \
    "$root/benchmarks/tests"
}

# --- Scripts that end with `N passed, M failed, K skipped` ------------------------------
# run_counted SUITE LIST LOG COMMAND...: runs COMMAND, shows its FAIL/FIXED
# lines and records its last summary line; skipped = expected failures in LIST.
run_counted() {
  local suite="$1" list="$2" log="$3"
  shift 3
  "$@" >"$log" 2>&1
  local status=$?
  grep -E "^(FAIL|FIXED) " "$log" | cut -c1-300 | head -40
  local counts
  counts="$(sed -nE 's/^([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$/\1 \2 \3/p' "$log" | tail -1)"
  if [ -z "$counts" ]; then
    tail -5 "$log"
    could_not_run "$suite" "exited $status without a summary; see $log"
    return
  fi
  local passed failed skipped
  read -r passed failed skipped <<<"$counts"
  record "$suite" "$passed" "$failed" "$skipped" "  [skipped = expected failures listed in $list]"
}

# --- Random-graph property test (scripts/random-graphs.py) ----------------------------
run_graphs() {
  echo "== graphs (random graphs through kiln-compile/NVRTC; CPU evaluator vs onnxruntime)"
  run_counted "graphs" test/random-graphs/expected-failures.txt "$logs/graphs.log" "$root/.venv/bin/python" \
    "$root/scripts/random-graphs.py" --jobs "$jobs" --json "$logs/graphs.json" \
    --count "${KILN_GRAPH_COUNT:-2000}"
}

# --- Model zoo (scripts/zoo-tests.py) ---------------------------------------------------
run_zoo() {
  echo "== zoo (test/zoo models: compile at fp32 and fp16; CPU evaluator vs onnxruntime)"
  run_counted "zoo" test/zoo/expected-failures.txt "$logs/zoo.log" "$root/.venv/bin/python" \
    "$root/scripts/zoo-tests.py" --jobs "$jobs" --json "$logs/zoo.json" \
    ${KILN_ZOO_FILTER:+--filter "$KILN_ZOO_FILTER"}
}

for suite in "${suites[@]}"; do
  suite_start=$SECONDS
  "run_$suite"
  echo "   ($suite: $((SECONDS - suite_start)) s)"
done

echo "== summary ($((SECONDS - start_all)) s; logs in $logs)"
printf '%s\n' "${summary[@]}"
echo "$total_passed passed, $total_failed failed, $total_skipped skipped"
[ "$total_failed" = 0 ] && [ "$broken" = 0 ]
