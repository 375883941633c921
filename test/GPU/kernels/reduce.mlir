// GPU kernel tests: row reductions (sum, mean, max) with prologues and
// epilogues, warp and block strategies, f32/bf16/i32.
// RUN: rm -rf %t && kiln-translate %s --kernel-test-bundle %t | FileCheck %s
// CHECK: wrote case reduce.rms_scale_warp (1 kernels, 1 launches)
// CHECK: wrote case reduce.weighted_sum_block (1 kernels, 1 launches)
// CHECK: wrote case reduce.max_two_axes_warp (1 kernels, 1 launches)
// CHECK: wrote case reduce.mean_bf16_block (1 kernels, 1 launches)
// CHECK: wrote case reduce.sum_i32_warp (1 kernels, 1 launches)
// CHECK: wrote case reduce.row_sum_then_leading_max (2 kernels, 2 launches)
// CHECK: wrote case reduce.pow_two_mean_f16_warp (1 kernels, 1 launches)
// CHECK: wrote case reduce.sum_rows_of_7 (1 kernels, 1 launches)
// CHECK: wrote case reduce.max_rows_of_3 (1 kernels, 1 launches)
// CHECK: wrote case reduce.l2_rows_of_32_f16 (1 kernels, 1 launches)
// CHECK: wrote case reduce.mean_f16_block_vectors (1 kernels, 1 launches)
// CHECK: wrote case reduce.l2_normalise_f16_tiled (1 kernels, 1 launches)
// CHECK: wrote case reduce.rms_norm_f16_block_tiled (1 kernels, 1 launches)
// CHECK: wrote case reduce.max_subtract_rows_of_33_tiled (1 kernels, 1 launches)

// RMSNorm's scale: 1 / sqrt(mean(x^2) + eps), one warp per row of 768.
func.func @rms_scale_warp(%a: tensor<32x768xf32>) -> tensor<32x1xf32> {
  %e = kiln.empty : tensor<32x1xf32>
  %r = kiln.kernel "rms" row_reduce ins(%a : tensor<32x768xf32>) outs(%e : tensor<32x1xf32>) attributes {block_size = 256 : i64, grid_size = 4 : i64, rows_per_block = 8 : i64, variant = #kiln.variant<warp_rows>} {
  ^bb0(%x: tensor<32x768xf32>, %o: tensor<32x1xf32>):
    %axes = kiln.constant dense<[-1]> : tensor<1xi64>
    %eps = kiln.constant dense<1.0e-5> : tensor<f32>
    %sq = kiln.mul %x, %x : tensor<32x768xf32>, tensor<32x768xf32> -> tensor<32x768xf32>
    %m = kiln.reduce_mean %sq, %axes {keepdims = true} : tensor<32x768xf32>, tensor<1xi64> -> tensor<32x1xf32>
    %p = kiln.add %m, %eps : tensor<32x1xf32>, tensor<f32> -> tensor<32x1xf32>
    %s = kiln.sqrt %p : tensor<32x1xf32> -> tensor<32x1xf32>
    %q = kiln.reciprocal %s : tensor<32x1xf32> -> tensor<32x1xf32>
    kiln.yield %q : tensor<32x1xf32>
  } -> tensor<32x1xf32>
  return %r : tensor<32x1xf32>
}

// sum(x * w) over rows of 4097 with a broadcast weight, keepdims = false.
func.func @weighted_sum_block(%a: tensor<16x4097xf32> {kiln.test_range = [-1.0, 2.0]}, %w: tensor<4097xf32> {kiln.test_range = [-1.0, 2.0]}) -> tensor<16xf32> {
  %e = kiln.empty : tensor<16xf32>
  %r = kiln.kernel "weighted_sum" row_reduce ins(%a, %w : tensor<16x4097xf32>, tensor<4097xf32>) outs(%e : tensor<16xf32>) attributes {block_size = 256 : i64, grid_size = 16 : i64, rows_per_block = 1 : i64, variant = #kiln.variant<block_rows>} {
  ^bb0(%x: tensor<16x4097xf32>, %y: tensor<4097xf32>, %o: tensor<16xf32>):
    %axes = kiln.constant dense<[1]> : tensor<1xi64>
    %half = kiln.constant dense<0.5> : tensor<f32>
    %p = kiln.mul %x, %y : tensor<16x4097xf32>, tensor<4097xf32> -> tensor<16x4097xf32>
    %s = kiln.reduce_sum %p, %axes {keepdims = false} : tensor<16x4097xf32>, tensor<1xi64> -> tensor<16xf32>
    %h = kiln.mul %s, %half : tensor<16xf32>, tensor<f32> -> tensor<16xf32>
    kiln.yield %h : tensor<16xf32>
  } -> tensor<16xf32>
  return %r : tensor<16xf32>
}

// max over the two trailing axes (rows of 4 x 32), negated.
func.func @max_two_axes_warp(%a: tensor<64x4x32xf32>) -> tensor<64x1x1xf32> {
  %e = kiln.empty : tensor<64x1x1xf32>
  %r = kiln.kernel "max" row_reduce ins(%a : tensor<64x4x32xf32>) outs(%e : tensor<64x1x1xf32>) attributes {block_size = 128 : i64, grid_size = 16 : i64, rows_per_block = 4 : i64, variant = #kiln.variant<warp_rows>} {
  ^bb0(%x: tensor<64x4x32xf32>, %o: tensor<64x1x1xf32>):
    %axes = kiln.constant dense<[1, 2]> : tensor<2xi64>
    %m = kiln.reduce_max %x, %axes {keepdims = true} : tensor<64x4x32xf32>, tensor<2xi64> -> tensor<64x1x1xf32>
    %n = kiln.neg %m : tensor<64x1x1xf32> -> tensor<64x1x1xf32>
    kiln.yield %n : tensor<64x1x1xf32>
  } -> tensor<64x1x1xf32>
  return %r : tensor<64x1x1xf32>
}

// bf16 mean over rows of 5000, accumulated in float.
func.func @mean_bf16_block(%a: tensor<2x3x5000xbf16>) -> tensor<2x3xbf16> {
  %e = kiln.empty : tensor<2x3xbf16>
  %r = kiln.kernel "mean" row_reduce ins(%a : tensor<2x3x5000xbf16>) outs(%e : tensor<2x3xbf16>) attributes {block_size = 512 : i64, grid_size = 6 : i64, rows_per_block = 1 : i64, variant = #kiln.variant<block_rows>} {
  ^bb0(%x: tensor<2x3x5000xbf16>, %o: tensor<2x3xbf16>):
    %axes = kiln.constant dense<[2]> : tensor<1xi64>
    %m = kiln.reduce_mean %x, %axes {keepdims = false} : tensor<2x3x5000xbf16>, tensor<1xi64> -> tensor<2x3xbf16>
    kiln.yield %m : tensor<2x3xbf16>
  } -> tensor<2x3xbf16>
  return %r : tensor<2x3xbf16>
}

// Integer sums are exact (and wrap like the evaluator).
func.func @sum_i32_warp(%a: tensor<8x300xi32>) -> tensor<8x1xi32> {
  %e = kiln.empty : tensor<8x1xi32>
  %r = kiln.kernel "isum" row_reduce ins(%a : tensor<8x300xi32>) outs(%e : tensor<8x1xi32>) attributes {block_size = 64 : i64, grid_size = 4 : i64, rows_per_block = 2 : i64, variant = #kiln.variant<warp_rows>} {
  ^bb0(%x: tensor<8x300xi32>, %o: tensor<8x1xi32>):
    %axes = kiln.constant dense<[1]> : tensor<1xi64>
    %three = kiln.constant dense<3> : tensor<i32>
    %p = kiln.mul %x, %three : tensor<8x300xi32>, tensor<i32> -> tensor<8x300xi32>
    %s = kiln.reduce_sum %p, %axes {keepdims = true} : tensor<8x300xi32>, tensor<1xi64> -> tensor<8x1xi32>
    kiln.yield %s : tensor<8x1xi32>
  } -> tensor<8x1xi32>
  return %r : tensor<8x1xi32>
}

// Issue 14's second repro (fused and tiled by kiln-translate): the row sum
// is a row_reduce kernel, the max over the leading axis of its result a
// pointwise kernel of its own.
func.func @row_sum_then_leading_max(%a: tensor<3x4x200xf32>) -> tensor<1x4x1xf32> {
  %c2 = kiln.constant dense<2> : tensor<1xi64>
  %c0 = kiln.constant dense<0> : tensor<1xi64>
  %0 = kiln.reduce_sum %a, %c2 : tensor<3x4x200xf32>, tensor<1xi64> -> tensor<3x4x1xf32>
  %1 = kiln.reduce_max %0, %c0 : tensor<3x4x1xf32>, tensor<1xi64> -> tensor<1x4x1xf32>
  return %1 : tensor<1x4x1xf32>
}

// T5's RMSNorm variance: mean(pow(x, 2)) over rows of 512 f16, a float and
// an integer exponent 2 (emitted as x * x, kiln_square), beside pow(x, 3)
// (powf) so that both forms are checked against the CPU evaluator.
func.func @pow_two_mean_f16_warp(%a: tensor<64x512xf16> {kiln.test_range = [-3.0, 3.0]}) -> tensor<64x1xf16> {
  %e = kiln.empty : tensor<64x1xf16>
  %r = kiln.kernel "pow_reduce_mean" row_reduce ins(%a : tensor<64x512xf16>) outs(%e : tensor<64x1xf16>) attributes {block_size = 128 : i64, grid_size = 16 : i64, rows_per_block = 4 : i64, variant = #kiln.variant<warp_rows>} {
  ^bb0(%x: tensor<64x512xf16>, %o: tensor<64x1xf16>):
    %axes = kiln.constant dense<[-1]> : tensor<1xi64>
    %two = kiln.constant dense<2.0> : tensor<f16>
    %itwo = kiln.constant dense<2> : tensor<i64>
    %three = kiln.constant dense<3.0> : tensor<f16>
    %sq = kiln.pow %x, %two : tensor<64x512xf16>, tensor<f16> -> tensor<64x512xf16>
    %isq = kiln.pow %x, %itwo : tensor<64x512xf16>, tensor<i64> -> tensor<64x512xf16>
    %cube = kiln.pow %x, %three : tensor<64x512xf16>, tensor<f16> -> tensor<64x512xf16>
    %s1 = kiln.add %sq, %isq : tensor<64x512xf16>, tensor<64x512xf16> -> tensor<64x512xf16>
    %s2 = kiln.add %s1, %cube : tensor<64x512xf16>, tensor<64x512xf16> -> tensor<64x512xf16>
    %m = kiln.reduce_mean %s2, %axes {keepdims = true} : tensor<64x512xf16>, tensor<1xi64> -> tensor<64x1xf16>
    kiln.yield %m : tensor<64x1xf16>
  } -> tensor<64x1xf16>
  return %r : tensor<64x1xf16>
}

// Rows shorter than a warp (warpRowLanes): rows of 7 take 8 lanes, 4 rows
// a warp; rows of 3 would take 4 lanes and 8 rows a warp, but 10 rows are
// a multiple of 2 only: 16 lanes, 2 rows a warp.
func.func @sum_rows_of_7(%a: tensor<4x9x7xf32>) -> tensor<4x9x1xf32> {
  %axes = kiln.constant dense<[2]> : tensor<1xi64>
  %s = kiln.reduce_sum %a, %axes : tensor<4x9x7xf32>, tensor<1xi64> -> tensor<4x9x1xf32>
  return %s : tensor<4x9x1xf32>
}

func.func @max_rows_of_3(%a: tensor<10x3xf16>) -> tensor<10xf16> {
  %axes = kiln.constant dense<[1]> : tensor<1xi64>
  %m = kiln.reduce_max %a, %axes {keepdims = false} : tensor<10x3xf16>, tensor<1xi64> -> tensor<10xf16>
  return %m : tensor<10xf16>
}

// Float rows in 16-byte vectors: Swin-V2's L2 norms of q and k (sum of
// squares over head dims of 32 f16, in f32), 4 vectors of 8 on 4 lanes, 8
// rows a warp; and a block per row of 4104 f16 (513 vectors of 8 over 512
// threads: a tail).
func.func @l2_rows_of_32_f16(%a: tensor<2x3x16x32xf16>) -> tensor<2x3x16x1xf32> {
  %w = kiln.cast %a {to = f32} : tensor<2x3x16x32xf16> -> tensor<2x3x16x32xf32>
  %s = kiln.mul %w, %w : tensor<2x3x16x32xf32>, tensor<2x3x16x32xf32> -> tensor<2x3x16x32xf32>
  %axes = kiln.constant dense<[3]> : tensor<1xi64>
  %r = kiln.reduce_sum %s, %axes : tensor<2x3x16x32xf32>, tensor<1xi64> -> tensor<2x3x16x1xf32>
  return %r : tensor<2x3x16x1xf32>
}

func.func @mean_f16_block_vectors(%a: tensor<3x4104xf16>) -> tensor<3x1xf16>
    attributes {kiln.test_tolerance = [2.0e-3, 1.0e-3]} {
  %axes = kiln.constant dense<[1]> : tensor<1xi64>
  %m = kiln.reduce_mean %a, %axes : tensor<3x4104xf16>, tensor<1xi64> -> tensor<3x1xf16>
  return %m : tensor<3x1xf16>
}

// Per-element epilogues (the row normalised by its reduction, one kernel):
// Swin-V2's F.normalize of q over rows of 32 f16 (4 lanes a row, the norm's
// sqrt and clip once per row, the division per element, vectors of 8).
func.func @l2_normalise_f16_tiled(%a: tensor<2x3x16x32xf16>) -> tensor<2x3x16x32xf16> {
  %w = kiln.cast %a {to = f32} : tensor<2x3x16x32xf16> -> tensor<2x3x16x32xf32>
  %s = kiln.mul %w, %w : tensor<2x3x16x32xf32>, tensor<2x3x16x32xf32> -> tensor<2x3x16x32xf32>
  %axes = kiln.constant dense<[3]> : tensor<1xi64>
  %r = kiln.reduce_sum %s, %axes : tensor<2x3x16x32xf32>, tensor<1xi64> -> tensor<2x3x16x1xf32>
  %eps = kiln.constant dense<1.0e-12> : tensor<f32>
  %inf = kiln.constant dense<0x7F800000> : tensor<f32>
  %shape = kiln.constant dense<[2, 3, 16, 32]> : tensor<4xi64>
  %n = kiln.sqrt %r : tensor<2x3x16x1xf32> -> tensor<2x3x16x1xf32>
  %c = kiln.clip %n, %eps, %inf : tensor<2x3x16x1xf32>, tensor<f32>, tensor<f32> -> tensor<2x3x16x1xf32>
  %e = kiln.expand %c, %shape : tensor<2x3x16x1xf32>, tensor<4xi64> -> tensor<2x3x16x32xf32>
  %d = kiln.div %w, %e : tensor<2x3x16x32xf32>, tensor<2x3x16x32xf32> -> tensor<2x3x16x32xf32>
  %y = kiln.cast %d {to = f16} : tensor<2x3x16x32xf32> -> tensor<2x3x16x32xf16>
  return %y : tensor<2x3x16x32xf16>
}

// A decomposed RMSNorm over rows of 2048 f16 (a block per row): x times
// 1 / sqrt(mean(x^2) + eps) read as [R, 1] directly, times a weight row.
func.func @rms_norm_f16_block_tiled(%a: tensor<6x2048xf16>, %g: tensor<2048xf16>) -> tensor<6x2048xf16> {
  %w = kiln.cast %a {to = f32} : tensor<6x2048xf16> -> tensor<6x2048xf32>
  %s = kiln.mul %w, %w : tensor<6x2048xf32>, tensor<6x2048xf32> -> tensor<6x2048xf32>
  %axes = kiln.constant dense<[-1]> : tensor<1xi64>
  %m = kiln.reduce_mean %s, %axes : tensor<6x2048xf32>, tensor<1xi64> -> tensor<6x1xf32>
  %eps = kiln.constant dense<1.0e-6> : tensor<f32>
  %p = kiln.add %m, %eps : tensor<6x1xf32>, tensor<f32> -> tensor<6x1xf32>
  %q = kiln.sqrt %p : tensor<6x1xf32> -> tensor<6x1xf32>
  %inv = kiln.reciprocal %q : tensor<6x1xf32> -> tensor<6x1xf32>
  %n = kiln.mul %w, %inv : tensor<6x2048xf32>, tensor<6x1xf32> -> tensor<6x2048xf32>
  %h = kiln.cast %n {to = f16} : tensor<6x2048xf32> -> tensor<6x2048xf16>
  %y = kiln.mul %h, %g : tensor<6x2048xf16>, tensor<2048xf16> -> tensor<6x2048xf16>
  return %y : tensor<6x2048xf16>
}

// exp(x - max(x)) over rows of 33 f32 (no vectors: 33 is odd), the max read
// through an expand.
func.func @max_subtract_rows_of_33_tiled(%a: tensor<5x7x33xf32>) -> tensor<5x7x33xf32> {
  %axes = kiln.constant dense<[2]> : tensor<1xi64>
  %m = kiln.reduce_max %a, %axes : tensor<5x7x33xf32>, tensor<1xi64> -> tensor<5x7x1xf32>
  %shape = kiln.constant dense<[5, 7, 33]> : tensor<3xi64>
  %e = kiln.expand %m, %shape : tensor<5x7x1xf32>, tensor<3xi64> -> tensor<5x7x33xf32>
  %d = kiln.sub %a, %e : tensor<5x7x33xf32>, tensor<5x7x33xf32> -> tensor<5x7x33xf32>
  %x = kiln.exp %d : tensor<5x7x33xf32> -> tensor<5x7x33xf32>
  return %x : tensor<5x7x33xf32>
}
