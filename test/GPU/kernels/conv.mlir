// GPU kernel tests of convolutions, pools and quantisation (unfused functions:
// kiln-translate runs kiln-fuse-kernels and kiln-tile-kernels). The expected
// outputs come from the CPU evaluator.
// RUN: rm -rf %t && kiln-translate %s --kernel-test-bundle %t | FileCheck %s
// CHECK: wrote case conv.conv2d_group_bias_relu
// CHECK: wrote case conv.conv1d_dilated_i32
// CHECK: wrote case conv.conv_transpose_2d
// CHECK: wrote case conv.conv3d_same
// CHECK: wrote case conv.pools_2d
// CHECK: wrote case conv.pools_2d_nhwc_f16
// CHECK: wrote case conv.average_pool_nhwc
// CHECK: wrote case conv.global_average_pool_nhwc
// CHECK: wrote case conv.quantize_roundtrip
// CHECK: wrote case conv.max_pool_nhwc_f16_c64
// CHECK: wrote case conv.max_pool_nhwc_f16_c3
// CHECK: wrote case conv.average_pool_nhwc_f16

// Grouped strided conv with bias, relu in its own kernel (no epilogue fusion).
func.func @conv2d_group_bias_relu(%x: tensor<2x4x17x15xf32>, %w: tensor<6x2x3x3xf32>, %b: tensor<6xf32>) -> tensor<2x6x9x8xf32> {
  %c = kiln.conv %x, %w, %b {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<2x4x17x15xf32>, tensor<6x2x3x3xf32>, tensor<6xf32> -> tensor<2x6x9x8xf32>
  %r = kiln.relu %c : tensor<2x6x9x8xf32> -> tensor<2x6x9x8xf32>
  return %r : tensor<2x6x9x8xf32>
}

// Integer conv with dilation and asymmetric padding (wrapping i32 sums).
func.func @conv1d_dilated_i32(%x: tensor<3x2x50xi32> {kiln.test_range = [-20.0, 20.0]}, %w: tensor<5x2x4xi32> {kiln.test_range = [-5.0, 5.0]}) -> tensor<3x5x22xi32> {
  %c = kiln.conv %x, %w {dilations = array<i64: 3>, pads = array<i64: 2, 1>, strides = array<i64: 2>} : tensor<3x2x50xi32>, tensor<5x2x4xi32> -> tensor<3x5x22xi32>
  return %c : tensor<3x5x22xi32>
}

func.func @conv_transpose_2d(%x: tensor<1x4x5x6xf32>, %w: tensor<4x3x3x2xf32>, %b: tensor<6xf32>) -> tensor<1x6x11x12xf32> {
  %c = kiln.conv_transpose %x, %w, %b {dilations = array<i64: 1, 2>, group = 2 : i64, output_padding = array<i64: 1, 0>, pads = array<i64: 0, 1, 1, 0>, strides = array<i64: 2, 2>} : tensor<1x4x5x6xf32>, tensor<4x3x3x2xf32>, tensor<6xf32> -> tensor<1x6x11x12xf32>
  return %c : tensor<1x6x11x12xf32>
}

func.func @conv3d_same(%x: tensor<1x2x5x6x7xf32>, %w: tensor<3x2x3x3x3xf32>) -> tensor<1x3x5x6x7xf32> {
  %c = kiln.conv %x, %w {dilations = array<i64: 1, 1, 1>, pads = array<i64: 1, 1, 1, 1, 1, 1>, strides = array<i64: 1, 1, 1>} : tensor<1x2x5x6x7xf32>, tensor<3x2x3x3x3xf32> -> tensor<1x3x5x6x7xf32>
  return %c : tensor<1x3x5x6x7xf32>
}

// Max (ceil_mode), its indices (column-major) and average with padding.
func.func @pools_2d(%x: tensor<2x3x33x31xf32>) -> (tensor<2x3x17x16xf32>, tensor<2x3x17x16xi64>, tensor<2x3x17x16xf32>) {
  %m = kiln.max_pool %x {ceil_mode = true, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<2x3x33x31xf32> -> tensor<2x3x17x16xf32>
  %i = kiln.max_pool_indices %x {ceil_mode = true, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, storage_order = 1 : i64, strides = array<i64: 2, 2>} : tensor<2x3x33x31xf32> -> tensor<2x3x17x16xi64>
  %a = kiln.average_pool %x {ceil_mode = true, count_include_pad = true, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<2x3x33x31xf32> -> tensor<2x3x17x16xf32>
  return %m, %i, %a : tensor<2x3x17x16xf32>, tensor<2x3x17x16xi64>, tensor<2x3x17x16xf32>
}

// Channels-last pools (kiln-assign-layout's form): threads run along the
// channels; 40 channels leave a partial warp per pixel. The ResNet stem's
// relu -> 3x3/2 max pool, and a ceil_mode max pool with dilation.
func.func @pools_2d_nhwc_f16(%x: tensor<2x19x17x40xf16>) -> (tensor<2x10x9x40xf16>, tensor<2x10x9x40xf16>) {
  %r = kiln.relu %x : tensor<2x19x17x40xf16> -> tensor<2x19x17x40xf16>
  %m = kiln.max_pool %r {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, layout = "NHWC", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<2x19x17x40xf16> -> tensor<2x10x9x40xf16>
  %d = kiln.max_pool %x {ceil_mode = true, dilations = array<i64: 2, 1>, kernel_shape = array<i64: 2, 3>, layout = "NHWC", pads = array<i64: 0, 1, 1, 0>, strides = array<i64: 2, 2>} : tensor<2x19x17x40xf16> -> tensor<2x10x9x40xf16>
  return %m, %d : tensor<2x10x9x40xf16>, tensor<2x10x9x40xf16>
}

// Channels-last average pools, padding counted or not, ceil_mode.
func.func @average_pool_nhwc(%x: tensor<3x13x11x33xf32>) -> (tensor<3x7x6x33xf32>, tensor<3x7x6x33xf32>) {
  %a = kiln.average_pool %x {ceil_mode = true, count_include_pad = true, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>, layout = "NHWC"} : tensor<3x13x11x33xf32> -> tensor<3x7x6x33xf32>
  %b = kiln.average_pool %x {ceil_mode = true, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>, layout = "NHWC"} : tensor<3x13x11x33xf32> -> tensor<3x7x6x33xf32>
  return %a, %b : tensor<3x7x6x33xf32>, tensor<3x7x6x33xf32>
}

// ResNet's head in NHWC: add + relu, the mean over H and W (axes [1, 2]),
// the [N, 1, 1, C] result viewed as [N, C].
func.func @global_average_pool_nhwc(%a: tensor<4x7x7x96xf16>, %b: tensor<4x7x7x96xf16>) -> tensor<4x96xf16> {
  %axes = kiln.constant dense<[1, 2]> : tensor<2xi64>
  %shape = kiln.constant dense<[4, 96]> : tensor<2xi64>
  %s = kiln.add %a, %b : tensor<4x7x7x96xf16>, tensor<4x7x7x96xf16> -> tensor<4x7x7x96xf16>
  %r = kiln.relu %s : tensor<4x7x7x96xf16> -> tensor<4x7x7x96xf16>
  %m = kiln.reduce_mean %r, %axes : tensor<4x7x7x96xf16>, tensor<2xi64> -> tensor<4x1x1x96xf16>
  %v = kiln.reshape %m, %shape : tensor<4x1x1x96xf16>, tensor<2xi64> -> tensor<4x96xf16>
  return %v : tensor<4x96xf16>
}

// Per-axis quantisation to int8 and back (saturating, half to even).
func.func @quantize_roundtrip(%x: tensor<16x4x4097xf32> {kiln.test_range = [-40.0, 40.0]}) -> tensor<16x4x4097xf32> {
  %s = kiln.constant dense<[0.1, 0.25, 0.5, 1.0]> : tensor<4xf32>
  %z = kiln.constant dense<[0, -3, 7, 100]> : tensor<4xi8>
  %q = kiln.quantize_linear %x, %s, %z : tensor<16x4x4097xf32>, tensor<4xf32>, tensor<4xi8> -> tensor<16x4x4097xi8>
  %d = kiln.dequantize_linear %q, %s, %z : tensor<16x4x4097xi8>, tensor<4xf32>, tensor<4xi8> -> tensor<16x4x4097xf32>
  return %d : tensor<16x4x4097xf32>
}

// The ResNet stem's max pool (3x3, stride 2, pad 1) on 64 f16 channels: the
// pool template, a pixel x 8 channels per thread in 16-byte vectors; the
// odd spatial sizes leave partial windows on every border. Exact.
func.func @max_pool_nhwc_f16_c64(%x: tensor<2x21x19x64xf16>) -> tensor<2x11x10x64xf16>
    attributes {kiln.test_tolerance = [0.0, 0.0]} {
  %m = kiln.max_pool %x {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, layout = "NHWC", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<2x21x19x64xf16> -> tensor<2x11x10x64xf16>
  return %m : tensor<2x11x10x64xf16>
}

// Three channels allow no vector: the elemental loop. Exact.
func.func @max_pool_nhwc_f16_c3(%x: tensor<2x21x19x3xf16>) -> tensor<2x11x10x3xf16>
    attributes {kiln.test_tolerance = [0.0, 0.0]} {
  %m = kiln.max_pool %x {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, layout = "NHWC", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<2x21x19x3xf16> -> tensor<2x11x10x3xf16>
  return %m : tensor<2x11x10x3xf16>
}

// Channels-last f16 average pools on 24 channels (vectors of 8), padding
// counted or not, ceil_mode; fp32 sums as the elemental form.
func.func @average_pool_nhwc_f16(%x: tensor<2x13x11x24xf16>) -> (tensor<2x7x6x24xf16>, tensor<2x7x6x24xf16>) {
  %a = kiln.average_pool %x {ceil_mode = true, count_include_pad = true, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>, layout = "NHWC"} : tensor<2x13x11x24xf16> -> tensor<2x7x6x24xf16>
  %b = kiln.average_pool %x {ceil_mode = true, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>, layout = "NHWC"} : tensor<2x13x11x24xf16> -> tensor<2x7x6x24xf16>
  return %a, %b : tensor<2x7x6x24xf16>, tensor<2x7x6x24xf16>
}
