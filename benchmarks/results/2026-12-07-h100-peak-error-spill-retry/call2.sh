#!/usr/bin/env bash
# Call 2 (same warm H100): the runtime GPU tests again (the first run's
# concurrency test failed on algorithm choice), llama_gqa's spill A/B, more
# zoo models with the peak bound.
set -u
cd "$(dirname "$0")/.."
start=$(date +%s)
el() { echo "[$(( $(date +%s) - start )) s] $*"; }
PY=/opt/torch/.venv/bin/python
export PYTHONUNBUFFERED=1
[ -d gpu-bundle/G ] || { echo "bundle gone"; exit 3; }
el gpu-tests
export KILN_TEST_MODELS_DIR=gpu-bundle/G/models
timeout 100 gpu-bundle/G/unittests/KilnRuntimeGPUTests --gtest_brief=1 > $OUT/gputests.log 2>&1; echo "rc $?"; grep -E "PASSED|FAILED|SKIPPED|Failure|first:|chose|against" $OUT/gputests.log | head -12 | cut -c1-300
el zoo-ab
$PY gpu-bundle/Z2/zoo.py --bundle gpu-bundle/Z2 --runs 100 --out /tmp/zoo-ab2 --models llama_gqa --skip-max-autotune --budget-s 45 --model-timeout-s 40 > /tmp/zoo-ab2.log 2>&1; echo "rc $?"; tail -2 /tmp/zoo-ab2.log | cut -c1-220
tar -czf $OUT/zoo-ab2.tgz -C /tmp zoo-ab2 zoo-ab2.log
el zoo
left=$(( 250 - ($(date +%s) - start) ))
$PY gpu-bundle/Z1/zoo.py --bundle gpu-bundle/Z1 --runs 30 --out /tmp/zoo-3 --models mnasnet,shufflenet_v2,lraspp,gpt2,bert,vit,llama_past,mobilenet_v3_small,resnet18,squeezenet --skip-max-autotune --budget-s $left --model-timeout-s 40 > /tmp/zoo-3.log 2>&1; echo "rc $?"; grep -E ": (ok|MISMATCH|ERROR)" /tmp/zoo-3.log | cut -c1-200
tar -czf $OUT/zoo-3.tgz -C /tmp zoo-3 zoo-3.log
el end
