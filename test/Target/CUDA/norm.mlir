// Further reductions, normalisations and losses through the kernel pipeline
// (NVRTC compiles every kernel): min/prod and layer_norm anchor row_reduce
// kernels; the others are serial loops per result element.
// RUN: kiln-opt %s --kiln-fuse-kernels --kiln-tile-kernels | kiln-translate --emit-cuda | FileCheck %s

// CHECK-LABEL: kiln.kernel "reduce_min_0"
// CHECK:         float acc = __int_as_float(0x7f800000);
// CHECK:         acc = kiln_min(acc, x{{[0-9]+}});
// CHECK:         acc = kiln_warp_allreduce(acc, kiln_min_op());
func.func @reduce_min_row(%x: tensor<8x100xf32>) -> tensor<8x1xf32> {
  %axes = kiln.constant dense<[-1]> : tensor<1xi64>
  %r = kiln.reduce_min %x, %axes : tensor<8x100xf32>, tensor<1xi64> -> tensor<8x1xf32>
  return %r : tensor<8x1xf32>
}

// CHECK-LABEL: kiln.kernel "reduce_prod_0"
// CHECK:         long long acc = 1LL;
// CHECK:         acc = kiln_imul(acc, x{{[0-9]+}});
// CHECK:         acc = kiln_block_allreduce(acc, kiln_iprod_op(), kiln_partials);
func.func @reduce_prod_i32(%x: tensor<8x5000xi32>) -> tensor<8xi32> {
  %axes = kiln.constant dense<[1]> : tensor<1xi64>
  %r = kiln.reduce_prod %x, %axes {keepdims = false} : tensor<8x5000xi32>, tensor<1xi64> -> tensor<8xi32>
  return %r : tensor<8xi32>
}

// A reduction over a leading axis is a serial loop in a pointwise kernel.
// CHECK-LABEL: kiln.kernel "reduce_min_0"
// CHECK:         kiln_pointwise
// CHECK:         for (kiln_index_t r{{[0-9]+}} = 0; r{{[0-9]+}} < 8; ++r{{[0-9]+}}) {
// CHECK:           acc{{[0-9]+}} = kiln_min(acc{{[0-9]+}}, x{{[0-9]+}});
func.func @reduce_min_axis0(%x: tensor<8x100xf32>) -> tensor<100xf32> {
  %axes = kiln.constant dense<[0]> : tensor<1xi64>
  %r = kiln.reduce_min %x, %axes {keepdims = false} : tensor<8x100xf32>, tensor<1xi64> -> tensor<100xf32>
  return %r : tensor<100xf32>
}

// CHECK-LABEL: kiln.kernel "reduce_log_sum_exp_0"
// CHECK:         max{{[0-9]+}} = kiln_max(max{{[0-9]+}}, x{{[0-9]+}});
// CHECK:         sum{{[0-9]+}} += kiln_exp(x{{[0-9]+}} - max{{[0-9]+}});
// CHECK:         max{{[0-9]+}} + kiln_log(sum{{[0-9]+}})
func.func @lse(%x: tensor<4x6x5xf32>) -> tensor<4x1x5xf32> {
  %axes = kiln.constant dense<[1]> : tensor<1xi64>
  %r = kiln.reduce_log_sum_exp %x, %axes : tensor<4x6x5xf32>, tensor<1xi64> -> tensor<4x1x5xf32>
  return %r : tensor<4x1x5xf32>
}

// select_last_index also takes equal values; NaN ranks above numbers.
// CHECK-LABEL: kiln.kernel "arg_max_0"
// CHECK:         long long arg{{[0-9]+}} = 0;
// CHECK:         for (kiln_index_t k{{[0-9]+}} = 1; k{{[0-9]+}} < 6; ++k{{[0-9]+}}) {
// CHECK:           if ((best{{[0-9]+}} == best{{[0-9]+}} && ([[V:x[0-9]+]] != [[V]] || [[V]] > best{{[0-9]+}})) || ([[V]] == best{{[0-9]+}} ||
func.func @argmax(%x: tensor<4x6x5xf32>) -> tensor<4x5xi64> {
  %r = kiln.arg_max %x {axis = 1 : i64, keepdims = false, select_last_index = true} : tensor<4x6x5xf32> -> tensor<4x5xi64>
  return %r : tensor<4x5xi64>
}

// CHECK-LABEL: kiln.kernel "cumsum_0"
// CHECK:         for (kiln_index_t k{{[0-9]+}} = {{.*}} + 1; k{{[0-9]+}} < 6; ++k{{[0-9]+}}) {
func.func @cumsum(%x: tensor<4x6xf32>) -> tensor<4x6xf32> {
  %a = kiln.constant dense<1> : tensor<i32>
  %r = kiln.cumsum %x, %a {exclusive = true, reverse = true} : tensor<4x6xf32>, tensor<i32> -> tensor<4x6xf32>
  return %r : tensor<4x6xf32>
}

// A row_reduce anchor (test/Target/CUDA/layer_norm.mlir has the details):
// two passes (mean, then squared deviations) in float over registers.
// CHECK-LABEL: kiln.kernel "layer_norm_0"
// CHECK:         const float mean = kiln_warp_allreduce(sum, kiln_sum_op()) / 768.0f;
// CHECK:         const float inv = 1.0f / kiln_sqrt(kiln_warp_allreduce(squares, kiln_sum_op()) / 768.0f + {{.*}});
func.func @layer_norm(%x: tensor<8x768xf32>, %g: tensor<768xf32>, %b: tensor<768xf32>) -> tensor<8x768xf32> {
  %r = kiln.layer_norm %x, %g, %b {axis = -1 : i64, epsilon = 1.0e-05 : f32} : tensor<8x768xf32>, tensor<768xf32>, tensor<768xf32> -> tensor<8x768xf32>
  return %r : tensor<8x768xf32>
}

// CHECK-LABEL: kiln.kernel "batch_norm_0"
// CHECK:         kiln_sqrt
func.func @batch_norm(%x: tensor<2x3x4xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<2x3x4xf32> {
  %r = kiln.batch_norm %x, %s, %b, %m, %v : tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32> -> tensor<2x3x4xf32>
  return %r : tensor<2x3x4xf32>
}

// Ignored and out-of-range targets add neither loss nor weight.
// CHECK-LABEL: kiln.kernel "nll_loss_0"
// CHECK:         if ([[T:x[0-9]+]] >= 0 && [[T]] < 5LL && [[T]] != 1LL) {
// CHECK:         loss_sum{{[0-9]+}} / weight_sum{{[0-9]+}}
func.func @nll_mean(%x: tensor<3x5x2xf32>, %t: tensor<3x2xi64>, %w: tensor<5xf32>) -> tensor<f32> {
  %r = kiln.nll_loss %x, %t, %w {ignore_index = 1 : i64} : tensor<3x5x2xf32>, tensor<3x2xi64>, tensor<5xf32> -> tensor<f32>
  return %r : tensor<f32>
}

// CHECK: // nvrtc: 9 kernels for sm_90
