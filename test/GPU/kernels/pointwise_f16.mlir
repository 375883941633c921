// GPU kernel tests: f16 pointwise chains (computed in float, stored as f16),
// vectorised (8 x 2 bytes = 16-byte accesses, whole and partial steps, tails)
// and scalar with tails, hand-tiled and through the kernel pipeline.
// RUN: rm -rf %t && kiln-translate %s --kernel-test-bundle %t | FileCheck %s
// CHECK: wrote case pointwise_f16.vectorised (1 kernels, 1 launches)
// CHECK: wrote case pointwise_f16.broadcast_tail (1 kernels, 1 launches)
// CHECK: wrote case pointwise_f16.vector_steps_tail (1 kernels, 1 launches)
// CHECK: wrote case pointwise_f16.chain_tail_tiled (1 kernels, 1 launches)
// CHECK: wrote case pointwise_f16.row_broadcast_tiled (1 kernels, 1 launches)
// CHECK: wrote case pointwise_f16.bias_gelu_rows_tiled (1 kernels, 1 launches)
// CHECK: wrote case pointwise_f16.row_broadcast_3d_tiled (1 kernels, 1 launches)
// CHECK: wrote case pointwise_f16.sigmoid_wide_tiled (1 kernels, 1 launches)
// CHECK: wrote case pointwise_f16.row_statistic_divide_tiled (1 kernels, 1 launches)
// CHECK: wrote case pointwise_f16.row_statistic_two_dims_tiled (1 kernels, 1 launches)
// CHECK: wrote case pointwise_f16.row_statistic_rows_of_12_tiled (1 kernels, 1 launches)

func.func @vectorised(%a: tensor<8x4096xf16>, %b: tensor<8x4096xf16>) -> tensor<8x4096xf16> {
  %e = kiln.empty : tensor<8x4096xf16>
  %r = kiln.kernel "gelu_like" pointwise ins(%a, %b : tensor<8x4096xf16>, tensor<8x4096xf16>) outs(%e : tensor<8x4096xf16>) attributes {block_size = 256 : i64, grid_size = 16 : i64, elements_per_thread = 1 : i64, vector_width = 8 : i64} {
  ^bb0(%x: tensor<8x4096xf16>, %y: tensor<8x4096xf16>, %o: tensor<8x4096xf16>):
    %k = kiln.constant dense<0.70710678> : tensor<f16>
    %s = kiln.mul %x, %k : tensor<8x4096xf16>, tensor<f16> -> tensor<8x4096xf16>
    %f = kiln.erf %s : tensor<8x4096xf16> -> tensor<8x4096xf16>
    %g = kiln.mul %f, %y : tensor<8x4096xf16>, tensor<8x4096xf16> -> tensor<8x4096xf16>
    kiln.yield %g : tensor<8x4096xf16>
  } -> tensor<8x4096xf16>
  return %r : tensor<8x4096xf16>
}

func.func @broadcast_tail(%a: tensor<3x4097xf16>, %b: tensor<1x4097xf16>) -> tensor<3x4097xf16> {
  %e = kiln.empty : tensor<3x4097xf16>
  %r = kiln.kernel "sub_max" pointwise ins(%a, %b : tensor<3x4097xf16>, tensor<1x4097xf16>) outs(%e : tensor<3x4097xf16>) attributes {block_size = 256 : i64, grid_size = 13 : i64, elements_per_thread = 4 : i64} {
  ^bb0(%x: tensor<3x4097xf16>, %y: tensor<1x4097xf16>, %o: tensor<3x4097xf16>):
    %s = kiln.sub %x, %y : tensor<3x4097xf16>, tensor<1x4097xf16> -> tensor<3x4097xf16>
    %l = kiln.less %s, %y : tensor<3x4097xf16>, tensor<1x4097xf16> -> tensor<3x4097xi1>
    %w = kiln.where %l, %s, %x : tensor<3x4097xi1>, tensor<3x4097xf16>, tensor<3x4097xf16> -> tensor<3x4097xf16>
    kiln.yield %w : tensor<3x4097xf16>
  } -> tensor<3x4097xf16>
  return %r : tensor<3x4097xf16>
}

// Vectors of 8, 4 per thread, over 2 blocks of 32 threads: a whole step, a
// partial step and the 3 elements after the last vector (3003 = 375 * 8 + 3);
// a scalar input read by every lane.
func.func @vector_steps_tail(%a: tensor<3x1001xf16>, %s: tensor<f16>) -> tensor<3x1001xf16> {
  %e = kiln.empty : tensor<3x1001xf16>
  %r = kiln.kernel "sigmoid_scale" pointwise ins(%a, %s : tensor<3x1001xf16>, tensor<f16>) outs(%e : tensor<3x1001xf16>) attributes {block_size = 32 : i64, grid_size = 2 : i64, elements_per_thread = 4 : i64, vector_width = 8 : i64} {
  ^bb0(%x: tensor<3x1001xf16>, %y: tensor<f16>, %o: tensor<3x1001xf16>):
    %c = kiln.constant dense<0.25> : tensor<f16>
    %m = kiln.mul %x, %y : tensor<3x1001xf16>, tensor<f16> -> tensor<3x1001xf16>
    %p = kiln.add %m, %c : tensor<3x1001xf16>, tensor<f16> -> tensor<3x1001xf16>
    %g = kiln.sigmoid %p : tensor<3x1001xf16> -> tensor<3x1001xf16>
    %z = kiln.mul %g, %x : tensor<3x1001xf16>, tensor<3x1001xf16> -> tensor<3x1001xf16>
    kiln.yield %z : tensor<3x1001xf16>
  } -> tensor<3x1001xf16>
  return %r : tensor<3x1001xf16>
}

// Through the kernel pipeline: the benchmark's chain with a scalar input is
// vectorised with a tail (7007 = 875 * 8 + 7); a row broadcast keeps the
// scalar loop.
func.func @chain_tail_tiled(%x: tensor<7x1001xf16>, %s: tensor<f16>) -> tensor<7x1001xf16> {
  %c = kiln.constant dense<0.25> : tensor<f16>
  %m = kiln.mul %x, %s : tensor<7x1001xf16>, tensor<f16> -> tensor<7x1001xf16>
  %p = kiln.add %m, %c : tensor<7x1001xf16>, tensor<f16> -> tensor<7x1001xf16>
  %g = kiln.sigmoid %p : tensor<7x1001xf16> -> tensor<7x1001xf16>
  %z = kiln.mul %g, %x : tensor<7x1001xf16>, tensor<7x1001xf16> -> tensor<7x1001xf16>
  return %z : tensor<7x1001xf16>
}

func.func @row_broadcast_tiled(%x: tensor<8x1000xf16>, %b: tensor<1000xf16>) -> tensor<8x1000xf16> {
  %s = kiln.sub %x, %b : tensor<8x1000xf16>, tensor<1000xf16> -> tensor<8x1000xf16>
  %t = kiln.tanh %s : tensor<8x1000xf16> -> tensor<8x1000xf16>
  return %t : tensor<8x1000xf16>
}

// A bias row read by vectors (kiln-tile-kernels vectorises row broadcasts):
// BERT's bias + erf GELU after a GEMM, 37 rows of 96.
func.func @bias_gelu_rows_tiled(%x: tensor<37x96xf16>, %b: tensor<96xf16>) -> tensor<37x96xf16> {
  %s = kiln.add %x, %b : tensor<37x96xf16>, tensor<96xf16> -> tensor<37x96xf16>
  %g = kiln.gelu %s : tensor<37x96xf16> -> tensor<37x96xf16>
  return %g : tensor<37x96xf16>
}

// A [1, 1, 20] row over [3, 7, 20]: vectors of 4 (20 is not a multiple of 8).
func.func @row_broadcast_3d_tiled(%x: tensor<3x7x20xf16>, %b: tensor<1x1x20xf16>) -> tensor<3x7x20xf16> {
  %m = kiln.mul %x, %b : tensor<3x7x20xf16>, tensor<1x1x20xf16> -> tensor<3x7x20xf16>
  %n = kiln.sub %m, %x : tensor<3x7x20xf16>, tensor<3x7x20xf16> -> tensor<3x7x20xf16>
  return %n : tensor<3x7x20xf16>
}

// The f16 sigmoid (kiln_sigmoid_f16: __expf, __fdividef) over the range
// where it is neither 0 nor 1 and past it (x in [-24, 24]): within one f16
// ulp of the CPU evaluator's (rtol 1e-3: an ulp is at most 9.8e-4 of the
// value; atol 1e-7 for the subnormal results below 6.1e-5, whose ulp is
// 6e-8). Alone, not in a chain: the evaluator rounds every op's result to
// f16, the kernel only the stored one, and that difference, not the
// approximation's, would dominate the subnormal products of a SiLU.
func.func @sigmoid_wide_tiled(%x: tensor<8x4096xf16> {kiln.test_range = [-24.0, 24.0]}) -> tensor<8x4096xf16>
    attributes {kiln.test_tolerance = [1.0e-3, 1.0e-7]} {
  %g = kiln.sigmoid %x : tensor<8x4096xf16> -> tensor<8x4096xf16>
  return %g : tensor<8x4096xf16>
}

// A row statistic broadcast along the innermost dims (Swin-V2's
// F.normalize: x / max(sqrt(sum(x^2)), eps) with the sum an f32 [.., 1]):
// vectors of 8 f16 (the f32 statistic is read by element, one per vector),
// its sqrt and clip computed once per vector and shared by the lanes.
func.func @row_statistic_divide_tiled(%x: tensor<4x3x16x32xf16>, %n: tensor<4x3x16x1xf32> {kiln.test_range = [0.25, 4.0]}) -> tensor<4x3x16x32xf16> {
  %eps = kiln.constant dense<1.0e-12> : tensor<f32>
  %inf = kiln.constant dense<0x7F800000> : tensor<f32>
  %shape = kiln.constant dense<[4, 3, 16, 32]> : tensor<4xi64>
  %r = kiln.sqrt %n : tensor<4x3x16x1xf32> -> tensor<4x3x16x1xf32>
  %c = kiln.clip %r, %eps, %inf : tensor<4x3x16x1xf32>, tensor<f32>, tensor<f32> -> tensor<4x3x16x1xf32>
  %e = kiln.expand %c, %shape : tensor<4x3x16x1xf32>, tensor<4xi64> -> tensor<4x3x16x32xf32>
  %w = kiln.cast %x {to = f32} : tensor<4x3x16x32xf16> -> tensor<4x3x16x32xf32>
  %d = kiln.div %w, %e : tensor<4x3x16x32xf32>, tensor<4x3x16x32xf32> -> tensor<4x3x16x32xf32>
  %y = kiln.cast %d {to = f16} : tensor<4x3x16x32xf32> -> tensor<4x3x16x32xf16>
  return %y : tensor<4x3x16x32xf16>
}

// A statistic per [16, 32] plane (two broadcast dims, a run of 512) scaling
// x directly (a broadcasting mul, no expand).
func.func @row_statistic_two_dims_tiled(%x: tensor<4x3x16x32xf16>, %s: tensor<4x3x1x1xf16>) -> tensor<4x3x16x32xf16> {
  %m = kiln.mul %x, %s : tensor<4x3x16x32xf16>, tensor<4x3x1x1xf16> -> tensor<4x3x16x32xf16>
  %t = kiln.tanh %m : tensor<4x3x16x32xf16> -> tensor<4x3x16x32xf16>
  return %t : tensor<4x3x16x32xf16>
}

// Rows of 12: vectors of 4 (8 would straddle two rows' statistics).
func.func @row_statistic_rows_of_12_tiled(%x: tensor<6x12xf16>, %s: tensor<6x1xf16>) -> tensor<6x12xf16> {
  %m = kiln.sub %x, %s : tensor<6x12xf16>, tensor<6x1xf16> -> tensor<6x12xf16>
  %e = kiln.exp %m : tensor<6x12xf16> -> tensor<6x12xf16>
  return %e : tensor<6x12xf16>
}
