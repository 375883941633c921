#!/usr/bin/env bash
# Build machine: the bundle for benchmarks/compare_torch.py: an fp16 artifact
# per model at the performance issue's shapes (ResNet-50 bs32, BERT-base bs8
# seq128, GPT-2 bs1 seq1024; ResNet-50 and BERT at batch 1 too) from the
# graph-only TorchScript exports, with
# external weights (the GPU machine fills the same bytes), and bin/kiln-run.
# Usage: benchmarks/make_bench_bundle.sh OUTDIR
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${KILN_BUILD_DIR:-$root/build}"
out="${1:?usage: benchmarks/make_bench_bundle.sh OUTDIR}"
python="$root/.venv/bin/python"
rm -rf "$out"
mkdir -p "$out/bin"
cp "$build/bin/kiln-run" "$out/bin/"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
while read -r name file shape; do
  mkdir -p "$out/$name"
  "$python" "$root/scripts/fill-weights.py" "$root/test/models/$file.onnx" \
    "$work/$file.onnx" --external >/dev/null
  echo "== $name ($shape)"
  "$build/bin/kiln-compile" "$work/$file.onnx" --input-shape "$shape" \
    --precision fp16 --external-weights -o "$out/$name/fp16.kiln" 2>&1 | tail -1
done <<'LIST'
resnet50 resnet50-torchscript batch=32
bert bert-torchscript batch=8,seq=128
gpt2 gpt2-torchscript batch=1,seq=1024
resnet50-bs1 resnet50-torchscript batch=1
bert-bs1 bert-torchscript batch=1,seq=128
LIST
echo "bundle: $out ($(du -sk "$out" | cut -f1) KiB)"
echo "on the GPU machine: python3 benchmarks/compare_torch.py --bundle $out"
