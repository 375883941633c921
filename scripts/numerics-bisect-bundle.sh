#!/usr/bin/env bash
# Build machine: the bundle for the numerics bisect of issue 13 on the GPU
# machine: ResNet-50 (TorchScript export) at batch 32, fp16, with external
# weights (the GPU machine fills the same bytes), kiln-run, the runtime's
# GPU tests and the runner
# scripts/numerics-bisect-run.py. Afterwards, here:
# scripts/numerics-bisect-compare.sh RESULTS_DIR compares the dump it brings
# back kernel by kernel with the CPU evaluator.
# Usage: scripts/numerics-bisect-bundle.sh OUTDIR [BATCH]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${KILN_BUILD_DIR:-$root/build}"
out="${1:?usage: scripts/numerics-bisect-bundle.sh OUTDIR [BATCH]}"
batch="${2:-32}"
python="$root/.venv/bin/python"
model=resnet50-torchscript
rm -rf "$out"
mkdir -p "$out/bin" "$out/$model"
cp "$build/bin/kiln-run" "$out/bin/"
# The runtime's GPU tests of the step callback the dump relies on.
cp "$build/unittests/KilnRuntimeGPUTests" "$out/bin/"
cp "$root/scripts/numerics-bisect-run.py" "$out/run.py"
cp "$root/scripts/real-models-run.py" "$out/real_models_run.py"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$python" "$root/scripts/fill-weights.py" "$root/test/models/$model.onnx" \
  "$work/$model.onnx" --external | tee "$out/$model/fill.txt"
"$build/bin/kiln-compile" "$work/$model.onnx" --input-shape "batch=$batch" \
  --precision fp16 --external-weights --gpu-arch "${KILN_GPU_ARCH:-sm_90}" \
  -o "$out/$model/fp16-bs$batch.kiln" 2>&1 | tail -1
echo "bundle: $out ($(du -sk "$out" | cut -f1) KiB)"
echo "on the GPU machine: python3 $out/run.py $out --models-dir test/models --out \$OUT"
