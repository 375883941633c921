// GPU kernel tests of the further reductions, normalisations and losses:
// min/prod as row_reduce anchors (warp and block), the others as serial
// loops per element; unfused functions go through kiln-fuse/tile-kernels.
// RUN: rm -rf %t && kiln-translate %s --kernel-test-bundle %t | FileCheck %s
// CHECK: wrote case norm.reduce_min_warp
// CHECK: wrote case norm.reduce_prod_block
// CHECK: wrote case norm.reduce_min_i32_axis0
// CHECK: wrote case norm.log_sum_exp
// CHECK: wrote case norm.arg_max_last
// CHECK: wrote case norm.log_softmax_axis1
// CHECK: wrote case norm.hardmax
// CHECK: wrote case norm.cumsum_reverse_exclusive
// CHECK: wrote case norm.layer_norm
// CHECK: wrote case norm.instance_norm
// CHECK: wrote case norm.batch_norm
// CHECK: wrote case norm.lrn
// CHECK: wrote case norm.softmax_cross_entropy

func.func @reduce_min_warp(%x: tensor<64x100xf32>) -> tensor<64x1xf32> {
  %axes = kiln.constant dense<[-1]> : tensor<1xi64>
  %r = kiln.reduce_min %x, %axes : tensor<64x100xf32>, tensor<1xi64> -> tensor<64x1xf32>
  return %r : tensor<64x1xf32>
}

func.func @reduce_prod_block(%x: tensor<4x2049xf32> {kiln.test_range = [0.999, 1.001]}) -> tensor<4xf32> {
  %axes = kiln.constant dense<[1]> : tensor<1xi64>
  %r = kiln.reduce_prod %x, %axes {keepdims = false} : tensor<4x2049xf32>, tensor<1xi64> -> tensor<4xf32>
  return %r : tensor<4xf32>
}

func.func @reduce_min_i32_axis0(%x: tensor<33x70xi32>) -> tensor<70xi32> {
  %axes = kiln.constant dense<[0]> : tensor<1xi64>
  %r = kiln.reduce_min %x, %axes {keepdims = false} : tensor<33x70xi32>, tensor<1xi64> -> tensor<70xi32>
  return %r : tensor<70xi32>
}

func.func @log_sum_exp(%x: tensor<4x60x5xf32>) -> tensor<4x1x5xf32> {
  %axes = kiln.constant dense<[1]> : tensor<1xi64>
  %r = kiln.reduce_log_sum_exp %x, %axes : tensor<4x60x5xf32>, tensor<1xi64> -> tensor<4x1x5xf32>
  return %r : tensor<4x1x5xf32>
}

func.func @arg_max_last(%x: tensor<4x6x5xi32>) -> tensor<4x5xi64> {
  %r = kiln.arg_max %x {axis = 1 : i64, keepdims = false, select_last_index = true} : tensor<4x6x5xi32> -> tensor<4x5xi64>
  return %r : tensor<4x5xi64>
}

func.func @log_softmax_axis1(%x: tensor<4x33x5xf32>) -> tensor<4x33x5xf32> {
  %r = kiln.log_softmax %x {axis = 1 : i64} : tensor<4x33x5xf32> -> tensor<4x33x5xf32>
  return %r : tensor<4x33x5xf32>
}

func.func @hardmax(%x: tensor<16x37xf32>) -> tensor<16x37xf32> {
  %r = kiln.hardmax %x : tensor<16x37xf32> -> tensor<16x37xf32>
  return %r : tensor<16x37xf32>
}

func.func @cumsum_reverse_exclusive(%x: tensor<4x129xf32>) -> tensor<4x129xf32> {
  %a = kiln.constant dense<-1> : tensor<i64>
  %r = kiln.cumsum %x, %a {exclusive = true, reverse = true} : tensor<4x129xf32>, tensor<i64> -> tensor<4x129xf32>
  return %r : tensor<4x129xf32>
}

func.func @layer_norm(%x: tensor<8x768xf32>, %g: tensor<768xf32>, %b: tensor<768xf32>) -> tensor<8x768xf32> {
  %r = kiln.layer_norm %x, %g, %b {axis = -1 : i64, epsilon = 1.0e-05 : f32} : tensor<8x768xf32>, tensor<768xf32>, tensor<768xf32> -> tensor<8x768xf32>
  return %r : tensor<8x768xf32>
}

func.func @instance_norm(%x: tensor<2x3x17x5xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<2x3x17x5xf32> {
  %r = kiln.instance_norm %x, %s, %b : tensor<2x3x17x5xf32>, tensor<3xf32>, tensor<3xf32> -> tensor<2x3x17x5xf32>
  return %r : tensor<2x3x17x5xf32>
}

func.func @batch_norm(%x: tensor<2x3x40xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32> {kiln.test_range = [0.5, 2.0]}) -> tensor<2x3x40xf32> {
  %r = kiln.batch_norm %x, %s, %b, %m, %v : tensor<2x3x40xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32> -> tensor<2x3x40xf32>
  return %r : tensor<2x3x40xf32>
}

func.func @lrn(%x: tensor<2x7x6x6xf32>) -> tensor<2x7x6x6xf32> {
  %r = kiln.lrn %x {size = 4 : i64, alpha = 1.0e-03 : f32} : tensor<2x7x6x6xf32> -> tensor<2x7x6x6xf32>
  return %r : tensor<2x7x6x6xf32>
}

func.func @softmax_cross_entropy(%x: tensor<3x5x2xf32>, %w: tensor<5xf32> {kiln.test_range = [0.5, 2.0]}) -> tensor<f32> {
  %t = kiln.constant dense<[[0, 4], [1, 2], [3, 1]]> : tensor<3x2xi64>
  %l = kiln.log_softmax %x {axis = 1 : i64} : tensor<3x5x2xf32> -> tensor<3x5x2xf32>
  %r = kiln.nll_loss %l, %t, %w {ignore_index = 1 : i64} : tensor<3x5x2xf32>, tensor<3x2xi64>, tensor<5xf32> -> tensor<f32>
  return %r : tensor<f32>
}
