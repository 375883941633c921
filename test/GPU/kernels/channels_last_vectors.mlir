// GPU kernel tests of the loop template's channels-last vectors (issue 17):
// a squeeze-excite scale x * s with s [N, 1, 1, C] over NHWC x (a broadcast
// that keeps the innermost dim, read by 16-byte vectors at (n, vector of
// channels)) and channel concats of NHWC pieces whose channel counts are
// whole vectors (each vector read from the piece that holds it), through
// the kernel pipeline and hand-tiled with several vectors per thread and a
// partial step. The expected outputs come from the CPU evaluator.
// RUN: rm -rf %t && kiln-translate %s --kernel-test-bundle %t | FileCheck %s
// CHECK: wrote case channels_last_vectors.se_scale_sigmoid_f16_c32_tiled
// CHECK: wrote case channels_last_vectors.se_scale_hardsigmoid_f16_c20_tiled
// CHECK: wrote case channels_last_vectors.se_scale_f32_c12_over_w_tiled
// CHECK: wrote case channels_last_vectors.se_scale_f16_c16_steps
// CHECK: wrote case channels_last_vectors.dense_concat_bn_relu_f16_tiled
// CHECK: wrote case channels_last_vectors.concat_f32_c8_c4_c12_tiled
// CHECK: wrote case channels_last_vectors.concat_f16_c12_c6_tiled
// CHECK: wrote case channels_last_vectors.concat_f16_c8_c16_steps

// EfficientNet-B0's SE: sigmoid of the [N, 1, 1, C] excitation, times x;
// vectors of 8 channels, 4 per pixel.
func.func @se_scale_sigmoid_f16_c32_tiled(%s: tensor<2x1x1x32xf16>, %x: tensor<2x7x9x32xf16>) -> tensor<2x7x9x32xf16> {
  %g = kiln.sigmoid %s : tensor<2x1x1x32xf16> -> tensor<2x1x1x32xf16>
  %y = kiln.mul %x, %g : tensor<2x7x9x32xf16>, tensor<2x1x1x32xf16> -> tensor<2x7x9x32xf16>
  return %y : tensor<2x7x9x32xf16>
}

// MobileNet-V3's SE: hard sigmoid; 20 channels take vectors of 4 (5 per
// pixel).
func.func @se_scale_hardsigmoid_f16_c20_tiled(%s: tensor<3x1x1x20xf16>, %x: tensor<3x5x5x20xf16>) -> tensor<3x5x5x20xf16> {
  %g = kiln.hard_sigmoid %s {alpha = 0.16666667 : f32, beta = 0.5 : f32} : tensor<3x1x1x20xf16> -> tensor<3x1x1x20xf16>
  %y = kiln.mul %g, %x : tensor<3x1x1x20xf16>, tensor<3x5x5x20xf16> -> tensor<3x5x5x20xf16>
  return %y : tensor<3x5x5x20xf16>
}

// f32, a scale broadcast over W only ([N, H, 1, C]) plus a bias row:
// vectors of 4, 3 per pixel.
func.func @se_scale_f32_c12_over_w_tiled(%s: tensor<2x3x1x12xf32>, %b: tensor<12xf32>, %x: tensor<2x3x5x12xf32>) -> tensor<2x3x5x12xf32> {
  %m = kiln.mul %x, %s : tensor<2x3x5x12xf32>, tensor<2x3x1x12xf32> -> tensor<2x3x5x12xf32>
  %y = kiln.add %m, %b : tensor<2x3x5x12xf32>, tensor<12xf32> -> tensor<2x3x5x12xf32>
  return %y : tensor<2x3x5x12xf32>
}

// Hand-tiled: 4 vectors per thread over 2 blocks of 32 threads, so the
// grid-stride loop has whole steps and a partial one (8 x 9 x 11 pixels x 2
// vectors = 1584 vectors, 256 per step).
func.func @se_scale_f16_c16_steps(%s: tensor<8x1x1x16xf16>, %x: tensor<8x9x11x16xf16>) -> tensor<8x9x11x16xf16> {
  %e = kiln.empty : tensor<8x9x11x16xf16>
  %r = kiln.kernel "se_scale_steps" pointwise ins(%s, %x : tensor<8x1x1x16xf16>, tensor<8x9x11x16xf16>) outs(%e : tensor<8x9x11x16xf16>) attributes {block_size = 32 : i64, grid_size = 2 : i64, elements_per_thread = 4 : i64, vector_width = 8 : i64} {
  ^bb0(%a: tensor<8x1x1x16xf16>, %b: tensor<8x9x11x16xf16>, %o: tensor<8x9x11x16xf16>):
    %g = kiln.sigmoid %a : tensor<8x1x1x16xf16> -> tensor<8x1x1x16xf16>
    %y = kiln.mul %g, %b : tensor<8x1x1x16xf16>, tensor<8x9x11x16xf16> -> tensor<8x9x11x16xf16>
    kiln.yield %y : tensor<8x9x11x16xf16>
  } -> tensor<8x9x11x16xf16>
  return %r : tensor<8x9x11x16xf16>
}

// DenseNet-121's dense layer input: the block's features concatenated along
// the channels, then BatchNorm (as scale and shift rows) and ReLU; 16, 8 and
// 8 channels: vectors of 8.
func.func @dense_concat_bn_relu_f16_tiled(%a: tensor<2x5x6x16xf16>, %b: tensor<2x5x6x8xf16>, %c: tensor<2x5x6x8xf16>, %scale: tensor<1x1x1x32xf16>, %shift: tensor<1x1x1x32xf16>) -> tensor<2x5x6x32xf16> {
  %t = kiln.concat %a, %b, %c {axis = 3 : i64} : tensor<2x5x6x16xf16>, tensor<2x5x6x8xf16>, tensor<2x5x6x8xf16> -> tensor<2x5x6x32xf16>
  %m = kiln.mul %t, %scale : tensor<2x5x6x32xf16>, tensor<1x1x1x32xf16> -> tensor<2x5x6x32xf16>
  %s = kiln.add %m, %shift : tensor<2x5x6x32xf16>, tensor<1x1x1x32xf16> -> tensor<2x5x6x32xf16>
  %y = kiln.relu %s : tensor<2x5x6x32xf16> -> tensor<2x5x6x32xf16>
  return %y : tensor<2x5x6x32xf16>
}

// A plain concat (a data_movement kernel) of f32 pieces of 8, 4 and 12
// channels: vectors of 4.
func.func @concat_f32_c8_c4_c12_tiled(%a: tensor<3x7x8xf32>, %b: tensor<3x7x4xf32>, %c: tensor<3x7x12xf32>) -> tensor<3x7x24xf32> {
  %t = kiln.concat %a, %b, %c {axis = -1 : i64} : tensor<3x7x8xf32>, tensor<3x7x4xf32>, tensor<3x7x12xf32> -> tensor<3x7x24xf32>
  return %t : tensor<3x7x24xf32>
}

// f16 pieces of 12 and 6 channels: vectors of 2 (the gcd 6 takes no wider).
func.func @concat_f16_c12_c6_tiled(%a: tensor<5x3x12xf16>, %b: tensor<5x3x6xf16>) -> tensor<5x3x18xf16> {
  %t = kiln.concat %a, %b {axis = 2 : i64} : tensor<5x3x12xf16>, tensor<5x3x6xf16> -> tensor<5x3x18xf16>
  return %t : tensor<5x3x18xf16>
}

// Hand-tiled: 4 vectors per thread over 2 blocks of 32 threads, whole steps
// and a partial one (7 x 13 pixels x 3 vectors = 273 vectors).
func.func @concat_f16_c8_c16_steps(%a: tensor<7x13x8xf16>, %b: tensor<7x13x16xf16>) -> tensor<7x13x24xf16> {
  %e = kiln.empty : tensor<7x13x24xf16>
  %r = kiln.kernel "concat_steps" data_movement ins(%a, %b : tensor<7x13x8xf16>, tensor<7x13x16xf16>) outs(%e : tensor<7x13x24xf16>) attributes {block_size = 32 : i64, grid_size = 2 : i64, elements_per_thread = 4 : i64, vector_width = 8 : i64} {
  ^bb0(%x: tensor<7x13x8xf16>, %y: tensor<7x13x16xf16>, %o: tensor<7x13x24xf16>):
    %t = kiln.concat %x, %y {axis = 2 : i64} : tensor<7x13x8xf16>, tensor<7x13x16xf16> -> tensor<7x13x24xf16>
    %n = kiln.neg %t : tensor<7x13x24xf16> -> tensor<7x13x24xf16>
    kiln.yield %n : tensor<7x13x24xf16>
  } -> tensor<7x13x24xf16>
  return %r : tensor<7x13x24xf16>
}
