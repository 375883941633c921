// RUN: kiln-opt %s --split-input-file --kiln-fuse-kernels | FileCheck %s

// A static 2-D conv with constant weights is a cuDNN library kernel: the bias
// goes with it, the relu stays in a pointwise kernel of its own.
// CHECK-LABEL: func.func @library_conv
// CHECK: %[[W:.+]] = kiln.constant dense_resource<w> : tensor<4x2x3x3xf32>
// CHECK: %[[C:.+]] = kiln.kernel "conv_0" library ins(%arg0, %[[W]], %arg1 : {{.*}})
// CHECK-NEXT: ^bb0
// CHECK-NEXT: kiln.conv
// CHECK-NEXT: kiln.yield
// CHECK: kiln.kernel "relu_1" pointwise ins(%[[C]]
func.func @library_conv(%x: tensor<1x2x8x7xf32>, %b: tensor<4xf32>) -> tensor<1x4x4x4xf32> {
  %w = kiln.constant dense_resource<w> : tensor<4x2x3x3xf32>
  %c = kiln.conv %x, %w, %b {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<1x2x8x7xf32>, tensor<4x2x3x3xf32>, tensor<4xf32> -> tensor<1x4x4x4xf32>
  %y = kiln.relu %c : tensor<1x4x4x4xf32> -> tensor<1x4x4x4xf32>
  return %y : tensor<1x4x4x4xf32>
}

// -----

// Grouped (depthwise) f16 convs are library kernels too; the producer of the
// input stays in its own kernel.
// CHECK-LABEL: func.func @depthwise_f16
// CHECK: %[[N:.+]] = kiln.kernel "neg_0" pointwise
// CHECK: kiln.kernel "conv_1" library ins(%[[N]]
func.func @depthwise_f16(%x: tensor<2x8x5x5xf16>) -> tensor<2x8x5x5xf16> {
  %w = kiln.constant dense<1.0> : tensor<8x1x3x3xf16>
  %n = kiln.neg %x : tensor<2x8x5x5xf16> -> tensor<2x8x5x5xf16>
  %c = kiln.conv %n, %w {dilations = array<i64: 1, 1>, group = 8 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<2x8x5x5xf16>, tensor<8x1x3x3xf16> -> tensor<2x8x5x5xf16>
  return %c : tensor<2x8x5x5xf16>
}

// -----

// Convs cuDNN is not given stay elemental: asymmetric pads, weights that are
// not constants, 1-D, integers.
// CHECK-LABEL: func.func @elemental_convs
// CHECK: kiln.kernel "conv_0" pointwise
// CHECK: kiln.kernel "conv_1" pointwise
// CHECK: kiln.kernel "conv_2" pointwise
// CHECK: kiln.kernel "conv_3" pointwise
// CHECK-NOT: library
func.func @elemental_convs(%x: tensor<1x2x8x8xf32>, %v: tensor<3x2x3x3xf32>, %s: tensor<1x2x9xf32>, %i: tensor<1x2x9xi32>) -> (tensor<1x3x4x4xf32>, tensor<1x3x8x8xf32>, tensor<1x3x9xf32>, tensor<1x3x9xi32>) {
  %w = kiln.constant dense<0.5> : tensor<3x2x3x3xf32>
  %w1 = kiln.constant dense<0.5> : tensor<3x2x3xf32>
  %wi = kiln.constant dense<2> : tensor<3x2x3xi32>
  %a = kiln.conv %x, %w {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 1, 1>, strides = array<i64: 2, 2>} : tensor<1x2x8x8xf32>, tensor<3x2x3x3xf32> -> tensor<1x3x4x4xf32>
  %b = kiln.conv %x, %v {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x2x8x8xf32>, tensor<3x2x3x3xf32> -> tensor<1x3x8x8xf32>
  %c = kiln.conv %s, %w1 {dilations = array<i64: 1>, pads = array<i64: 1, 1>, strides = array<i64: 1>} : tensor<1x2x9xf32>, tensor<3x2x3xf32> -> tensor<1x3x9xf32>
  %d = kiln.conv %i, %wi {dilations = array<i64: 1>, pads = array<i64: 1, 1>, strides = array<i64: 1>} : tensor<1x2x9xi32>, tensor<3x2x3xi32> -> tensor<1x3x9xi32>
  return %a, %b, %c, %d : tensor<1x3x4x4xf32>, tensor<1x3x8x8xf32>, tensor<1x3x9xf32>, tensor<1x3x9xi32>
}
