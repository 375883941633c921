// RUN: kiln-opt %s --split-input-file --kiln-pack-depthwise-weights | FileCheck %s
// RUN: kiln-opt %s --split-input-file --kiln-pack-depthwise-weights --kiln-fuse-kernels --kiln-tile-kernels | FileCheck %s --check-prefix=TILED
// RUN: kiln-opt %s --split-input-file --kiln-outline-init --kiln-pack-depthwise-weights | FileCheck %s --check-prefix=INIT

// A depthwise conv's constant weight w[c, r, s] (here c * 9 + r * 3 + s) is
// stored [R, S, 1, C] and read through a transpose back to [C, R, S, 1];
// its kernel takes the transpose in and reads the stored weight (the
// channels-last window template, vectors of 4 f32 channels).
// CHECK-LABEL: func.func @depthwise_weight
// CHECK: %[[S:.+]] = kiln.constant dense<{{\[\[\[\[}}0.000000e+00, 9.000000e+00, 1.800000e+01, 2.700000e+01]], {{\[\[}}1.000000e+00, 1.000000e+01, 1.900000e+01, 2.800000e+01]]
// CHECK-SAME: tensor<3x3x1x4xf32>
// CHECK: %[[W:.+]] = kiln.transpose %[[S]] {perm = array<i64: 3, 0, 1, 2>} : tensor<3x3x1x4xf32> -> tensor<4x3x3x1xf32>
// CHECK: kiln.conv %{{.+}}, %[[W]]
// TILED-LABEL: func.func @depthwise_weight
// TILED: kiln.kernel "transpose_conv_relu_0" pointwise ins(%{{.+}}, %{{.+}} : tensor<3x3x1x4xf32>, tensor<2x6x5x4xf32>) {{.*}} attributes {block_size = 128 : i64, elements_per_thread = 1 : i64, grid_size = 1 : i64, variant = #kiln.variant<channels_last_pool>, vector_width = 4 : i64}
// TILED: kiln.transpose %{{.+}} {perm = array<i64: 3, 0, 1, 2>}
// TILED-NEXT: kiln.conv
// TILED-NEXT: kiln.relu
func.func @depthwise_weight(%x: tensor<2x6x5x4xf32>) -> tensor<2x6x5x4xf32> {
  %w = kiln.constant dense<[[[[0.0], [1.0], [2.0]], [[3.0], [4.0], [5.0]], [[6.0], [7.0], [8.0]]], [[[9.0], [10.0], [11.0]], [[12.0], [13.0], [14.0]], [[15.0], [16.0], [17.0]]], [[[18.0], [19.0], [20.0]], [[21.0], [22.0], [23.0]], [[24.0], [25.0], [26.0]]], [[[27.0], [28.0], [29.0]], [[30.0], [31.0], [32.0]], [[33.0], [34.0], [35.0]]]]> : tensor<4x3x3x1xf32>
  %c = kiln.conv %x, %w {dilations = array<i64: 1, 1>, group = 4 : i64, layout = "NHWC", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<2x6x5x4xf32>, tensor<4x3x3x1xf32> -> tensor<2x6x5x4xf32>
  %r = kiln.relu %c : tensor<2x6x5x4xf32> -> tensor<2x6x5x4xf32>
  return %r : tensor<2x6x5x4xf32>
}

// -----

// A weight in a resource blob (an f16 [2, 1, 2, 1]: 1, 2, 3, 4) is stored
// [1, 2, 1, 2] as a new blob: 1, 3, 2, 4.
// CHECK-LABEL: func.func @resource_weight
// CHECK: kiln.constant dense_resource<depthwise_weight> : tensor<1x2x1x2xf16>
// CHECK: depthwise_weight: "0x40000000003C004200400044"
func.func @resource_weight(%x: tensor<1x3x3x2xf16>) -> tensor<1x3x2x2xf16> {
  %w = kiln.constant dense_resource<w0> : tensor<2x1x2x1xf16>
  %c = kiln.conv %x, %w {dilations = array<i64: 1, 1>, group = 2 : i64, layout = "NHWC", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x3x3x2xf16>, tensor<2x1x2x1xf16> -> tensor<1x3x2x2xf16>
  return %c : tensor<1x3x2x2xf16>
}
{-#
  dialect_resources: {
    builtin: {
      w0: "0x04000000003C004000420044"
    }
  }
#-}

// -----

// What stays: a weight another op also reads, a computed weight (an
// argument), a grouped conv with several channels per group, a conv with a
// channel multiplier (8 outputs of 4 inputs: the template needs C = M).
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: kiln.transpose
// TILED-LABEL: func.func @left_alone
// TILED-NOT: channels_last_pool
func.func @left_alone(%x: tensor<1x5x5x4xf16>, %v: tensor<4x3x3x1xf16>) -> (tensor<1x5x5x4xf16>, tensor<4x3x3x1xf16>, tensor<1x5x5x4xf16>, tensor<1x5x5x8xf16>) {
  %w = kiln.constant dense<0.5> : tensor<4x3x3x1xf16>
  %g = kiln.constant dense<0.5> : tensor<4x3x3x2xf16>
  %m = kiln.constant dense<0.5> : tensor<8x3x3x1xf16>
  %a = kiln.conv %x, %w {dilations = array<i64: 1, 1>, group = 4 : i64, layout = "NHWC", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x5x5x4xf16>, tensor<4x3x3x1xf16> -> tensor<1x5x5x4xf16>
  %n = kiln.neg %w : tensor<4x3x3x1xf16> -> tensor<4x3x3x1xf16>
  %b = kiln.conv %x, %v {dilations = array<i64: 1, 1>, group = 4 : i64, layout = "NHWC", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x5x5x4xf16>, tensor<4x3x3x1xf16> -> tensor<1x5x5x4xf16>
  %c = kiln.conv %b, %g {dilations = array<i64: 1, 1>, group = 2 : i64, layout = "NHWC", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x5x5x4xf16>, tensor<4x3x3x2xf16> -> tensor<1x5x5x4xf16>
  %d = kiln.conv %x, %m {dilations = array<i64: 1, 1>, group = 4 : i64, layout = "NHWC", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x5x5x4xf16>, tensor<8x3x3x1xf16> -> tensor<1x5x5x8xf16>
  return %a, %n, %c, %d : tensor<1x5x5x4xf16>, tensor<4x3x3x1xf16>, tensor<1x5x5x4xf16>, tensor<1x5x5x8xf16>
}

// -----

// A weight the init program computes (here a neg of a constant): its
// result is transposed at the end of @kiln_init, and @main's data-less
// constant takes the stored type.
// INIT-LABEL: func.func @main
// INIT: %[[S:.+]] = kiln.constant {kiln.init_result = 0 : i64} dense_resource<kiln_init.0> : tensor<3x3x1x8xf16>
// INIT: %[[W:.+]] = kiln.transpose %[[S]] {perm = array<i64: 3, 0, 1, 2>} : tensor<3x3x1x8xf16> -> tensor<8x3x3x1xf16>
// INIT: kiln.conv %{{.+}}, %[[W]]
// INIT: func.func private @kiln_init() -> tensor<3x3x1x8xf16>
// INIT: %[[N:.+]] = kiln.neg
// INIT: %[[T:.+]] = kiln.transpose %[[N]] {perm = array<i64: 1, 2, 3, 0>} : tensor<8x3x3x1xf16> -> tensor<3x3x1x8xf16>
// INIT: return %[[T]]
func.func @main(%x: tensor<1x6x6x8xf16>) -> tensor<1x6x6x8xf16> {
  %w = kiln.constant dense<0.25> : tensor<8x3x3x1xf16>
  %n = kiln.neg %w : tensor<8x3x3x1xf16> -> tensor<8x3x3x1xf16>
  %c = kiln.conv %x, %n {dilations = array<i64: 1, 1>, group = 8 : i64, layout = "NHWC", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x6x6x8xf16>, tensor<8x3x3x1xf16> -> tensor<1x6x6x8xf16>
  return %c : tensor<1x6x6x8xf16>
}
