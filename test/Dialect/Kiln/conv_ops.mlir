// RUN: kiln-opt %s --split-input-file | kiln-opt --split-input-file | FileCheck %s
// Round trip and type inference of the convolution, pooling and quantisation ops.

// CHECK-LABEL: func.func @conv
func.func @conv(%x: tensor<?x4x8x8xf32>, %w: tensor<6x2x3x3xf32>, %b: tensor<6xf32>) -> tensor<?x6x4x4xf32> {
  // CHECK: kiln.conv %{{.*}}, %{{.*}}, %{{.*}} {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<?x4x8x8xf32>, tensor<6x2x3x3xf32>, tensor<6xf32> -> tensor<?x6x4x4xf32>
  %0 = kiln.conv %x, %w, %b {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<?x4x8x8xf32>, tensor<6x2x3x3xf32>, tensor<6xf32> -> tensor<?x6x4x4xf32>
  return %0 : tensor<?x6x4x4xf32>
}

// -----

// CHECK-LABEL: func.func @conv_1d_integer
func.func @conv_1d_integer(%x: tensor<1x1x5xi32>, %w: tensor<1x1x2xi32>) -> tensor<1x1x2xi32> {
  // CHECK: kiln.conv {{.*}} : tensor<1x1x5xi32>, tensor<1x1x2xi32> -> tensor<1x1x2xi32>
  %0 = kiln.conv %x, %w {dilations = array<i64: 2>, pads = array<i64: 0, 0>, strides = array<i64: 2>} : tensor<1x1x5xi32>, tensor<1x1x2xi32> -> tensor<1x1x2xi32>
  return %0 : tensor<1x1x2xi32>
}

// -----

// CHECK-LABEL: func.func @conv_transpose
func.func @conv_transpose(%x: tensor<1x2x3x3xf32>, %w: tensor<2x3x3x3xf32>) -> tensor<1x3x10x10xf32> {
  // CHECK: kiln.conv_transpose {{.*}}output_padding = array<i64: 1, 1>{{.*}} -> tensor<1x3x10x10xf32>
  %0 = kiln.conv_transpose %x, %w {dilations = array<i64: 1, 1>, output_padding = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 3, 3>} : tensor<1x2x3x3xf32>, tensor<2x3x3x3xf32> -> tensor<1x3x10x10xf32>
  return %0 : tensor<1x3x10x10xf32>
}

// -----

// CHECK-LABEL: func.func @pools
func.func @pools(%x: tensor<1x3x5x5xf32>) -> (tensor<1x3x3x3xf32>, tensor<1x3x3x3xi64>, tensor<1x3x2x2xf32>) {
  // CHECK: kiln.max_pool {{.*}}ceil_mode = true{{.*}} : tensor<1x3x5x5xf32> -> tensor<1x3x2x2xf32>
  %0 = kiln.max_pool %x {ceil_mode = true, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<1x3x5x5xf32> -> tensor<1x3x2x2xf32>
  // CHECK: kiln.max_pool_indices {{.*}}storage_order = 1 : i64{{.*}} : tensor<1x3x5x5xf32> -> tensor<1x3x3x3xi64>
  %1 = kiln.max_pool_indices %x {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, storage_order = 1 : i64, strides = array<i64: 2, 2>} : tensor<1x3x5x5xf32> -> tensor<1x3x3x3xi64>
  // CHECK: kiln.average_pool {{.*}}count_include_pad = true{{.*}} -> tensor<1x3x3x3xf32>
  %2 = kiln.average_pool %x {count_include_pad = true, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<1x3x5x5xf32> -> tensor<1x3x3x3xf32>
  return %2, %1, %0 : tensor<1x3x3x3xf32>, tensor<1x3x3x3xi64>, tensor<1x3x2x2xf32>
}

// -----

// Channels-last pools: [N, H, W, C] in, [N, H', W', C] out.
// CHECK-LABEL: func.func @pools_nhwc
func.func @pools_nhwc(%x: tensor<2x5x7x3xf16>) -> (tensor<2x3x4x3xf16>, tensor<2x2x3x3xf16>) {
  // CHECK: kiln.max_pool {{.*}}layout = "NHWC"{{.*}} : tensor<2x5x7x3xf16> -> tensor<2x3x4x3xf16>
  %0 = kiln.max_pool %x {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, layout = "NHWC", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<2x5x7x3xf16> -> tensor<2x3x4x3xf16>
  // CHECK: kiln.average_pool {{.*}}layout = "NHWC"{{.*}} : tensor<2x5x7x3xf16> -> tensor<2x2x3x3xf16>
  %1 = kiln.average_pool %x {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, layout = "NHWC", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<2x5x7x3xf16> -> tensor<2x2x3x3xf16>
  return %0, %1 : tensor<2x3x4x3xf16>, tensor<2x2x3x3xf16>
}

// -----

// CHECK-LABEL: func.func @quantize
func.func @quantize(%x: tensor<2x3xf32>, %s: tensor<3xf32>, %z: tensor<3xi8>) -> tensor<2x3xf32> {
  // CHECK: kiln.quantize_linear {{.*}} : tensor<2x3xf32>, tensor<3xf32>, tensor<3xi8> -> tensor<2x3xi8>
  %0 = kiln.quantize_linear %x, %s, %z : tensor<2x3xf32>, tensor<3xf32>, tensor<3xi8> -> tensor<2x3xi8>
  // CHECK: kiln.dequantize_linear {{.*}} : tensor<2x3xi8>, tensor<3xf32>, tensor<3xi8> -> tensor<2x3xf32>
  %1 = kiln.dequantize_linear %0, %s, %z {axis = -1 : i64} : tensor<2x3xi8>, tensor<3xf32>, tensor<3xi8> -> tensor<2x3xf32>
  return %1 : tensor<2x3xf32>
}
