// Emitter failure found by the random graphs (seeds 423, 1200, 1303, 1663,
// 1833, 1981): fusion puts two reductions/softmaxes over different axes into
// one row_reduce kernel, which the emitter refuses ("is a row_reduce kernel
// with 2 reductions/softmaxes; the template needs exactly one anchor").
// Fixed by the kernel-kind contract (fusion splits the group); a regression
// test now.
// RUN: kiln-opt %s --kiln-fuse-kernels --kiln-tile-kernels | kiln-translate --emit-cuda --no-compile | FileCheck %s
// CHECK: __global__
// CHECK: __global__
func.func @softmax_rows_then_columns(%arg0: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = kiln.softmax %arg0 {axis = 1 : i64} : tensor<4x16xf32> -> tensor<4x16xf32>
  %1 = kiln.softmax %0 {axis = 0 : i64} : tensor<4x16xf32> -> tensor<4x16xf32>
  return %1 : tensor<4x16xf32>
}

func.func @reduce_max_then_softmax(%arg0: tensor<4x16xf32>) -> tensor<4x1xf32> {
  %0 = kiln.constant dense<-1> : tensor<1xi64>
  %1 = kiln.reduce_max %arg0, %0 : tensor<4x16xf32>, tensor<1xi64> -> tensor<4x1xf32>
  %2 = kiln.softmax %1 {axis = 0 : i64} : tensor<4x1xf32> -> tensor<4x1xf32>
  return %2 : tensor<4x1xf32>
}
