// The GPU-side runner on this (GPU-less) machine reports every case as
// skipped and still writes results.json; the host emulation of the same
// bundle checks the generated kernels' logic against the CPU evaluator.
// RUN: rm -rf %t && mkdir -p %t
// RUN: kiln-translate %S/kernels/softmax.mlir --kernel-test-bundle %t/cases > /dev/null
// RUN: kiln-kernel-test %t/cases --json %t/results.json | FileCheck %s --check-prefix=RUNNER
// RUN: FileCheck %s --check-prefix=JSON < %t/results.json
// RUN: %kiln_src/runtime/kernel-test/emulation/emulate.sh %t/cases | FileCheck %s --check-prefix=EMULATION

// RUNNER: {{(skipped: no CUDA device|device 0: )}}
// RUNNER: {{[0-9]+}} passed, 0 failed, {{[0-9]+}} skipped
// JSON: "cases": [
// JSON: "name": "softmax.block_4097"
// EMULATION: PASS softmax.block_4097
// EMULATION: PASS softmax.block_50257
// EMULATION: PASS softmax.f16_8x4096
// EMULATION: PASS softmax.f16_scaled_padding_mask
// EMULATION: PASS softmax.warp_128
// EMULATION: PASS softmax.warp_f16_scaled
// EMULATION: 6 passed, 0 failed, 0 skipped (host emulation)
