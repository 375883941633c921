#!/usr/bin/env bash
# Call 3 (same warm H200): the ranged sections 7c and 7d alone (call 2 spent
# its 200 s on 7b, ResNet-50 at four batches in two precisions).
tar -xzf gpu-bundle/g.tgz -C gpu-bundle; KILN_GPU_SECTIONS="7c 7d" timeout 330 bash gpu-bundle/G/run.sh gpu-bundle/G $OUT/g-7cd.json > $OUT/g-7cd.log 2>&1; echo "rc $?"; grep -cE " pass " $OUT/g-7cd.log; grep -E "FAIL|passed, " $OUT/g-7cd.log | tail -8 | cut -c1-250
