#!/usr/bin/env bash
# Builds the libFuzzer targets (scripts/clang-build.sh fuzz: clang-19,
# ASan+UBSan, in build-fuzz/, linking the compiler libraries of the ordinary
# build, which it brings up to date first) and runs each for a bounded time on its
# seed corpus (scripts/fuzz-seeds.py, from ONNX's node tests; the artifact
# seeds from kiln-fuzz-artifact-seeds) plus the corpus earlier runs grew.
# Prints a line per target and `N passed, M failed` (a target fails when it
# finds a crash, leak, timeout or sanitizer report; the input is saved).
#   scripts/fuzz.sh                      # 60 s per target (CI)
#   scripts/fuzz.sh --seconds 3600       # a long run
#   scripts/fuzz.sh --no-build tensor-file   # some targets only
#   scripts/fuzz.sh --runs 1000000       # stop each target after N inputs
# Targets: onnx-import, artifact-reader, tensor-file (default: all, or
# KILN_FUZZ_TARGETS). Work folder:
# build-fuzz/fuzz-work/ (corpus/TARGET, crashes/, logs/).
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root" || exit 2
build="${KILN_FUZZ_BUILD_DIR:-$root/build-fuzz}"
work="$build/fuzz-work"
seconds=60 runs="" do_build=1 targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="$2"; shift ;;
    --runs) runs="$2"; shift ;;
    --no-build) do_build=0 ;;
    onnx-import|artifact-reader|tensor-file) targets+=("$1") ;;
    -h|--help) sed -n '2,13p' "$0"; exit 0 ;;
    *) echo "fuzz.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done
# KILN_FUZZ_TARGETS: the default list (all three).
[ "${#targets[@]}" -gt 0 ] ||
  read -r -a targets <<<"${KILN_FUZZ_TARGETS:-onnx-import artifact-reader tensor-file}"

if [ "$do_build" = 1 ]; then
  start=$SECONDS
  ninja_targets=()
  for target in "${targets[@]}"; do ninja_targets+=("kiln-fuzz-$target"); done
  [[ " ${targets[*]} " == *" artifact-reader "* ]] && ninja_targets+=(kiln-fuzz-artifact-seeds)
  mkdir -p "$(dirname "$build")"
  if ! { scripts/build.sh KilnTransforms KilnEvaluator KilnDialect &&
         scripts/clang-build.sh fuzz "${ninja_targets[@]}"; } >"$build.build.log" 2>&1; then
    grep -E "error|FAILED" "$build.build.log" | head -20
    echo "fuzz.sh: the fuzz build failed; see $build.build.log"
    echo "0 passed, 1 failed"
    exit 1
  fi
  echo "fuzz build: ok in $((SECONDS - start)) s ($build)"
fi

mkdir -p "$work/crashes" "$work/logs"
seeds="$work/seeds"
python="$root/.venv/bin/python"
[ -x "$python" ] || python=python3
if [ ! -d "$seeds/onnx-import" ] || [ ! -d "$seeds/tensor-file" ]; then
  "$python" scripts/fuzz-seeds.py --out "$seeds" || { echo "0 passed, 1 failed"; exit 1; }
fi
if [[ " ${targets[*]} " == *" artifact-reader "* ]]; then
  mkdir -p "$seeds/artifact-reader"
  "$build/fuzz/kiln-fuzz-artifact-seeds" "$seeds/artifact-reader" ||
    { echo "0 passed, 1 failed"; exit 1; }
fi

# Leaks fail a run; UBSan stops at its first report (compiled without
# recovery); an input that takes 30 s or 4 GiB is a failure too.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:allocator_may_return_null=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"
passed=0 failed=0
for target in "${targets[@]}"; do
  binary="$build/fuzz/kiln-fuzz-$target"
  log="$work/logs/$target.log"
  corpus="$work/corpus/$target"
  mkdir -p "$corpus"
  limit=(-max_total_time="$seconds")
  [ -n "$runs" ] && limit=(-runs="$runs")
  start=$SECONDS
  "$binary" "${limit[@]}" -timeout=30 -rss_limit_mb=4096 -max_len=65536 \
    -print_final_stats=1 -artifact_prefix="$work/crashes/$target-" \
    "$corpus" "$seeds/$target" </dev/null >"$log" 2>&1
  status=$?
  execs="$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+).*/\1/p' "$log" | tail -1)"
  rate="$(sed -nE 's/^stat::average_exec_per_sec: *([0-9]+).*/\1/p' "$log" | tail -1)"
  units="$(ls "$corpus" | wc -l)"
  if [ "$status" = 0 ]; then
    passed=$((passed + 1))
    printf 'fuzz %-16s ok: %s inputs in %d s (%s/s), corpus %d files\n' \
      "$target" "${execs:-?}" $((SECONDS - start)) "${rate:-?}" "$units"
  else
    failed=$((failed + 1))
    crash="$(sed -nE 's/.*Test unit written to (.*)$/\1/p' "$log" | tail -1)"
    printf 'fuzz %-16s FAILED (exit %d) after %s inputs; input: %s; log: %s\n' \
      "$target" "$status" "${execs:-?}" "${crash:-none saved}" "$log"
    grep -m1 -E "ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:" "$log" |
      cut -c1-200 | sed 's/^/  /'
    grep -E "^    #[0-9]+ " "$log" | grep -v -E "libFuzzer|fuzzer::|__sanitizer|asan_" |
      head -8 | cut -c1-200 | sed 's/^/  /'
  fi
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
