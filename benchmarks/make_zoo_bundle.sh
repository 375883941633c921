#!/usr/bin/env bash
# Build machine: the bundle of benchmarks/zoo.py (the zoo against torch eager
# and torch.compile max-autotune): per model an fp16 artifact at the
# benchmark's shapes with its weights external, its export's sha256s and
# compile time and a CNN's BatchNorm statistics, plus bin/kiln-run and the
# scripts that run on the GPU machine (benchmarks/zoo_bundle.py does the
# work). Prints the one command to run there.
# Usage: benchmarks/make_zoo_bundle.sh OUTDIR [REGEX [--variant NAME=KILN_COMPILE ...]]
#   REGEX matches model names in full (`resnet18|bert|gpt2`; default: all).
# KILN_TORCH_PYTHON: a Python with the GPU machine's torch 2.11, torchvision
# and transformers (default /work/torchenv/bin/python). The weights are drawn
# so as to be the same bytes on any CPU (benchmarks/zoo_export.py); both
# machines export with ATEN_CPU_CAPABILITY=avx2 for the constants torch computes.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="${1:?usage: benchmarks/make_zoo_bundle.sh OUTDIR [REGEX]}"
torch_python="${KILN_TORCH_PYTHON:-/work/torchenv/bin/python}"
if ! "$torch_python" -c 'import torch, torchvision, transformers, onnx' 2>/dev/null; then
  echo "make_zoo_bundle: $torch_python lacks torch, torchvision, transformers or onnx" >&2
  echo "(set KILN_TORCH_PYTHON)" >&2
  exit 2
fi
ATEN_CPU_CAPABILITY=avx2 "$torch_python" "$root/benchmarks/zoo_bundle.py" "$out" \
  --models "${2:-.*}" "${@:3}"
