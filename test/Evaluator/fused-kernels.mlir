// The CPU evaluator runs fused kiln.kernel IR (it evaluates each kernel's
// body), so fusion is checked against the unfused function on the same data.
// RUN: %{make_tensor} %t/x.npy float32 4x6 0.5,-1,2,3,-0.25,1.5,4,-2,0.75,1,-3,2.5,1.25,-0.5,0.1,2,-1.5,3,0.2,-0.7,1.1,2.2,-3.3,0.4
// RUN: %{make_tensor} %t/b.npy float32 6 0.1,-0.2,0.3,-0.4,0.5,-0.6
// RUN: %{make_tensor} %t/ids.npy int64 3 2,-1,0
// RUN: kiln-interpret %s --inputs %t/x.npy,%t/b.npy,%t/ids.npy --output-dir %t/unfused
// RUN: kiln-opt %s --kiln-fuse-kernels --kiln-tile-kernels -o %t/fused.mlir
// RUN: FileCheck %s --check-prefix=FUSED < %t/fused.mlir
// RUN: FileCheck %s --check-prefix=KINDS < %t/fused.mlir
// RUN: kiln-interpret %t/fused.mlir --simplify=false --inputs %t/x.npy,%t/b.npy,%t/ids.npy --expect %t/unfused --rtol 0 --atol 0 | FileCheck %s
// FUSED-COUNT-7: kiln.kernel
// KINDS: kiln.kernel "tanh_add_add_etc_{{[0-9]+}}" row_reduce
// KINDS: kiln.kernel "sub_log_softmax_{{[0-9]+}}" row_reduce
// FUSED-NOT: kiln.kernel
// CHECK: output 0 'softmax': {{.*}} ok
// CHECK: output 1 'rms': {{.*}} ok
// CHECK: output 2 'moved': {{.*}} ok
// CHECK: output 3 'picked': {{.*}} ok
// CHECK: output 4 'normed': {{.*}} ok
// CHECK: output 5 'log_probs': {{.*}} ok

func.func @main(%x: tensor<4x6xf32> {kiln.name = "x"}, %b: tensor<6xf32> {kiln.name = "b"}, %ids: tensor<3xi64> {kiln.name = "ids"})
    -> (tensor<4x6xf32>, tensor<4x1xf32>, tensor<6x8xf32>, tensor<3x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>)
    attributes {kiln.output_names = ["softmax", "rms", "moved", "picked", "normed", "log_probs"]} {
  %scale = kiln.constant dense<0.5> : tensor<f32>
  %axes = kiln.constant dense<-1> : tensor<1xi64>
  %eps = kiln.constant dense<1.0e-5> : tensor<f32>
  // softmax((x + b) * 0.5): one row_reduce kernel.
  %0 = kiln.add %x, %b : tensor<4x6xf32>, tensor<6xf32> -> tensor<4x6xf32>
  %1 = kiln.mul %0, %scale : tensor<4x6xf32>, tensor<f32> -> tensor<4x6xf32>
  %2 = kiln.softmax %1 : tensor<4x6xf32> -> tensor<4x6xf32>
  // sqrt(mean(x*x) + eps): one row_reduce kernel.
  %3 = kiln.mul %x, %x : tensor<4x6xf32>, tensor<4x6xf32> -> tensor<4x6xf32>
  %4 = kiln.reduce_mean %3, %axes : tensor<4x6xf32>, tensor<1xi64> -> tensor<4x1xf32>
  %5 = kiln.add %4, %eps : tensor<4x1xf32>, tensor<f32> -> tensor<4x1xf32>
  %6 = kiln.sqrt %5 : tensor<4x1xf32> -> tensor<4x1xf32>
  // transpose(exp(x)) then concat with itself through a reshape view.
  %7 = kiln.exp %x : tensor<4x6xf32> -> tensor<4x6xf32>
  %8 = kiln.transpose %7 {perm = array<i64: 1, 0>} : tensor<4x6xf32> -> tensor<6x4xf32>
  %9 = kiln.concat %8, %8 {axis = 1 : i64} : tensor<6x4xf32>, tensor<6x4xf32> -> tensor<6x8xf32>
  // gather rows with a negative index, then tanh.
  %10 = kiln.gather %x, %ids {axis = 0 : i64} : tensor<4x6xf32>, tensor<3xi64> -> tensor<3x6xf32>
  %11 = kiln.tanh %10 : tensor<3x6xf32> -> tensor<3x6xf32>
  // relu(layer_norm(tanh(x) + b + x) * ... ): one row_reduce kernel with the
  // bias and residual adds before the LayerNorm and the relu after it.
  %12 = kiln.tanh %x : tensor<4x6xf32> -> tensor<4x6xf32>
  %13 = kiln.add %12, %b : tensor<4x6xf32>, tensor<6xf32> -> tensor<4x6xf32>
  %14 = kiln.add %13, %x : tensor<4x6xf32>, tensor<4x6xf32> -> tensor<4x6xf32>
  %15 = kiln.layer_norm %14, %b, %b {axis = -1 : i64, epsilon = 1.0e-05 : f32} : tensor<4x6xf32>, tensor<6xf32>, tensor<6xf32> -> tensor<4x6xf32>
  %16 = kiln.relu %15 : tensor<4x6xf32> -> tensor<4x6xf32>
  // log_softmax(x - b) over the last axis: one row_reduce kernel.
  %17 = kiln.sub %x, %b : tensor<4x6xf32>, tensor<6xf32> -> tensor<4x6xf32>
  %18 = kiln.log_softmax %17 {axis = -1 : i64} : tensor<4x6xf32> -> tensor<4x6xf32>
  return %2, %6, %9, %11, %16, %18 : tensor<4x6xf32>, tensor<4x1xf32>, tensor<6x8xf32>, tensor<3x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>
}
