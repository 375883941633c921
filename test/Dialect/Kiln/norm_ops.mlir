// RUN: kiln-opt %s --split-input-file | kiln-opt --split-input-file | FileCheck %s
// Round trip of the further reductions, arg-reductions, normalisations and
// losses (KilnNormOps.td), with the inferred result types they verify against.

// CHECK-LABEL: func.func @reductions
// CHECK: kiln.reduce_min %{{.+}}, %{{.+}} : tensor<2x?xf32>, tensor<1xi64> -> tensor<2x1xf32>
// CHECK: kiln.reduce_prod %{{.+}} {keepdims = false} : tensor<2x?xi32> -> tensor<i32>
// CHECK: kiln.reduce_log_sum_exp %{{.+}} {noop_with_empty_axes = true} : tensor<2x?xf32> -> tensor<2x?xf32>
func.func @reductions(%x: tensor<2x?xf32>, %i: tensor<2x?xi32>) -> (tensor<2x1xf32>, tensor<i32>, tensor<2x?xf32>) {
  %axes = kiln.constant dense<[1]> : tensor<1xi64>
  %0 = kiln.reduce_min %x, %axes : tensor<2x?xf32>, tensor<1xi64> -> tensor<2x1xf32>
  %1 = kiln.reduce_prod %i {keepdims = false} : tensor<2x?xi32> -> tensor<i32>
  %2 = kiln.reduce_log_sum_exp %x {noop_with_empty_axes = true} : tensor<2x?xf32> -> tensor<2x?xf32>
  return %0, %1, %2 : tensor<2x1xf32>, tensor<i32>, tensor<2x?xf32>
}

// -----

// CHECK-LABEL: func.func @along_axis
// CHECK: kiln.arg_max %{{.+}} {axis = 1 : i64, keepdims = false, select_last_index = true} : tensor<2x5x3xf32> -> tensor<2x3xi64>
// CHECK: kiln.arg_min %{{.+}} : tensor<2x5x3xf32> -> tensor<1x5x3xi64>
// CHECK: kiln.log_softmax %{{.+}} {axis = 1 : i64} : tensor<2x5x3xf32> -> tensor<2x5x3xf32>
// CHECK: kiln.hardmax %{{.+}} : tensor<2x5x3xf32> -> tensor<2x5x3xf32>
// CHECK: kiln.cumsum %{{.+}}, %{{.+}} {exclusive = true, reverse = true} : tensor<2x5x3xf32>, tensor<i32> -> tensor<2x5x3xf32>
func.func @along_axis(%x: tensor<2x5x3xf32>, %a: tensor<i32>) -> (tensor<2x3xi64>, tensor<1x5x3xi64>, tensor<2x5x3xf32>, tensor<2x5x3xf32>, tensor<2x5x3xf32>) {
  %0 = kiln.arg_max %x {axis = 1 : i64, keepdims = false, select_last_index = true} : tensor<2x5x3xf32> -> tensor<2x3xi64>
  %1 = kiln.arg_min %x : tensor<2x5x3xf32> -> tensor<1x5x3xi64>
  %2 = kiln.log_softmax %x {axis = 1 : i64} : tensor<2x5x3xf32> -> tensor<2x5x3xf32>
  %3 = kiln.hardmax %x : tensor<2x5x3xf32> -> tensor<2x5x3xf32>
  %4 = kiln.cumsum %x, %a {exclusive = true, reverse = true} : tensor<2x5x3xf32>, tensor<i32> -> tensor<2x5x3xf32>
  return %0, %1, %2, %3, %4 : tensor<2x3xi64>, tensor<1x5x3xi64>, tensor<2x5x3xf32>, tensor<2x5x3xf32>, tensor<2x5x3xf32>
}

// -----

// CHECK-LABEL: func.func @norms
// CHECK: kiln.layer_norm %{{.+}}, %{{.+}}, %{{.+}} {epsilon = 1.000000e-03 : f32} : tensor<?x8x16xf32>, tensor<16xf32>, tensor<16xf32> -> tensor<?x8x16xf32>
// CHECK: kiln.layer_norm %{{.+}}, %{{.+}} {axis = 1 : i64} : tensor<?x8x16xf32>, tensor<8x16xf32> -> tensor<?x8x16xf32>
// CHECK: kiln.instance_norm %{{.+}}, %{{.+}}, %{{.+}} : tensor<?x8x16xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<?x8x16xf32>
// CHECK: kiln.batch_norm %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}} : tensor<?x8x16xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<?x8x16xf32>
// CHECK: kiln.lrn %{{.+}} {size = 3 : i64} : tensor<?x8x16xf32> -> tensor<?x8x16xf32>
func.func @norms(%x: tensor<?x8x16xf32>, %g: tensor<16xf32>, %g2: tensor<8x16xf32>, %c: tensor<8xf32>) -> (tensor<?x8x16xf32>, tensor<?x8x16xf32>, tensor<?x8x16xf32>, tensor<?x8x16xf32>, tensor<?x8x16xf32>) {
  %0 = kiln.layer_norm %x, %g, %g {epsilon = 1.0e-03 : f32} : tensor<?x8x16xf32>, tensor<16xf32>, tensor<16xf32> -> tensor<?x8x16xf32>
  %1 = kiln.layer_norm %x, %g2 {axis = 1 : i64} : tensor<?x8x16xf32>, tensor<8x16xf32> -> tensor<?x8x16xf32>
  %2 = kiln.instance_norm %x, %c, %c : tensor<?x8x16xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<?x8x16xf32>
  %3 = kiln.batch_norm %x, %c, %c, %c, %c : tensor<?x8x16xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<?x8x16xf32>
  %4 = kiln.lrn %x {size = 3 : i64} : tensor<?x8x16xf32> -> tensor<?x8x16xf32>
  return %0, %1, %2, %3, %4 : tensor<?x8x16xf32>, tensor<?x8x16xf32>, tensor<?x8x16xf32>, tensor<?x8x16xf32>, tensor<?x8x16xf32>
}

// -----

// CHECK-LABEL: func.func @losses
// CHECK: kiln.nll_loss %{{.+}}, %{{.+}}, %{{.+}} {ignore_index = -1 : i64} : tensor<?x5x2xf32>, tensor<?x2xi64>, tensor<5xf32> -> tensor<f32>
// CHECK: kiln.nll_loss %{{.+}}, %{{.+}} {reduction = "none"} : tensor<?x5x2xf32>, tensor<?x2xi64> -> tensor<?x2xf32>
func.func @losses(%x: tensor<?x5x2xf32>, %t: tensor<?x2xi64>, %w: tensor<5xf32>) -> (tensor<f32>, tensor<?x2xf32>) {
  %0 = kiln.nll_loss %x, %t, %w {ignore_index = -1 : i64} : tensor<?x5x2xf32>, tensor<?x2xi64>, tensor<5xf32> -> tensor<f32>
  %1 = kiln.nll_loss %x, %t {reduction = "none"} : tensor<?x5x2xf32>, tensor<?x2xi64> -> tensor<?x2xf32>
  return %0, %1 : tensor<f32>, tensor<?x2xf32>
}
