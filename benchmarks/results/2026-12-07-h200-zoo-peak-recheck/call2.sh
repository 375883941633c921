#!/usr/bin/env bash
# Run as: RANGED_S=200 UNIT_S=140 bash gpu-bundle/call-g.sh
# Call G (2026-12-07 night): the end-to-end bundle's ranged models (sections
# 7b-7d, unrun for several sessions) and its runtime unit tests (section 1,
# which holds the concurrency test that failed once last session; run twice
# to catch its algorithm logs: a failing binary's whole log is kept).
set -u
cd "$(dirname "$0")/.."
start=$(date +%s)
el() { echo "[$(( $(date +%s) - start )) s] $*"; }
tar -xzf gpu-bundle/g.tgz -C gpu-bundle
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
R=/tmp/gout; mkdir -p $R
el ranged
KILN_GPU_SECTIONS="7b 7c 7d" timeout ${RANGED_S:-240} bash gpu-bundle/G/run.sh gpu-bundle/G $R/g-ranged.json > $R/g-ranged.log 2>&1
echo "ranged rc $?"; grep -E "FAIL|passed, " $R/g-ranged.log | tail -8 | cut -c1-250
for i in ${UNIT_RUNS:-1 2}; do
  el "unit $i"
  KILN_GPU_SECTIONS="1" timeout ${UNIT_S:-150} bash gpu-bundle/G/run.sh gpu-bundle/G $R/g-unit$i.json > $R/g-unit$i.log 2>&1
  echo "unit $i rc $?"; grep -E "FAIL|passed, " $R/g-unit$i.log | tail -6 | cut -c1-250
done
tar -czf $OUT/g-results.tgz -C /tmp gout
el end
