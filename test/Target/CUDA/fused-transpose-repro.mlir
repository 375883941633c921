// Emitter failure found by the model zoo (ViT fp32, ShuffleNet fp16) and the
// random graphs (seed 1253): fusion puts two transposes into one transpose
// kernel, which the emitter refuses ("is a transpose kernel with 2
// kiln.transpose ops; expected one"). Fixed by the kernel-kind contract
// (the transposes compose into one kernel); a regression test now.
// RUN: kiln-opt %s --kiln-fuse-kernels --kiln-tile-kernels | kiln-translate --emit-cuda --no-compile | FileCheck %s
// CHECK: __global__
func.func @transpose_relu_transpose(%arg0: tensor<4x8x16xf32>) -> tensor<16x4x8xf32> {
  %0 = kiln.transpose %arg0 {perm = array<i64: 1, 0, 2>} : tensor<4x8x16xf32> -> tensor<8x4x16xf32>
  %1 = kiln.relu %0 : tensor<8x4x16xf32> -> tensor<8x4x16xf32>
  %2 = kiln.transpose %1 {perm = array<i64: 2, 1, 0>} : tensor<8x4x16xf32> -> tensor<16x4x8xf32>
  return %2 : tensor<16x4x8xf32>
}
