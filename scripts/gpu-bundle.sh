#!/usr/bin/env bash
# Build machine: writes the GPU bundle to OUTDIR (and the kernel-template
# tests to OUTDIR-kernels): compiled .kiln artifacts of
# the end-to-end test models with inputs and onnxruntime's expected outputs,
# the kernel-template tests, kiln-run and the runtime's GoogleTest binaries,
# the installed runtime library with examples/embed built against it,
# and OUTDIR/run.sh (= scripts/gpu-test.sh) that runs it all on the GPU machine.
# Usage: scripts/gpu-bundle.sh OUTDIR     (KILN_GPU_ARCH=sm_90 by default)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${KILN_BUILD_DIR:-$root/build}"
out="${1:?usage: scripts/gpu-bundle.sh OUTDIR}"
arch="${KILN_GPU_ARCH:-sm_90}"
python="$root/.venv/bin/python"

"$root/scripts/setup.sh"
"$root/scripts/build.sh"
rm -rf "$out"
mkdir -p "$out/bin" "$out/unittests" "$out/models"

# 1. Kernel-template tests: their own bundle beside OUTDIR (OUTDIR-kernels,
# and OUTDIR-kernels-2 with the largest cases: with the rest they exceed the
# 64 MiB a device call carries), with their own runner.
kernels="${out%/}-kernels"
rm -rf "$kernels"
"$root/scripts/gpu-kernel-tests.sh" "$kernels" >/dev/null

# 2. End-to-end models: generate, compile, keep artifacts and data only.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$python" "$root/test/GPU/models/make_models.py" "$work" >/dev/null
mkdir -p "$work/mlp"
cp "$root/examples/mlp.onnx" "$work/mlp/model.onnx"
(cd "$root/examples" && "$python" mlp.py --model "$work/mlp/regenerated.onnx" \
  --data-dir "$work/mlp/data" --batch 8 >/dev/null)
cmp -s "$work/mlp/regenerated.onnx" "$work/mlp/model.onnx" ||
  { echo "error: examples/mlp.onnx differs from what mlp.py writes" >&2; exit 1; }
echo "batch=8" >"$work/mlp/shape"
for dir in "$work"/*/; do
  name="$(basename "$dir")"
  shape="$(cat "$dir/shape")"
  mkdir -p "$out/models/$name"
  args=()
  [[ -n "$shape" ]] && args+=(--input-shape "$shape")
  echo "== compile $name ${shape:+(--input-shape $shape)}"
  "$build/bin/kiln-compile" "$dir/model.onnx" "${args[@]}" \
    --gpu-arch "$arch" -o "$out/models/$name/model.kiln" 2>&1 | sed 's/^/   /'
  # data/, or data_<size>/ for each size a ranged model runs at.
  for data in "$dir"/data*/; do
    cp -r "$data" "$out/models/$name/"
  done
done

# 3. A wrong input shape must be rejected with an error naming the input:
# the MLP's input 'x' is [8, 64]; this file holds [3, 64].
mkdir -p "$out/models/mlp/wrong_shape"
"$python" - "$out/models/mlp/wrong_shape/x.npy" <<'PY'
import sys
import numpy as np
np.save(sys.argv[1], np.random.RandomState(5).uniform(0.1, 1, (3, 64)).astype(np.float32))
PY

# 3b. Bounds checks (issue 15): a Gather over a [30522, 4] table compiled
# with --bounds-checks, with ids in range (gpu-test.sh compares the output
# with numpy's table[ids]) and with one index out of range (the run must
# fail naming the step, the ONNX node, the index, the bound and the axis).
mkdir -p "$out/bounds/good" "$out/bounds/bad" "$out/bounds/want"
"$python" "$root/test/Inputs/gen_model.py" node "$work/gather.onnx" --op Gather \
  --name /embeddings/Gather --init table:float:30522,4=range \
  --in ids:int64:2,3 --inputs table,ids --attr axis=0
echo "== compile bounds/gather.kiln (--bounds-checks)"
"$build/bin/kiln-compile" "$work/gather.onnx" --bounds-checks --gpu-arch "$arch" \
  -o "$out/bounds/gather.kiln" 2>&1 | sed 's/^/   /'
"$python" - "$work/gather.onnx" "$out/bounds" <<'PY'
import sys
import numpy as np
import onnx
from onnx import numpy_helper
model, out = onnx.load(sys.argv[1]), sys.argv[2]
table = numpy_helper.to_array(model.graph.initializer[0])
good = np.array([[0, 5, -1], [30521, 7, -30522]], dtype=np.int64)
np.save(f"{out}/good/ids.npy", good)
np.save(f"{out}/want/y.npy", table[good])
bad = good.copy()
bad[1, 1] = 50321
np.save(f"{out}/bad/ids.npy", bad)
PY

# 4. The runtime package as a user installs it, and examples/embed built
# against it (CMake and pkg-config; scripts/install-embed.sh), with the sum of
# squares of each MLP output that onnxruntime gives for the examples' input
# pattern. On the GPU machine they load libkiln_runtime.so from embed/lib.
"$root/scripts/install-embed.sh" "$work/embed" >"$work/embed.log" 2>&1 ||
  { tail -20 "$work/embed.log" >&2; echo "error: scripts/install-embed.sh failed" >&2; exit 1; }
mkdir -p "$out/embed/lib" "$out/embed/bin"
cp -P "$(dirname "$(find "$work/embed/prefix" -name 'libkiln_runtime.so' | head -1)")"/libkiln_runtime.so* "$out/embed/lib/"
cp "$work/embed/cmake-build/embed_c" "$work/embed/cmake-build/embed_cpp" "$out/embed/bin/"
cp "$work/embed/pkgconfig-build/embed_c" "$out/embed/bin/embed_c_pkgconfig"
"$python" - "$root/examples/mlp.onnx" "$out/embed/expected.txt" <<'PY'
import sys
import numpy as np
import onnxruntime
session = onnxruntime.InferenceSession(sys.argv[1], providers=["CPUExecutionProvider"])
feeds = {}
for node in session.get_inputs():
    shape = [8 if not isinstance(d, int) else d for d in node.shape]  # batch=8
    i = np.arange(int(np.prod(shape)))
    feeds[node.name] = (((i * 7) % 19 + 1) / 20.0 - 0.5).astype(np.float32).reshape(shape)
with open(sys.argv[2], "w") as out:
    for node, value in zip(session.get_outputs(), session.run(None, feeds)):
        value = value.astype(np.float64)
        out.write("%s %.9g\n" % (node.name, float((value * value).sum())))
PY

# 5. ResNet-50 at batch 32, fp16, for the replay check (issue 13): the
# artifact with its weights external, the graph-only model and the weight
# filler that regenerates the same bytes on the GPU machine.
mkdir -p "$out/replays" "$work/resnet50"
"$python" "$root/scripts/fill-weights.py" "$root/test/models/resnet50-torchscript.onnx" \
  "$work/resnet50/resnet50-torchscript.onnx" --external >/dev/null
"$build/bin/kiln-compile" "$work/resnet50/resnet50-torchscript.onnx" --input-shape batch=32 \
  --precision fp16 --external-weights --gpu-arch "$arch" \
  -o "$out/replays/resnet50-bs32-fp16.kiln" 2>&1 | tail -1 | sed 's/^/   /'
cp "$root/test/models/resnet50-torchscript.onnx" "$root/scripts/fill-weights.py" "$out/replays/"
# 5b. ResNet-50 over batch 1..64 (issue 18): one artifact per precision,
# compiled with a range, its weights external like 5's (gpu-test.sh runs it
# at batch 1, 7, 32 and 64 against onnxruntime).
mkdir -p "$out/ranged_resnet50"
for precision in fp32 fp16; do
  echo "== compile ranged_resnet50/$precision.kiln (--input-shape batch=1..64)"
  "$build/bin/kiln-compile" "$work/resnet50/resnet50-torchscript.onnx" --input-shape batch=1..64 \
    --precision "$precision" --external-weights --gpu-arch "$arch" \
    -o "$out/ranged_resnet50/$precision.kiln" 2>&1 | tail -1 | sed 's/^/   /'
done
# 5c. The encoder and the attention block of part 2's ranged_encoder and
# ranged_attention (issue 18: [batch, seq, ...] with batch=1..32,seq=16..512)
# in fp16 (the attention block: the flash kernel, strided); gpu-test.sh runs
# them at part 2's (batch, seq) pairs against the fp32 onnxruntime reference
# of part 2.
for name in ranged_encoder ranged_attention; do
  echo "== compile models/$name/fp16.kiln (--input-shape batch=1..32,seq=16..512 --precision fp16)"
  "$build/bin/kiln-compile" "$work/$name/model.onnx" \
    --input-shape batch=1..32,seq=16..512 --precision fp16 --gpu-arch "$arch" \
    -o "$out/models/$name/fp16.kiln" 2>&1 | tail -1 | sed 's/^/   /'
done
# 5d. HF BERT-base over batch=1..32,seq=16..512 (issue 18): the dynamo
# export (test/models, weights filled and kept external as for 5; the GPU
# machine fills the same bytes), one artifact per precision; gpu-test.sh
# runs each at the issue's (batch, seq) pairs against onnxruntime.
mkdir -p "$out/ranged_bert" "$work/bert"
"$python" "$root/scripts/fill-weights.py" "$root/test/models/bert-dynamo.onnx" \
  "$work/bert/bert-dynamo.onnx" --external >/dev/null
for precision in fp32 fp16; do
  echo "== compile ranged_bert/$precision.kiln (--input-shape batch=1..32,seq=16..512)"
  "$build/bin/kiln-compile" "$work/bert/bert-dynamo.onnx" \
    --input-shape batch=1..32,seq=16..512 --precision "$precision" \
    --external-weights --gpu-arch "$arch" \
    -o "$out/ranged_bert/$precision.kiln" 2>&1 | tail -1 | sed 's/^/   /'
done
cp "$root/test/models/bert-dynamo.onnx" "$out/ranged_bert/"
# 6. Binaries: kiln-run, the probes (benchmarks/probes) and the runtime's
# tests (they need only the CUDA runtime, cuBLASLt, cuDNN and NVRTC of the
# GPU machine's /usr/local/cuda).
cp "$build/bin/kiln-run" "$build/bin/kiln-probe-matmul-gelu" \
  "$build/bin/kiln-probe-wgmma-gemm" "$out/bin/"
for test in "$build"/unittests/KilnRuntime* "$build"/unittests/KilnRunFile*; do
  [[ -f "$test" && -x "$test" ]] && cp "$test" "$out/unittests/"
done
cp "$root/scripts/gpu-test.sh" "$out/run.sh"
cp "$root/scripts/gpu-sanitize.sh" "$out/sanitize.sh"
chmod +x "$out/run.sh" "$out/sanitize.sh"

limit=$((64 * 1024 * 1024))
for part in "$out" "$kernels" "$kernels-2"; do
  [[ -d "$part" ]] || continue
  bytes=$(du -sb "$part" | cut -f1)
  echo "bundle: $part ($((bytes / 1024)) KiB)"
  if (( bytes >= limit )); then
    echo "error: $part is $bytes bytes, over the 64 MiB a device call carries" >&2
    exit 1
  fi
done
echo "$(ls "$out/models" | wc -l) models; $(find "$kernels/cases" -name manifest.txt | wc -l)" \
  "kernel cases; cubins for $arch"
echo "on the GPU machine, one device call each:"
echo "  $out/run.sh   (prints N passed, M failed; writes results.json)"
echo "  $out/sanitize.sh  (compute-sanitizer over the models; errors per tool)"
echo "  $kernels/run.sh $kernels $kernels/results.json  (the kernel-template tests)"
[[ -d "$kernels-2" ]] &&
  echo "  $kernels-2/run.sh $kernels-2 $kernels-2/results.json  (the largest kernel cases)"
exit 0
