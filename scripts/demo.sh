#!/usr/bin/env bash
# Shows kiln end to end on a small MLP: writes the model and onnxruntime's
# reference outputs, prints the imported, the simplified and the fused and
# tiled kiln IR, checks the CPU evaluator against onnxruntime, prints the
# generated CUDA, compiles the .kiln artifact (kernels, arena sizes, artifact
# size) and, when a GPU is present, runs it with kiln-run against
# onnxruntime's output. Prints only what really ran.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
build="${KILN_BUILD_DIR:-$root/build}"
bin="$build/bin"
data="$build/demo/mlp"
# Show paths relative to the repository where they are inside it.
case "$data" in "$root"/*) data="${data#"$root"/}" ;; esac
case "$bin" in "$root"/*) bin="${bin#"$root"/}" ;; esac

step() { printf '\n== %s\n' "$*"; }
show() { printf '$ %s\n' "$*"; "$@"; }

step "setup"
scripts/setup.sh

step "build kiln-compile, kiln-interpret, kiln-inspect and kiln-run"
mkdir -p "$build"
if ! scripts/build.sh kiln-compile kiln-interpret kiln-inspect kiln-run \
    >"$build/demo-build.log" 2>&1; then
  grep -E "error|FAILED|undefined reference" "$build/demo-build.log" | grep -v "^: &&" |
    cut -c1-300 | head -30
  echo "demo: the build failed; full output in $build/demo-build.log"
  exit 1
fi
tail -1 "$build/demo-build.log"

step "write the example model, an input and onnxruntime's output"
# The model goes next to its data (examples/mlp.onnx, the committed copy, is
# left alone); onnxruntime computes the reference output from that file.
mkdir -p "$data"
model="$data/mlp.onnx"
show .venv/bin/python examples/mlp.py --model "$model" --data-dir "$data"
if cmp -s "$model" examples/mlp.onnx; then
  echo "($model is byte-identical to examples/mlp.onnx)"
fi

step "import: ONNX -> kiln dialect"
show "$bin/kiln-compile" "$model" --emit import

step "graph passes: types refined, constants folded, graph simplified (batch=4)"
show "$bin/kiln-compile" "$model" --emit graph --input-shape batch=4

step "fusion and tiling: kiln.kernel regions with launch geometry (batch=4)"
show "$bin/kiln-compile" "$model" --emit tiled --input-shape batch=4

step "CPU evaluator against onnxruntime (rtol 1e-3, atol 1e-7)"
show "$bin/kiln-interpret" "$model" --inputs "$data" --expect "$data"
echo "=> kiln-interpret exited 0: every output matches onnxruntime's"

step "CUDA C++ of the generated kernels (batch=4; each compiled by NVRTC for sm_90)"
show "$bin/kiln-compile" "$model" --emit cuda --input-shape batch=4 --quiet

step "the artifact: kernels, arena sizes, artifact size"
show "$bin/kiln-compile" "$model" --input-shape batch=4 -o "$data/mlp.kiln"
show "$bin/kiln-inspect" "$data/mlp.kiln"

step "GPU"
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then
  echo "GPU present: $(nvidia-smi -L | head -1)"
  show "$bin/kiln-run" "$data/mlp.kiln" --inputs "$data" --expect "$data" --rel-l2 1e-5
  show "$bin/kiln-run" "$data/mlp.kiln" --inputs "$data" --bench 200
else
  echo "No GPU on this machine (nvidia-smi absent or finds no device): the"
  echo "artifact above was built but not run. On a GPU machine:"
  echo "  $bin/kiln-run $data/mlp.kiln --inputs $data --expect $data"
fi
