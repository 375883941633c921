#!/usr/bin/env bash
# GPU machine, after zoo.py has run NAME from the bundle (the weights
# exported beside NAME/fp16.kiln, NAME/inputs written): one debug-mode run of
# the artifact with every step's outputs dumped for the first image
# (kiln-run --dump-steps --dump-rows 0), packed as OUT/NAME-steps.tar.gz in
# parts of 15 MiB (a device call brings back 8 files of 16 MiB). Then, on the
# build machine, with the same export (zoo_export.py NAME DIR
# --batch-norm-stats NAME/batch_norm_stats.npz: the same bytes):
#   cat NAME-steps.tar.gz.part-* | tar -xz -C DIR
#   build/bin/kiln-interpret DIR/model.onnx --precision fp16 --compare-steps DIR/NAME-steps
# prints each kernel's rel-L2 against the CPU evaluator on the GPU's own
# inputs (docs/testing.md, "Trustworthy numbers"): where the GPU adds error
# that the evaluator's fp16 semantics do not.
# Usage: BUNDLE/zoo_step_dump.sh BUNDLE NAME OUT [FIRST:LAST]   (plan steps)
set -euo pipefail
bundle="${1:?usage: zoo_step_dump.sh BUNDLE NAME OUT [FIRST:LAST]}"
name="${2:?usage: zoo_step_dump.sh BUNDLE NAME OUT [FIRST:LAST]}"
out="${3:?usage: zoo_step_dump.sh BUNDLE NAME OUT [FIRST:LAST]}"
folder="$bundle/$name"
for needed in "$folder/fp16.kiln" "$folder/model.onnx.data" "$folder/inputs"; do
  [[ -e "$needed" ]] || { echo "zoo_step_dump: no $needed: run zoo.py --models $name first" >&2; exit 2; }
done
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
range=()
[[ -n "${4:-}" ]] && range=(--dump-step-range "$4")
"$bundle/bin/kiln-run" "$folder/fp16.kiln" --inputs "$folder/inputs" \
  --dump-steps "$work/$name-steps" --dump-rows 0 "${range[@]}"
mkdir -p "$out"
tar -czf - -C "$work" "$name-steps" | split -b 15m - "$out/$name-steps.tar.gz.part-"
parts=$(ls "$out/$name-steps.tar.gz.part-"* | wc -l)
echo "zoo_step_dump: $out/$name-steps.tar.gz in $parts part(s) of at most 15 MiB"
(( parts <= 8 )) || echo "zoo_step_dump: more than 8 parts: rerun with a step range" >&2
