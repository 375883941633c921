// The channels-last depthwise conv template (DepthwiseConvEmitter.cpp): an
// output pixel x 16 bytes of channels per thread, input and weight (stored
// [R, S, 1, C] by kiln-pack-depthwise-weights, which --prepare runs) read
// as one vector per window cell, the epilogue lane by lane; NVRTC compiles
// it (kiln-translate without --no-compile). Tiled for one multiprocessor,
// so that small convs show several pixels per thread.
// RUN: kiln-opt %s --kiln-pack-depthwise-weights --kiln-fuse-kernels --kiln-tile-kernels="multiprocessors=1" | kiln-translate --emit-cuda | FileCheck %s

// MobileNet-V2's 3x3 stride-2 conv with its bias and ReLU6: 24 f16
// channels, vectors of 8 (3 per pixel), one pixel per thread (stride 2).
// CHECK-LABEL: extern "C" __global__ void __launch_bounds__(256) kiln_pointwise_
// CHECK: // Channels-last depthwise conv 3x3: 384 units of 1 output pixel x 8 channels, {{.*}} 3 input columns per window row.
// CHECK: const kiln_index_t cv = i % 3, row = i / 24, ow = (i / 3) % 8 * 1;
// CHECK: const kiln_vec<__half, 8> bias = reinterpret_cast<const kiln_vec<__half, 8>*>(in2)[cv];
// CHECK: acc[p][7] = __half2float(bias.v[7]);
// CHECK: const kiln_index_t ih = oh * 2 - 1 + kh * 1;
// CHECK: const kiln_index_t iw = ow * 2 - 1 + t;
// CHECK: if (inside[t]) x[t] = reinterpret_cast<const kiln_vec<__half, 8>*>(in1)[(line + iw) * 3 + cv];
// CHECK: const kiln_vec<__half, 8> w = reinterpret_cast<const kiln_vec<__half, 8>*>(in0)[(kh * 3 + kw) * 3 + cv];
// CHECK: for (int l = 0; l < 8; ++l) acc[p][l] += __half2float(x[p * 2 + kw * 1].v[l]) * __half2float(w.v[l]);
// CHECK: kiln_clip(acc[0][0], 0.0f, 6.0f)
// CHECK: kiln_clip(acc[0][7], 0.0f, 6.0f)
// CHECK: reinterpret_cast<kiln_vec<__half, 8>*>(out0)[first] = y0_0;
func.func @mobilenet_block(%x: tensor<2x16x15x24xf16>, %b: tensor<24xf16>) -> tensor<2x8x8x24xf16> {
  %w = kiln.constant dense<[[[[-0.375], [-0.25], [-0.125]], [[0.0], [0.125], [0.25]], [[0.375], [-0.375], [-0.25]]], [[[-0.125], [0.0], [0.125]], [[0.25], [0.375], [-0.375]], [[-0.25], [-0.125], [0.0]]], [[[0.125], [0.25], [0.375]], [[-0.375], [-0.25], [-0.125]], [[0.0], [0.125], [0.25]]], [[[0.375], [-0.375], [-0.25]], [[-0.125], [0.0], [0.125]], [[0.25], [0.375], [-0.375]]], [[[-0.25], [-0.125], [0.0]], [[0.125], [0.25], [0.375]], [[-0.375], [-0.25], [-0.125]]], [[[0.0], [0.125], [0.25]], [[0.375], [-0.375], [-0.25]], [[-0.125], [0.0], [0.125]]], [[[0.25], [0.375], [-0.375]], [[-0.25], [-0.125], [0.0]], [[0.125], [0.25], [0.375]]], [[[-0.375], [-0.25], [-0.125]], [[0.0], [0.125], [0.25]], [[0.375], [-0.375], [-0.25]]], [[[-0.125], [0.0], [0.125]], [[0.25], [0.375], [-0.375]], [[-0.25], [-0.125], [0.0]]], [[[0.125], [0.25], [0.375]], [[-0.375], [-0.25], [-0.125]], [[0.0], [0.125], [0.25]]], [[[0.375], [-0.375], [-0.25]], [[-0.125], [0.0], [0.125]], [[0.25], [0.375], [-0.375]]], [[[-0.25], [-0.125], [0.0]], [[0.125], [0.25], [0.375]], [[-0.375], [-0.25], [-0.125]]], [[[0.0], [0.125], [0.25]], [[0.375], [-0.375], [-0.25]], [[-0.125], [0.0], [0.125]]], [[[0.25], [0.375], [-0.375]], [[-0.25], [-0.125], [0.0]], [[0.125], [0.25], [0.375]]], [[[-0.375], [-0.25], [-0.125]], [[0.0], [0.125], [0.25]], [[0.375], [-0.375], [-0.25]]], [[[-0.125], [0.0], [0.125]], [[0.25], [0.375], [-0.375]], [[-0.25], [-0.125], [0.0]]], [[[0.125], [0.25], [0.375]], [[-0.375], [-0.25], [-0.125]], [[0.0], [0.125], [0.25]]], [[[0.375], [-0.375], [-0.25]], [[-0.125], [0.0], [0.125]], [[0.25], [0.375], [-0.375]]], [[[-0.25], [-0.125], [0.0]], [[0.125], [0.25], [0.375]], [[-0.375], [-0.25], [-0.125]]], [[[0.0], [0.125], [0.25]], [[0.375], [-0.375], [-0.25]], [[-0.125], [0.0], [0.125]]], [[[0.25], [0.375], [-0.375]], [[-0.25], [-0.125], [0.0]], [[0.125], [0.25], [0.375]]], [[[-0.375], [-0.25], [-0.125]], [[0.0], [0.125], [0.25]], [[0.375], [-0.375], [-0.25]]], [[[-0.125], [0.0], [0.125]], [[0.25], [0.375], [-0.375]], [[-0.25], [-0.125], [0.0]]], [[[0.125], [0.25], [0.375]], [[-0.375], [-0.25], [-0.125]], [[0.0], [0.125], [0.25]]]]> : tensor<24x3x3x1xf16>
  %c = kiln.conv %x, %w, %b {dilations = array<i64: 1, 1>, group = 24 : i64, layout = "NHWC", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<2x16x15x24xf16>, tensor<24x3x3x1xf16>, tensor<24xf16> -> tensor<2x8x8x24xf16>
  %lo = kiln.constant dense<0.0> : tensor<f16>
  %hi = kiln.constant dense<6.0> : tensor<f16>
  %y = kiln.clip %c, %lo, %hi : tensor<2x8x8x24xf16>, tensor<f16>, tensor<f16> -> tensor<2x8x8x24xf16>
  return %y : tensor<2x8x8x24xf16>
}

// 5 f32 channels have no vector of two: one channel per thread, still the
// stored weight; stride 1 and 12 output columns allow 4 adjacent pixels per
// thread, halved to 2 to keep 1024 threads (1440 units); they read 6 input
// columns per window row; no bias (accumulators from 0), a SiLU epilogue
// per pixel.
// CHECK-LABEL: extern "C" __global__ void __launch_bounds__(256) kiln_pointwise_
// CHECK: // Channels-last depthwise conv 5x5: 1440 units of 2 output pixels x 1 channels, {{.*}} 6 input columns per window row.
// CHECK: const kiln_index_t cv = i % 5, row = i / 30, ow = (i / 5) % 6 * 2;
// CHECK: acc[p][0] = 0.0f;
// CHECK: const kiln_vec<float, 1> w = reinterpret_cast<const kiln_vec<float, 1>*>(in0)[(kh * 5 + kw) * 5 + cv];
// CHECK: if (inside[p * 1 + kw * 1]) {
// CHECK: kiln_sigmoid(acc[0][0])
// CHECK: reinterpret_cast<kiln_vec<float, 1>*>(out0)[first] = y0_0;
// CHECK: kiln_sigmoid(acc[1][0])
// CHECK: reinterpret_cast<kiln_vec<float, 1>*>(out0)[(first + 5)] = y0_1;
func.func @odd_channels_f32(%x: tensor<4x12x12x5xf32>) -> tensor<4x12x12x5xf32> {
  %w = kiln.constant dense<[[[[-0.75], [-0.5], [-0.25], [0.0], [0.25]], [[0.5], [0.75], [-0.75], [-0.5], [-0.25]], [[0.0], [0.25], [0.5], [0.75], [-0.75]], [[-0.5], [-0.25], [0.0], [0.25], [0.5]], [[0.75], [-0.75], [-0.5], [-0.25], [0.0]]], [[[0.25], [0.5], [0.75], [-0.75], [-0.5]], [[-0.25], [0.0], [0.25], [0.5], [0.75]], [[-0.75], [-0.5], [-0.25], [0.0], [0.25]], [[0.5], [0.75], [-0.75], [-0.5], [-0.25]], [[0.0], [0.25], [0.5], [0.75], [-0.75]]], [[[-0.5], [-0.25], [0.0], [0.25], [0.5]], [[0.75], [-0.75], [-0.5], [-0.25], [0.0]], [[0.25], [0.5], [0.75], [-0.75], [-0.5]], [[-0.25], [0.0], [0.25], [0.5], [0.75]], [[-0.75], [-0.5], [-0.25], [0.0], [0.25]]], [[[0.5], [0.75], [-0.75], [-0.5], [-0.25]], [[0.0], [0.25], [0.5], [0.75], [-0.75]], [[-0.5], [-0.25], [0.0], [0.25], [0.5]], [[0.75], [-0.75], [-0.5], [-0.25], [0.0]], [[0.25], [0.5], [0.75], [-0.75], [-0.5]]], [[[-0.25], [0.0], [0.25], [0.5], [0.75]], [[-0.75], [-0.5], [-0.25], [0.0], [0.25]], [[0.5], [0.75], [-0.75], [-0.5], [-0.25]], [[0.0], [0.25], [0.5], [0.75], [-0.75]], [[-0.5], [-0.25], [0.0], [0.25], [0.5]]]]> : tensor<5x5x5x1xf32>
  %c = kiln.conv %x, %w {dilations = array<i64: 1, 1>, group = 5 : i64, layout = "NHWC", pads = array<i64: 2, 2, 2, 2>, strides = array<i64: 1, 1>} : tensor<4x12x12x5xf32>, tensor<5x5x5x1xf32> -> tensor<4x12x12x5xf32>
  %s = kiln.sigmoid %c : tensor<4x12x12x5xf32> -> tensor<4x12x12x5xf32>
  %y = kiln.mul %c, %s : tensor<4x12x12x5xf32>, tensor<4x12x12x5xf32> -> tensor<4x12x12x5xf32>
  return %y : tensor<4x12x12x5xf32>
}
