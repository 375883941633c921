// RUN: kiln-opt %s --split-input-file --verify-diagnostics
// Type-inference errors of the convolution, pooling and quantisation ops.

func.func @conv_channels(%x: tensor<1x4x8x8xf32>, %w: tensor<6x3x3x3xf32>) {
  // expected-error @+2 {{weight has 3 input channels, expected 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.conv %x, %w {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x8x8xf32>, tensor<6x3x3x3xf32> -> tensor<1x6x6x6xf32>
  return
}

// -----

func.func @conv_pads(%x: tensor<1x4x8x8xf32>, %w: tensor<6x4x3x3xf32>) {
  // expected-error @+2 {{expected 2 strides, dilations and 4 pads for 2 spatial dims}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.conv %x, %w {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x8x8xf32>, tensor<6x4x3x3xf32> -> tensor<1x6x6x6xf32>
  return
}

// -----

func.func @pool_too_small(%x: tensor<1x1x2x2xf32>) {
  // expected-error @+2 {{spatial dim 0 of size 2 is too small for the kernel}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.max_pool %x {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x1x2x2xf32> -> tensor<1x1x1x1xf32>
  return
}

// -----

func.func @pool_rank(%x: tensor<4x4xf32>) {
  // expected-error @+2 {{input must have 1 to 3 spatial dims (rank 3 to 5), got rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.average_pool %x {dilations = array<i64>, kernel_shape = array<i64>, pads = array<i64>, strides = array<i64>} : tensor<4x4xf32> -> tensor<4x4xf32>
  return
}

// -----

// A channels-last pool's result is [N, H', W', C], not NCHW.
func.func @pool_nhwc_result(%x: tensor<1x8x8x3xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<1x4x4x3xf32>' are incompatible with return type(s) of operation 'tensor<1x3x4x4xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.max_pool %x {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, layout = "NHWC", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<1x8x8x3xf32> -> tensor<1x3x4x4xf32>
  return
}

// -----

func.func @pool_nhwc_rank(%x: tensor<1x8x8xf32>) {
  // expected-error @+2 {{layout NHWC needs 4-D operands, got 'tensor<1x8x8xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.average_pool %x {dilations = array<i64: 1>, kernel_shape = array<i64: 2>, layout = "NHWC", pads = array<i64: 0, 0>, strides = array<i64: 2>} : tensor<1x8x8xf32> -> tensor<1x8x4xf32>
  return
}

// -----

func.func @pool_layout_name(%x: tensor<1x8x8x3xf32>) {
  // expected-error @+2 {{layout must be NCHW or NHWC, got NCWH}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.max_pool %x {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, layout = "NCWH", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<1x8x8x3xf32> -> tensor<1x8x4x1xf32>
  return
}

// -----

func.func @quantize_axis(%x: tensor<2x3xf32>, %s: tensor<4xf32>, %z: tensor<4xui8>) {
  // expected-error @+2 {{per-axis scale has 4 elements but dim 1 has 3}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.quantize_linear %x, %s, %z : tensor<2x3xf32>, tensor<4xf32>, tensor<4xui8> -> tensor<2x3xui8>
  return
}

// -----

func.func @dequantize_zero_type(%x: tensor<2x3xi8>, %s: tensor<f32>, %z: tensor<ui8>) {
  // expected-error @+2 {{zero_point must have the input's element type}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.dequantize_linear %x, %s, %z : tensor<2x3xi8>, tensor<f32>, tensor<ui8> -> tensor<2x3xf32>
  return
}
