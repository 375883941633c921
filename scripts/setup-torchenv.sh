#!/usr/bin/env bash
# Makes the build machine's torch environment (default /work/torchenv, or
# KILN_TORCH_VENV): the GPU machine's torch 2.11, torchvision 0.26 and
# transformers 5.17, which benchmarks/make_zoo_bundle.sh, scripts/export-zoo.py,
# scripts/python-bundle.sh and the bench suite's zoo tests export with (the
# exports must match the GPU machine's byte for byte, benchmarks/README.md).
# Not part of scripts/setup.sh: it downloads several GB from PyPI (torch's
# CUDA wheels), and only the benchmark bundles need it. Idempotent.
set -euo pipefail
venv="${KILN_TORCH_VENV:-/work/torchenv}"
packages=(torch==2.11.0 torchvision==0.26.0 transformers==5.17.0 onnx==1.23.1
          onnxscript==0.7.2 onnx-ir==1.0.0 "numpy<2.5" onnxruntime==1.23.2)
if [[ -x "$venv/bin/python" ]] && "$venv/bin/python" - <<'PY' 2>/dev/null; then
import torch, torchvision, transformers, onnx, onnxruntime
assert torch.__version__.startswith("2.11.") and transformers.__version__ == "5.17.0"
PY
  echo "setup-torchenv: $venv ready"
  exit 0
fi
python3 -m venv "$venv"
"$venv/bin/python" -m pip install -q --disable-pip-version-check --upgrade pip
"$venv/bin/python" -m pip install -q --disable-pip-version-check "${packages[@]}"
"$venv/bin/python" -c 'import torch, torchvision, transformers, onnx; print("setup-torchenv:", torch.__version__, torchvision.__version__, transformers.__version__, onnx.__version__)'
