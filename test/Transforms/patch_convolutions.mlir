// RUN: kiln-opt %s --split-input-file --kiln-patch-convolutions | FileCheck %s

// A patch embedding (kernel = stride 4, no padding, 3 input channels): the
// patches of the input by one reshape and transpose, a matmul with the
// filters flattened to [C x kh x kw, M], the bias added to its rows, and the
// NCHW result by a transpose.
// CHECK-LABEL: func.func @patch_embedding
// CHECK: %[[SPLIT:.*]] = kiln.reshape %arg0, %{{.*}} : tensor<2x3x8x12xf32>, tensor<6xi64> -> tensor<2x3x2x4x3x4xf32>
// CHECK: %[[PATCHES:.*]] = kiln.transpose %[[SPLIT]] {perm = array<i64: 0, 2, 4, 1, 3, 5>} : tensor<2x3x2x4x3x4xf32> -> tensor<2x2x3x3x4x4xf32>
// CHECK: %[[ROWS:.*]] = kiln.reshape %[[PATCHES]], %{{.*}} : tensor<2x2x3x3x4x4xf32>, tensor<4xi64> -> tensor<2x2x3x48xf32>
// CHECK: %[[FLAT:.*]] = kiln.reshape %{{.*}}, %{{.*}} : tensor<5x3x4x4xf32>, tensor<2xi64> -> tensor<5x48xf32>
// CHECK: %[[FILTERS:.*]] = kiln.transpose %[[FLAT]] {perm = array<i64: 1, 0>} : tensor<5x48xf32> -> tensor<48x5xf32>
// CHECK: %[[PRODUCT:.*]] = kiln.matmul %[[ROWS]], %[[FILTERS]] : tensor<2x2x3x48xf32>, tensor<48x5xf32> -> tensor<2x2x3x5xf32>
// CHECK: %[[BIASED:.*]] = kiln.add %[[PRODUCT]], %{{.*}} : tensor<2x2x3x5xf32>, tensor<5xf32> -> tensor<2x2x3x5xf32>
// CHECK: %[[RESULT:.*]] = kiln.transpose %[[BIASED]] {perm = array<i64: 0, 3, 1, 2>} : tensor<2x2x3x5xf32> -> tensor<2x5x2x3xf32>
// CHECK-NOT: kiln.conv
// CHECK: return %[[RESULT]]
func.func @patch_embedding(%x: tensor<2x3x8x12xf32>) -> tensor<2x5x2x3xf32> {
  %w = kiln.constant dense<0.5> : tensor<5x3x4x4xf32>
  %b = kiln.constant dense<0.25> : tensor<5xf32>
  %y = kiln.conv %x, %w, %b {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 4, 4>} : tensor<2x3x8x12xf32>, tensor<5x3x4x4xf32>, tensor<5xf32> -> tensor<2x5x2x3xf32>
  return %y : tensor<2x5x2x3xf32>
}

// -----

// No bias, a 2 x 1 kernel and f16: no add.
// CHECK-LABEL: func.func @no_bias
// CHECK: kiln.transpose %{{.*}} {perm = array<i64: 0, 2, 4, 1, 3, 5>} : tensor<1x5x3x2x6x1xf16> -> tensor<1x3x6x5x2x1xf16>
// CHECK: kiln.matmul %{{.*}}, %{{.*}} : tensor<1x3x6x10xf16>, tensor<10x7xf16> -> tensor<1x3x6x7xf16>
// CHECK-NOT: kiln.add
// CHECK-NOT: kiln.conv
func.func @no_bias(%x: tensor<1x5x6x6xf16>) -> tensor<1x7x3x6xf16> {
  %w = kiln.constant dense<0.5> : tensor<7x5x2x1xf16>
  %y = kiln.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 1>} : tensor<1x5x6x6xf16>, tensor<7x5x2x1xf16> -> tensor<1x7x3x6xf16>
  return %y : tensor<1x7x3x6xf16>
}

// -----

// What stays a convolution: 8 input channels (cuDNN's tensor cores take
// them), overlapping windows, padding, a size that leaves pixels out, a
// 1 x 1 kernel, a grouped convolution and a weight that is an argument.
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-7: kiln.conv
// CHECK-NOT: kiln.matmul
func.func @kept(%x8: tensor<1x8x8x8xf32>, %x: tensor<1x4x8x8xf32>, %x9: tensor<1x4x9x8xf32>, %wa: tensor<4x4x2x2xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x3x3xf32>, tensor<1x4x5x5xf32>, tensor<1x4x4x4xf32>, tensor<1x4x8x8xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>) {
  %w8 = kiln.constant dense<0.5> : tensor<4x8x2x2xf32>
  %w = kiln.constant dense<0.5> : tensor<4x4x2x2xf32>
  %w1 = kiln.constant dense<0.5> : tensor<4x4x1x1xf32>
  %wg = kiln.constant dense<0.5> : tensor<4x2x2x2xf32>
  %a = kiln.conv %x8, %w8 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<1x8x8x8xf32>, tensor<4x8x2x2xf32> -> tensor<1x4x4x4xf32>
  %b = kiln.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 3, 3>} : tensor<1x4x8x8xf32>, tensor<4x4x2x2xf32> -> tensor<1x4x3x3xf32>
  %c = kiln.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<1x4x8x8xf32>, tensor<4x4x2x2xf32> -> tensor<1x4x5x5xf32>
  %d = kiln.conv %x9, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<1x4x9x8xf32>, tensor<4x4x2x2xf32> -> tensor<1x4x4x4xf32>
  %e = kiln.conv %x, %w1 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x8x8xf32>, tensor<4x4x1x1xf32> -> tensor<1x4x8x8xf32>
  %f = kiln.conv %x, %wg {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<1x4x8x8xf32>, tensor<4x2x2x2xf32> -> tensor<1x4x4x4xf32>
  %g = kiln.conv %x, %wa {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<1x4x8x8xf32>, tensor<4x4x2x2xf32> -> tensor<1x4x4x4xf32>
  return %a, %b, %c, %d, %e, %f, %g : tensor<1x4x4x4xf32>, tensor<1x4x3x3xf32>, tensor<1x4x5x5xf32>, tensor<1x4x4x4xf32>, tensor<1x4x8x8xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>
}
