#!/usr/bin/env bash
# Builds everything with AddressSanitizer and UndefinedBehaviorSanitizer
# (scripts/clang-build.sh asan: clang-19, build-sanitize/) and runs the lit,
# unit and node suites on that build through scripts/test.sh. Every sanitizer
# report is written to build-sanitize/sanitizer-reports/ and counts as a
# failure, including one in a process whose failure a test expected (a `not`
# in lit, a node test that is not on the expectation list).
#   scripts/sanitize.sh                 # build, then lit unit node
#   scripts/sanitize.sh --no-build unit # some suites, no build
# KILN_SANITIZE_LEAKS=1 checks leaks too (off by default: LLVM's tools leave
# their options and registries allocated at exit on purpose).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root" || exit 2
build="${KILN_SANITIZE_BUILD_DIR:-$root/build-sanitize}"
do_build=1 suites=()
for arg in "$@"; do
  case "$arg" in
    --no-build) do_build=0 ;;
    lit|unit|node) suites+=("$arg") ;;
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "sanitize.sh: unknown argument '$arg'" >&2; exit 2 ;;
  esac
done
[ "${#suites[@]}" -gt 0 ] || suites=(lit unit node)

if [ "$do_build" = 1 ]; then
  start=$SECONDS
  mkdir -p "$build"
  if ! scripts/clang-build.sh asan -k 0 >"$build/build-output.log" 2>&1; then
    grep -E "error|FAILED" "$build/build-output.log" | head -20
    echo "sanitize.sh: the build failed; see $build/build-output.log"
    echo "0 passed, 1 failed, 0 skipped"
    exit 1
  fi
  echo "sanitizer build: ok in $((SECONDS - start)) s ($build)"
fi

reports="$build/sanitizer-reports"
rm -rf "$reports"
mkdir -p "$reports"
# abort_on_error: a report kills the process with SIGABRT, which lit's `not`
# and the node-test runner count as a crash, not as an expected failure.
leaks=0
[ "${KILN_SANITIZE_LEAKS:-0}" = 1 ] && leaks=1
# allow_user_poisoning=0: kiln is instrumented but Debian's libMLIR is not,
# and both allocate from MLIR's BumpPtrAllocator slabs through LLVM's inline
# headers. A slab that kiln's instrumented code starts is poisoned but for
# kiln's own allocation, and the uninstrumented library's later allocations
# in it are never unpoisoned: reads of MLIR's own attributes then show as
# use-after-poison (seen in StringAttr::get and attribute verifiers). Only
# manual poisoning is ignored; heap, stack and global errors still report.
export ASAN_OPTIONS="abort_on_error=1:detect_leaks=$leaks:allow_user_poisoning=0:log_path=$reports/asan"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:abort_on_error=1:log_path=$reports/ubsan"
KILN_BUILD_DIR="$build" scripts/test.sh --no-build "${suites[@]}"
status=$?
count=$(find "$reports" -type f | wc -l)
if [ "$count" -gt 0 ]; then
  echo "sanitizer reports: $count (in $reports); the first:"
  for file in $(find "$reports" -type f | head -3); do
    grep -m1 -E "ERROR: |runtime error:" "$file" | cut -c1-200 | sed 's/^/  /'
    grep -E "^    #[0-9]+ " "$file" | head -6 | cut -c1-200 | sed 's/^/    /'
  done
  exit 1
fi
echo "sanitizer reports: 0"
exit $status
