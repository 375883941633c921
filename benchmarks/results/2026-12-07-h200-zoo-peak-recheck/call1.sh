#!/usr/bin/env bash
# Call A (2026-12-07 night): the row-kernel tests with the 16-byte index
# pieces (softmax_rows, softmax, layer_norm kernel cases), DeBERTa's A/B
# (HEAD e7eab17 as `old` against the pieces, one process, --runs 100), then
# the 14 other zoo models not yet checked under the peak bound.
set -u
cd "$(dirname "$0")/.."
start=$(date +%s)
el() { echo "[$(( $(date +%s) - start )) s] $*"; }
PY=/opt/torch/.venv/bin/python
export PYTHONUNBUFFERED=1
tar -xzf gpu-bundle/a.tgz -C gpu-bundle
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
el kernels
timeout 90 bash gpu-bundle/KS/run.sh gpu-bundle/KS $OUT/ks-results.json > $OUT/ks.log 2>&1; echo "ks rc $?"; grep -E "FAIL|passed, |relative" $OUT/ks.log | tail -6 | cut -c1-200
el deberta-ab
$PY gpu-bundle/ZD/zoo.py --bundle gpu-bundle/ZD --runs 100 --out /tmp/zoo-deb --models deberta_v2 --skip-max-autotune --budget-s 100 --model-timeout-s 90 > /tmp/zoo-deb.log 2>&1; echo "rc $?"; tail -4 /tmp/zoo-deb.log | cut -c1-250
tar -czf $OUT/zoo-deb.tgz -C /tmp zoo-deb zoo-deb.log
el zoo
left=$(( ${BUDGET:-540} - ($(date +%s) - start) ))
$PY gpu-bundle/Z/zoo.py --bundle gpu-bundle/Z --runs 30 --out /tmp/zoo-z --models ${MODELS:-resnet18,squeezenet,distilbert,albert,roberta,roformer,swin,swin_v2,convnext_tiny,llama,llama_gqa,gpt2_past,bart_encoder,bart_decoder} --skip-max-autotune --budget-s $left --model-timeout-s 60 > /tmp/zoo-z.log 2>&1; echo "rc $?"; grep -E "^[a-z0-9_]+: |^zoo: " /tmp/zoo-z.log | cut -c1-200
tar -czf $OUT/zoo-z.tgz -C /tmp zoo-z zoo-z.log
el end
