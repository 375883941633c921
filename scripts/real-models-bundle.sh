#!/usr/bin/env bash
# Build machine: compiles the six graph-only real models of test/models
# (ResNet-50, BERT-base, GPT-2; TorchScript and dynamo exports) for the GPU
# bundle. Weights are filled deterministically by scripts/fill-weights.py
# --external and stay external: the artifacts reference
# MODEL.onnx.data by offset, length and hash, and the GPU machine writes the
# same file with the same script (scripts/real-models-run.py). Each model is
# compiled at fp32, fp16 and bf16, batch 1 and 8 (BERT and GPT-2 at seq 128),
# and at fp16 at the shapes benchmarks/compare_torch.py times (ResNet-50
# batch 32, GPT-2 seq 1024; KILN_BENCH_SHAPES=0 leaves them out), so every
# benchmarked shape is checked against onnxruntime; compile time, artifact
# size and arena bytes go to OUTDIR/compile.json.
# Usage: scripts/real-models-bundle.sh OUTDIR [MODEL...]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${KILN_BUILD_DIR:-$root/build}"
out="${1:?usage: scripts/real-models-bundle.sh OUTDIR [MODEL...]}"
shift
models=("$@")
[[ ${#models[@]} -gt 0 ]] || models=(resnet50-torchscript resnet50-dynamo
  bert-torchscript bert-dynamo gpt2-torchscript gpt2-dynamo)
arch="${KILN_GPU_ARCH:-sm_90}"
python="$root/.venv/bin/python"
precisions=(${KILN_PRECISIONS:-fp32 fp16 bf16})
batches=(${KILN_BATCHES:-1 8})

rm -rf "$out"
mkdir -p "$out"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp "$root/scripts/real-models-run.py" "$out/run.py"
mkdir -p "$out/bin"
cp "$build/bin/kiln-run" "$out/bin/"
records=()
for model in "${models[@]}"; do
  mkdir -p "$out/$model" "$work/$model"
  "$python" "$root/scripts/fill-weights.py" "$root/test/models/$model.onnx" \
    "$work/$model/$model.onnx" --external | tee "$out/$model/fill.txt"
  # precision:batch:seq (seq 0 for images) of each artifact.
  variants=()
  for precision in "${precisions[@]}"; do
    for batch in "${batches[@]}"; do
      variants+=("$precision:$batch:$([[ $model == resnet50-* ]] && echo 0 || echo 128)")
    done
  done
  if [[ ${KILN_BENCH_SHAPES:-1} != 0 ]]; then
    case $model in
      resnet50-*) variants+=(fp16:32:0) ;;
      gpt2-*) variants+=(fp16:1:1024) ;;
    esac
  fi
  for variant in "${variants[@]}"; do
    IFS=: read -r precision batch seq <<<"$variant"
    {
      shape="batch=$batch"
      name="$precision-bs$batch"
      if [[ $seq != 0 ]]; then
        shape="$shape,seq=$seq"
        [[ $seq == 128 ]] || name="$name-seq$seq"
      fi
      artifact="$out/$model/$name.kiln"
      start=$(date +%s.%N)
      log="$("$build/bin/kiln-compile" "$work/$model/$model.onnx" \
        --input-shape "$shape" --precision "$precision" --external-weights \
        --gpu-arch "$arch" -o "$artifact" 2>&1)" ||
        { echo "$log" >&2; echo "error: $model $name" >&2; exit 1; }
      end=$(date +%s.%N)
      summary="$(echo "$log" | tail -1)"
      seconds=$(awk "BEGIN {printf \"%.2f\", $end - $start}")
      size=$(stat -c %s "$artifact")
      arena=$(echo "$summary" | grep -oP 'activation arena \K[0-9]+')
      weights=$(echo "$summary" | grep -oP 'weight arena \K[0-9]+')
      echo "== $model $name: ${seconds}s, artifact $size bytes," \
        "arena $arena bytes"
      records+=("{\"model\": \"$model\", \"artifact\": \"$name\", \"precision\": \"$precision\", \"batch\": $batch, \"compile_s\": $seconds, \"artifact_bytes\": $size, \"activation_arena_bytes\": $arena, \"weight_arena_bytes\": $weights, \"summary\": \"${summary//\"/\\\"}\"}")
    }
  done
done
(IFS=,; echo "[${records[*]}]") | "$python" -m json.tool >"$out/compile.json"
bytes=$(du -sb "$out" | cut -f1)
echo "bundle: $out ($((bytes / 1024)) KiB)"
echo "on the GPU machine: python3 $out/run.py $out --models-dir test/models"
