#!/usr/bin/env bash
# Build machine: compares the step dump that scripts/numerics-bisect-run.py
# brought back from the GPU machine kernel by kernel with the CPU evaluator
# (kiln-interpret --compare-steps) and names the first kernel whose outputs
# diverge. Fills the model's weights here as the GPU machine did.
# Usage: scripts/numerics-bisect-compare.sh RESULTS_DIR [DUMP] [kiln-interpret flags]
#   DUMP: dump-private (default) or dump-plan, the parts RESULTS_DIR/DUMP.tar.gz.part-*
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${KILN_BUILD_DIR:-$root/build}"
results="${1:?usage: scripts/numerics-bisect-compare.sh RESULTS_DIR [DUMP]}"
shift
dump=dump-private
if [[ $# -gt 0 && "$1" != -* ]]; then dump="$1"; shift; fi
model=resnet50-torchscript
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cat "$results/$dump".tar.gz.part-* | tar -xz -C "$work"
"$root/.venv/bin/python" "$root/scripts/fill-weights.py" \
  "$root/test/models/$model.onnx" "$work/$model.onnx" --external
"$build/bin/kiln-interpret" "$work/$model.onnx" --precision fp16 \
  --compare-steps "$work/dump" "$@"
