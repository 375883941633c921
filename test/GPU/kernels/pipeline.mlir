// GPU kernel tests of unfused functions: kiln-translate runs the kernel
// pipeline (kiln-fuse-kernels, kiln-tile-kernels) and tests what it makes.
// RUN: rm -rf %t && kiln-translate %s --kernel-test-bundle %t | FileCheck %s
// CHECK: wrote case pipeline.mlp_block
// CHECK: wrote case pipeline.layer_norm_like
// CHECK: wrote case pipeline.rms_norm_f16_large

func.func @mlp_block(%x: tensor<8x4097xf32>, %b: tensor<4097xf32>) -> (tensor<8x4097xf32>, tensor<4097x8xf32>) {
  %s = kiln.add %x, %b : tensor<8x4097xf32>, tensor<4097xf32> -> tensor<8x4097xf32>
  %r = kiln.relu %s : tensor<8x4097xf32> -> tensor<8x4097xf32>
  %p = kiln.softmax %r {axis = -1 : i64} : tensor<8x4097xf32> -> tensor<8x4097xf32>
  %t = kiln.transpose %s {perm = array<i64: 1, 0>} : tensor<8x4097xf32> -> tensor<4097x8xf32>
  return %p, %t : tensor<8x4097xf32>, tensor<4097x8xf32>
}

func.func @layer_norm_like(%x: tensor<16x768xf32>) -> tensor<16x768xf32> {
  %axes = kiln.constant dense<[-1]> : tensor<1xi64>
  %m = kiln.reduce_mean %x, %axes {keepdims = true} : tensor<16x768xf32>, tensor<1xi64> -> tensor<16x1xf32>
  %d = kiln.sub %x, %m : tensor<16x768xf32>, tensor<16x1xf32> -> tensor<16x768xf32>
  %sq = kiln.mul %d, %d : tensor<16x768xf32>, tensor<16x768xf32> -> tensor<16x768xf32>
  %v = kiln.reduce_mean %sq, %axes {keepdims = true} : tensor<16x768xf32>, tensor<1xi64> -> tensor<16x1xf32>
  %eps = kiln.constant dense<1.0e-5> : tensor<f32>
  %ve = kiln.add %v, %eps : tensor<16x1xf32>, tensor<f32> -> tensor<16x1xf32>
  %sd = kiln.sqrt %ve : tensor<16x1xf32> -> tensor<16x1xf32>
  %y = kiln.div %d, %sd : tensor<16x768xf32>, tensor<16x1xf32> -> tensor<16x768xf32>
  return %y : tensor<16x768xf32>
}

// T5's RMSNorm as kiln-convert-precision leaves it at fp16 (reduction
// statistics in f32): x^2, its mean, + eps, sqrt and 1 / x in f32 from x
// widened, x * rstd rounded to f16 once. Rows of RMS about 577: in f16,
// mean(x^2) overflowed (65504) and the rows came out zero.
func.func @rms_norm_f16_large(%x: tensor<16x512xf16> {kiln.test_range = [-1000.0, 1000.0]}, %w: tensor<512xf16>) -> tensor<16x512xf16> {
  %two = kiln.constant dense<2.0> : tensor<f32>
  %eps = kiln.constant dense<1.0e-6> : tensor<f32>
  %one = kiln.constant dense<1.0> : tensor<f32>
  %axes = kiln.constant dense<[-1]> : tensor<1xi64>
  %wide = kiln.cast %x {to = f32} : tensor<16x512xf16> -> tensor<16x512xf32>
  %sq = kiln.pow %wide, %two : tensor<16x512xf32>, tensor<f32> -> tensor<16x512xf32>
  %m = kiln.reduce_mean %sq, %axes : tensor<16x512xf32>, tensor<1xi64> -> tensor<16x1xf32>
  %v = kiln.add %m, %eps : tensor<16x1xf32>, tensor<f32> -> tensor<16x1xf32>
  %r = kiln.sqrt %v : tensor<16x1xf32> -> tensor<16x1xf32>
  %inv = kiln.div %one, %r : tensor<f32>, tensor<16x1xf32> -> tensor<16x1xf32>
  %wide2 = kiln.cast %x {to = f32} : tensor<16x512xf16> -> tensor<16x512xf32>
  %n = kiln.mul %wide2, %inv : tensor<16x512xf32>, tensor<16x1xf32> -> tensor<16x512xf32>
  %nh = kiln.cast %n {to = f16} : tensor<16x512xf32> -> tensor<16x512xf16>
  %y = kiln.mul %w, %nh : tensor<512xf16>, tensor<16x512xf16> -> tensor<16x512xf16>
  return %y : tensor<16x512xf16>
}
