#!/usr/bin/env bash
# Call C (prepared 2026-12-07 late; no device was lent that session): what the previous session left unrun on a GPU:
# the GPU bundle's section 1 (runtime unit tests: AlgorithmChoiceGpuTest and
# the concurrency test) and section 6 (the matmul+GELU probe); the choice
# test built against e7eab17's runtime (should fail there); the softmax_rows
# kernel cases (f32_pinned_width_8); DeBERTa's row-kernel grid A/B (grid
# capped at 264, 528, 1056 blocks against the default 1536: one wave);
# branch col-concat-vectors: column_reduce kernel cases (KC) and DenseNet-121
# with it (variant `concat`) against main (ZN).
set -u
cd "$(dirname "$0")/.."
start=$(date +%s)
el() { echo "[$(( $(date +%s) - start )) s] $*"; [ -d /tmp/cout ] && tar -czf $OUT/c-results.tgz -C /tmp cout 2>/dev/null; }
PY=/opt/torch/.venv/bin/python
export PYTHONUNBUFFERED=1
tar -xzf gpu-bundle/c.tgz -C gpu-bundle
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
R=/tmp/cout; mkdir -p $R
el probe
timeout 60 gpu-bundle/G/bin/kiln-probe-matmul-gelu --json $R/probe.json > $R/probe.log 2>&1; echo "probe rc $?"; cat $R/probe.log | cut -c1-400
el column-reduce-cases
timeout 60 bash gpu-bundle/KC/run.sh gpu-bundle/KC $R/kc-results.json > $R/kc.log 2>&1; echo "kc rc $?"; grep -E "FAIL|passed, |concat" $R/kc.log | tail -6 | cut -c1-200
el old-choice-test
timeout 60 gpu-bundle/OLD/KilnRuntimeGPUTests --gtest_filter='AlgorithmChoiceGpuTest*' > $R/old-choice.log 2>&1; echo "old choice rc $?"; grep -E "^\[  (FAILED|PASSED|  OK) |Failure" $R/old-choice.log | head -8
el kernels
timeout 60 bash gpu-bundle/KS/run.sh gpu-bundle/KS $R/ks-results.json > $R/ks.log 2>&1; echo "ks rc $?"; grep -E "FAIL|passed, |pinned" $R/ks.log | tail -6 | cut -c1-200
el densenet-concat
$PY gpu-bundle/ZN/zoo.py --bundle gpu-bundle/ZN --runs 50 --out $R/zoo-dn --models densenet121 --skip-max-autotune --budget-s 100 --model-timeout-s 95 > $R/zoo-dn.log 2>&1; echo "rc $?"; tail -6 $R/zoo-dn.log | cut -c1-300
tar -czf $OUT/c-results.tgz -C /tmp cout
el deberta-grid
$PY gpu-bundle/ZD/zoo.py --bundle gpu-bundle/ZD --runs 50 --out $R/zoo-deb --models deberta_v2 --skip-max-autotune --budget-s 120 --model-timeout-s 115 > $R/zoo-deb.log 2>&1; echo "rc $?"; tail -6 $R/zoo-deb.log | cut -c1-300
el unit
KILN_GPU_SECTIONS="1 6" timeout 200 bash gpu-bundle/G/run.sh gpu-bundle/G $R/g-unit.json > $R/g-unit.log 2>&1
echo "unit rc $?"; grep -E "FAIL|passed, " $R/g-unit.log | tail -6 | cut -c1-250
el end
