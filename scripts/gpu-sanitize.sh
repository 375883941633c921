#!/usr/bin/env bash
# GPU machine: runs compute-sanitizer's memcheck, racecheck, initcheck and
# synccheck over a GPU bundle (scripts/gpu-bundle.sh): kiln-run on every
# model's artifact (graph mode, then KILN_DEBUG=1 step by step for memcheck)
# and the runtime's GPU tests under memcheck. Prints a table of error counts
# per tool and model, `N clean, M with errors` last, and writes
# OUTDIR/sanitize.json.
# Usage: OUTDIR/sanitize.sh [--tools "memcheck racecheck"] [--models "mlp conv_block"]
#        scripts/gpu-sanitize.sh OUTDIR [...]
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="$here"
if [[ $# -ge 1 && -d "$1/models" ]]; then
  out="$(cd "$1" && pwd)"; shift
fi
tools=(memcheck racecheck initcheck synccheck)
only_models=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --tools) read -r -a tools <<<"$2"; shift ;;
    --models) only_models=" $2 "; shift ;;
    -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
    *) echo "gpu-sanitize.sh: unknown argument '$1'" >&2; exit 2 ;;
  esac
  shift
done
sanitizer="${COMPUTE_SANITIZER:-/usr/local/cuda/bin/compute-sanitizer}"
[[ -x "$sanitizer" ]] || sanitizer="$(command -v compute-sanitizer || true)"
[[ -n "$sanitizer" ]] || { echo "gpu-sanitize.sh: no compute-sanitizer" >&2; exit 2; }
logs="$out/sanitize-logs"
mkdir -p "$logs"
kiln_run="$out/bin/kiln-run"
clean=0 dirty=0 entries=()

# check TOOL NAME COMMAND...: one row; errors from the tool's summary line.
check() {
  local tool="$1" name="$2"; shift 2
  local log="$logs/$tool-${name//\//--}.log" extra=()
  case "$tool" in
    memcheck) extra=(--leak-check full) ;;
    racecheck) extra=(--racecheck-report all) ;;
  esac
  local start=$SECONDS
  "$sanitizer" --tool "$tool" "${extra[@]}" --print-limit 20 \
    --error-exitcode 99 "$@" >"$log" 2>&1
  local status=$?
  local errors
  # memcheck, initcheck, synccheck: "ERROR SUMMARY: N errors"; racecheck:
  # "RACECHECK SUMMARY: H hazards displayed (N errors, W warnings)".
  errors="$(sed -nE -e 's/^========= ERROR SUMMARY: ([0-9]+) error.*/\1/p' \
    -e 's/^========= RACECHECK SUMMARY: .*\(([0-9]+) error.*/\1/p' "$log" | tail -1)"
  local note="" result="clean"
  if [[ -z "$errors" ]]; then
    result="no-summary"; note="exit $status, no summary line"
  elif [[ "$errors" != 0 || $status -eq 99 ]]; then
    result="errors"
    note="$(grep -m2 -E '^========= (Invalid|Uninitialized|Error|Race|Barrier|Leaked|Program hit)' "$log" |
      tr '\n' ' ' | cut -c1-160)"
  elif [[ $status -ne 0 ]]; then
    result="failed"; note="exit $status: $(grep -v '^=========' "$log" | tail -2 | tr '\n' ' ' | cut -c1-160)"
  fi
  [[ "$result" == clean ]] && clean=$((clean + 1)) || dirty=$((dirty + 1))
  printf '%-10s %-34s %-10s %5s errors %4d s  %s\n' "$tool" "$name" "$result" \
    "${errors:-?}" $((SECONDS - start)) "$note"
  note="${note//\\/\\\\}"
  entries+=("{\"tool\": \"$tool\", \"name\": \"$name\", \"result\": \"$result\", \"errors\": ${errors:-null}, \"note\": \"${note//\"/\\\"}\"}")
}

command -v nvidia-smi >/dev/null &&
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
"$sanitizer" --version | tail -1
for tool in "${tools[@]}"; do
  for dir in "$out"/models/*/; do
    name="$(basename "$dir")"
    [[ -z "$only_models" || "$only_models" == *" $name "* ]] || continue
    # A model compiled for a range (issue 18) has a data_<size>/ per size
    # in place of data/; kiln-run takes the shapes from the input files. A
    # model with neither still gets its row (kiln-run fails: no inputs).
    datas=()
    for data in "$dir"data "$dir"data_*; do [[ -d "$data" ]] && datas+=("$data"); done
    [[ ${#datas[@]} -eq 0 ]] && datas=("$dir"data)
    # A ranged model's fp16.kiln beside its model.kiln runs too (kiln-run
    # converts the f32 inputs to the artifact's dtype).
    artifacts=(model.kiln)
    [[ -f "$dir/fp16.kiln" ]] && artifacts+=(fp16.kiln)
    for artifact in "${artifacts[@]}"; do
      for data in "${datas[@]}"; do
        label="model/$name"
        [[ "$artifact" != model.kiln ]] && label="$label/${artifact%.kiln}"
        [[ "$(basename "$data")" == data_* ]] && label="$label/${data##*/data_}"
        check "$tool" "$label" "$kiln_run" "$dir/$artifact" --inputs "$data"
        # Step by step as well: each kernel in its own launch, not in a graph.
        [[ "$tool" == memcheck ]] &&
          check "$tool" "$label/debug" env KILN_DEBUG=1 "$kiln_run" "$dir/$artifact" --inputs "$data"
      done
    done
  done
  # The runtime's GPU tests under memcheck, before the slower tools. Left
  # out: the device-fault tests (they fault on purpose), the one that asks
  # for an impossible arena (its cudaMalloc fails on purpose, an API error
  # to the tool) and the concurrency test (hours under the tool). The tool is
  # CUPTI's one subscriber, so profile mode runs on events (KILN_CUPTI=0,
  # which also skips the CUPTI tests).
  if [[ "$tool" == memcheck && -x "$out/unittests/KilnRuntimeGPUTests" ]]; then
    check memcheck "unit/KilnRuntimeGPUTests" env KILN_TEST_MODELS_DIR="$out/models" \
      KILN_CUPTI=0 "$out/unittests/KilnRuntimeGPUTests" --gtest_brief=1 \
      --gtest_filter='-DeviceFaultTest.*:ConcurrencyTest.*:SessionTest.ImpossibleArena*'
  fi
done

{
  echo "{\"clean\": $clean, \"with_errors\": $dirty, \"runs\": ["
  for i in "${!entries[@]}"; do
    sep=","; [[ $i -eq $((${#entries[@]} - 1)) ]] && sep=""
    echo "  ${entries[$i]}$sep"
  done
  echo "]}"
} >"$out/sanitize.json"
echo "logs: $logs; results: $out/sanitize.json"
echo "$clean clean, $dirty with errors"
[[ $dirty -eq 0 ]]
