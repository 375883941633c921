#!/usr/bin/env bash
# Prepares the Python package's GPU bundle in OUTDIR (default python-bundle/):
# the runtime-only wheel (any Python 3 on Linux x86-64: the GPU machine has
# 3.12 and no compiler), the pytest suite with its artifacts compiled here,
# and the ResNet-50 example's artifact in a compile cache. On the GPU machine,
# from the repository root: `bash OUTDIR/run.sh` (= scripts/python-gpu-test.sh).
#   scripts/python-bundle.sh [OUTDIR]
# Set KILN_TORCH_PYTHON to a Python 3.11 with torch 2.11 and torchvision 0.26
# (the GPU machine's) to compile the example here; default /work/torchenv.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
out="$(mkdir -p "${1:-python-bundle}" && cd "${1:-python-bundle}" && pwd)"
build="${KILN_BUILD_DIR:-$root/build}"
torch_python="${KILN_TORCH_PYTHON:-/work/torchenv/bin/python}"
say() { echo "python-bundle: $*"; }

scripts/setup.sh
rm -rf "$out/wheels" "$out/data" "$out/tests" "$out/cache" "$out/examples"
mkdir -p "$out/wheels" "$out/data" "$out/cache"

# 1. The whole package into .venv, as the README installs it (into build/).
say "pip install ./python (compiler and runtime) into .venv"
flock "$build/.build-lock" .venv/bin/pip install --no-build-isolation --no-deps \
  --disable-pip-version-check -q -C "build-dir=$build" ./python

# 2. The runtime-only wheel for the GPU machine (pyproject.toml's override).
say "the runtime-only wheel"
KILN_PYTHON_RUNTIME_ONLY=1 .venv/bin/pip wheel --no-build-isolation --no-deps \
  --disable-pip-version-check -q -w "$out/wheels" ./python
ls "$out/wheels"

# 3. The tests and their artifacts, inputs and onnxruntime's outputs.
cp -r python/tests "$out/tests"
rm -rf "$out/tests/__pycache__"
# From the source folder: cases.py finds examples/mlp.onnx relative to it.
(cd python/tests && "$root/.venv/bin/python" cases.py "$out/data")

# 4. The example, compiled from torch here into the cache that the GPU
# machine's run reads. Both sides draw ResNet-50's random weights with the
# AVX2 kernels, so that they are the same bytes (the cache key holds them,
# and the runtime checks the external weights by hash at load).
mkdir -p "$out/examples"
cp examples/python/*.py "$out/examples/"
if [ -x "$torch_python" ]; then
  say "examples/python/resnet_from_torch.py with $torch_python (compile only here)"
  export ATEN_CPU_CAPABILITY=avx2
  # Without a GPU the example stops after compiling ("no CUDA device").
  PYTHONPATH="$build/python" KILN_CACHE_DIR="$out/cache" \
    "$torch_python" examples/python/resnet_from_torch.py || true
  if ! ls "$out"/cache/*.kiln >/dev/null 2>&1; then
    say "error: the example compiled nothing into $out/cache"
    exit 1
  fi
  rm -rf "$out/cache/exports" # 100 MB of weights, exported again there.
  ls -la "$out/cache"
else
  say "warning: no $torch_python: the bundle has no ResNet-50 artifact"
fi

cp scripts/python-gpu-test.sh "$out/run.sh"
du -sh "$out"
say "done: on the GPU machine, from the repository root: bash $(basename "$out")/run.sh"
