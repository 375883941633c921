#!/usr/bin/env bash
# Call 1 of 2026-12-07 evening: the end-to-end bundle (every model check now
# with kiln-run's peak bound; the runtime GPU tests with the new kiln-run
# test), zoo.py A/B of the spill retry (Qwen2, Llama-GQA: HEAD vs the
# compiler before it), the BERT and GPT-2 anchors (compare_torch.py: rel-L2
# and peak error first), then zoo models at HEAD against torch eager
# (checks with the peak bound; kiln_peak_error per model) while time lasts.
set -u
cd "$(dirname "$0")/.."
start=$(date +%s)
el() { echo "[$(( $(date +%s) - start )) s] $*"; }
PY=/opt/torch/.venv/bin/python
export PYTHONUNBUFFERED=1
tar -xzf gpu-bundle/s.tgz -C gpu-bundle
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
el bundle
timeout 150 bash gpu-bundle/G/run.sh gpu-bundle/G $OUT/g-results.json > $OUT/g.log 2>&1
echo "run.sh rc $?"; grep -E "FAIL|passed, " $OUT/g.log | tail -8
el zoo-ab
$PY gpu-bundle/Z2/zoo.py --bundle gpu-bundle/Z2 --runs 100 --out /tmp/zoo-ab --models qwen2,llama_gqa --skip-max-autotune --budget-s 70 --model-timeout-s 40 > /tmp/zoo-ab.log 2>&1; echo "rc $?"; tail -4 /tmp/zoo-ab.log | cut -c1-220
tar -czf $OUT/zoo-ab.tgz -C /tmp zoo-ab zoo-ab.log
el zoo
left=$(( 360 - ($(date +%s) - start) ))
$PY gpu-bundle/Z1/zoo.py --bundle gpu-bundle/Z1 --runs 30 --out /tmp/zoo-1 --models ${MODELS:-resnext50,mobilenet_v2,regnet_y_400mf,t5_encoder,deeplabv3,t5_decoder,densenet121,efficientnet_b0,llama_past,vit,gpt2,swin_v2,mnasnet,shufflenet_v2,lraspp,mobilenet_v3_small,resnet18,squeezenet,bert,deberta_v2,convnext_tiny,llama,roberta,roformer,bart_decoder,gpt2_past,albert,distilbert,bart_encoder,swin} --skip-max-autotune --budget-s $left --model-timeout-s 60 > /tmp/zoo-1.log 2>&1; echo "rc $?"; tail -34 /tmp/zoo-1.log | grep -v "^\s*$" | cut -c1-200
tar -czf $OUT/zoo-1.tgz -C /tmp zoo-1 zoo-1.log
el end
