#!/usr/bin/env bash
# GPU machine: runs a kernel-test bundle written by scripts/gpu-kernel-tests.sh
# and prints PASS/FAIL per case and "N passed, M failed, K skipped"; results
# go to RESULTS (default OUTDIR/results.json). If the prebuilt runner cannot
# start here it is rebuilt from OUTDIR/src with g++ and the CUDA runtime.
# Usage: scripts/gpu-kernel-run.sh OUTDIR [RESULTS]   (or OUTDIR/run.sh)
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [[ $# -ge 1 ]]; then
  out="$(cd "$1" && pwd)"
elif [[ -d "$here/cases" ]]; then
  out="$here"
else
  echo "usage: $0 OUTDIR [RESULTS]" >&2
  exit 2
fi
results="${2:-$out/results.json}"
cuda="${CUDA_HOME:-/usr/local/cuda}"

command -v nvidia-smi >/dev/null &&
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
runner="$out/bin/kiln-kernel-test"
if ! "$runner" --help >/dev/null 2>&1; then
  echo "the prebuilt runner does not start here; rebuilding from $out/src"
  runner="$(mktemp -d)/kiln-kernel-test"
  g++ -std=c++17 -O2 "$out"/src/*.cpp -I"$cuda/include" -L"$cuda/lib64" \
    -lcudart -Wl,-rpath,"$cuda/lib64" -o "$runner" || exit 2
fi
log="$(mktemp)"
"$runner" "$out/cases" --json "$results" | tee "$log"
status=${PIPESTATUS[0]}
# On a machine that has a GPU, "no CUDA device" (e.g. a driver too old for
# the bundled CUDA 13 runtime) is a failure, not a skip.
if grep -q "^skipped: no CUDA device" "$log" &&
   command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  echo "error: nvidia-smi sees a GPU but the CUDA runtime does not" >&2
  status=1
fi
echo "results: $results"
exit $status
