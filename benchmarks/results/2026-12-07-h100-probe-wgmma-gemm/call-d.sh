#!/usr/bin/env bash
# Call D (2026-12-07, session 24): the wgmma/TMA GEMM probe
# (kiln-probe-wgmma-gemm: every tile config checked against cuBLASLt, then
# timed beside it), then the GPU bundle's section 1 (runtime unit tests:
# AlgorithmChoiceGpuTest on the current runtime, the concurrency test),
# which the last session's call did not reach.
set -u
cd "$(dirname "$0")/.."
start=$(date +%s)
el() { echo "[$(( $(date +%s) - start )) s] $*"; [ -d /tmp/dout ] && tar -czf $OUT/d-results.tgz -C /tmp dout 2>/dev/null; }
export PYTHONUNBUFFERED=1
tar -xzf gpu-bundle/d.tgz -C gpu-bundle
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
R=/tmp/dout; mkdir -p $R
el probe
timeout 240 gpu-bundle/G/bin/kiln-probe-wgmma-gemm --json $R/probe-wgmma.json > $R/probe-wgmma.log 2>&1; echo "probe rc $?"; grep -E "ratio|WRONG|hang|rror" $R/probe-wgmma.log | cut -c1-300
el unit
KILN_GPU_SECTIONS="1" timeout 240 bash gpu-bundle/G/run.sh gpu-bundle/G $R/g-unit.json > $R/g-unit.log 2>&1
echo "unit rc $?"; grep -E "FAIL|passed, " $R/g-unit.log | tail -6 | cut -c1-250
el end
