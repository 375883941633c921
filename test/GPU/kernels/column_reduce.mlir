// GPU kernel tests of the column reduction template (the channels_last_pool
// variant's column window, ColumnReduceEmitter.cpp): sum, mean and max over
// the middle axes of channels-last tensors, a block per (outer, vectors of
// channels) with its threads along the reduced pixels. The expected outputs
// come from the CPU evaluator.
// RUN: rm -rf %t && kiln-translate %s --kernel-test-bundle %t | FileCheck %s
// CHECK: wrote case column_reduce.se_mean_f16_c32
// CHECK: wrote case column_reduce.se_mean_f16_c36_silu
// CHECK: wrote case column_reduce.mean_f16_c5
// CHECK: wrote case column_reduce.sum_max_f32_c12
// CHECK: wrote case column_reduce.max_f16_c1152_small_plane
// CHECK: wrote case column_reduce.sum_f32_c3_outer_run
// CHECK: wrote case column_reduce.mean_f32_short_length
// CHECK: wrote case column_reduce.max_f16_c8_one_vector
// CHECK: wrote case column_reduce.concat_norm_relu_mean_f16

// EfficientNet-B0's first squeeze-excite mean ([N, 112 x 112, 32] at batch
// 8; here 2 x 56 x 57): 32 channels, vectors of 8, a block per pixel's two
// vectors, 1024 threads along the 3192 pixels.
func.func @se_mean_f16_c32(%x: tensor<2x56x57x32xf16>) -> tensor<2x1x1x32xf16> {
  %axes = kiln.constant dense<[1, 2]> : tensor<2xi64>
  %m = kiln.reduce_mean %x, %axes : tensor<2x56x57x32xf16>, tensor<2xi64> -> tensor<2x1x1x32xf16>
  return %m : tensor<2x1x1x32xf16>
}

// The SiLU before the mean is its prologue (the activation's only user):
// computed lane by lane from vector loads. 36 channels: vectors of 4.
func.func @se_mean_f16_c36_silu(%x: tensor<3x20x21x36xf16>) -> tensor<3x1x1x36xf16> {
  %axes = kiln.constant dense<[1, 2]> : tensor<2xi64>
  %s = kiln.sigmoid %x : tensor<3x20x21x36xf16> -> tensor<3x20x21x36xf16>
  %a = kiln.mul %x, %s : tensor<3x20x21x36xf16>, tensor<3x20x21x36xf16> -> tensor<3x20x21x36xf16>
  %m = kiln.reduce_mean %a, %axes : tensor<3x20x21x36xf16>, tensor<2xi64> -> tensor<3x1x1x36xf16>
  return %m : tensor<3x1x1x36xf16>
}

// 5 channels: one channel per thread, 16 of them per row of the block;
// no keepdims.
func.func @mean_f16_c5(%x: tensor<2x33x31x5xf16>) -> tensor<2x5xf16> {
  %axes = kiln.constant dense<[1, 2]> : tensor<2xi64>
  %m = kiln.reduce_mean %x, %axes {keepdims = false} : tensor<2x33x31x5xf16>, tensor<2xi64> -> tensor<2x5xf16>
  return %m : tensor<2x5xf16>
}

// f32 sum and max of one tensor (two kernels), 12 channels: vectors of 4.
func.func @sum_max_f32_c12(%x: tensor<4x17x19x12xf32>) -> (tensor<4x1x1x12xf32>, tensor<4x1x1x12xf32>) {
  %axes = kiln.constant dense<[1, 2]> : tensor<2xi64>
  %s = kiln.reduce_sum %x, %axes : tensor<4x17x19x12xf32>, tensor<2xi64> -> tensor<4x1x1x12xf32>
  %m = kiln.reduce_max %x, %axes : tensor<4x17x19x12xf32>, tensor<2xi64> -> tensor<4x1x1x12xf32>
  return %s, %m : tensor<4x1x1x12xf32>, tensor<4x1x1x12xf32>
}

// EfficientNet-B0's last stage (7 x 7 x 1152): a short plane, 72 blocks of
// two vectors per image.
func.func @max_f16_c1152_small_plane(%x: tensor<2x7x7x1152xf16>) -> tensor<2x1x1x1152xf16> {
  %axes = kiln.constant dense<[1, 2]> : tensor<2xi64>
  %m = kiln.reduce_max %x, %axes : tensor<2x7x7x1152xf16>, tensor<2xi64> -> tensor<2x1x1x1152xf16>
  return %m : tensor<2x1x1x1152xf16>
}

// A run of the outermost axes ([0, 1] of [A, B, C, D]) keeping the inner
// two: outer 1, inner 9 x 3 = 27 (odd: one channel per thread).
func.func @sum_f32_c3_outer_run(%x: tensor<6x50x9x3xf32>) -> tensor<9x3xf32> {
  %axes = kiln.constant dense<[0, 1]> : tensor<2xi64>
  %m = kiln.reduce_sum %x, %axes {keepdims = false} : tensor<6x50x9x3xf32>, tensor<2xi64> -> tensor<9x3xf32>
  return %m : tensor<9x3xf32>
}

// A length of 3: a block of 4 threads (2 rows of 2 vectors), part of one
// warp, whose shuffles name only its lanes.
func.func @mean_f32_short_length(%x: tensor<8x1x3x16xf32>) -> tensor<8x1x1x16xf32> {
  %axes = kiln.constant dense<[1, 2]> : tensor<2xi64>
  %m = kiln.reduce_mean %x, %axes : tensor<8x1x3x16xf32>, tensor<2xi64> -> tensor<8x1x1x16xf32>
  return %m : tensor<8x1x1x16xf32>
}

// 8 channels f16: one vector a row, so every lane of a warp holds the same
// channels (shuffles down to 1) and 32 warps meet in the first.
func.func @max_f16_c8_one_vector(%x: tensor<2x40x40x8xf16>) -> tensor<2x1x1x8xf16> {
  %axes = kiln.constant dense<[1, 2]> : tensor<2xi64>
  %m = kiln.reduce_max %x, %axes : tensor<2x40x40x8xf16>, tensor<2xi64> -> tensor<2x1x1x8xf16>
  return %m : tensor<2x1x1x8xf16>
}

// DenseNet's tail: the dense block's channel concat, the inference norm
// computed in f32 and ReLU before the global mean, all the reduction's
// prologue (the concat loaded as one vector from the piece that holds it,
// the rest lane by lane). 72 channels in pieces of 40, 24 and 8: vectors of
// 8 channels, each within one piece.
func.func @concat_norm_relu_mean_f16(%a: tensor<2x7x7x40xf16>, %b: tensor<2x7x7x24xf16>, %c: tensor<2x7x7x8xf16>, %scale: tensor<72xf32>, %shift: tensor<72xf32>) -> tensor<2x1x1x72xf16> {
  %t = kiln.concat %a, %b, %c {axis = 3 : i64} : tensor<2x7x7x40xf16>, tensor<2x7x7x24xf16>, tensor<2x7x7x8xf16> -> tensor<2x7x7x72xf16>
  %w = kiln.cast %t {to = f32} : tensor<2x7x7x72xf16> -> tensor<2x7x7x72xf32>
  %m = kiln.mul %w, %scale : tensor<2x7x7x72xf32>, tensor<72xf32> -> tensor<2x7x7x72xf32>
  %s = kiln.add %m, %shift : tensor<2x7x7x72xf32>, tensor<72xf32> -> tensor<2x7x7x72xf32>
  %h = kiln.cast %s {to = f16} : tensor<2x7x7x72xf32> -> tensor<2x7x7x72xf16>
  %r = kiln.relu %h : tensor<2x7x7x72xf16> -> tensor<2x7x7x72xf16>
  %axes = kiln.constant dense<[1, 2]> : tensor<2xi64>
  %y = kiln.reduce_mean %r, %axes : tensor<2x7x7x72xf16>, tensor<2xi64> -> tensor<2x1x1x72xf16>
  return %y : tensor<2x1x1x72xf16>
}
