// The channels-last depthwise conv template (DepthwiseConvEmitter.cpp): up
// to 8 output pixels of a row x up to 4 channels per thread; per window row
// the weights (stored [R, S, 1, C] by kiln-pack-depthwise-weights, which
// --prepare runs) and each input column loaded and converted once, the
// columns into every tap that reads them; the epilogue lane by lane; NVRTC
// compiles it (kiln-translate without --no-compile). Tiled for one
// multiprocessor (512 threads), so that small convs show several pixels per
// thread.
// RUN: kiln-opt %s --kiln-pack-depthwise-weights --kiln-fuse-kernels --kiln-tile-kernels="multiprocessors=1" | kiln-translate --emit-cuda | FileCheck %s

// MobileNet-V2's 3x3 stride-2 conv with its bias and ReLU6: 24 f16
// channels, vectors of 4 (6 per pixel), the 8 output columns of a row per
// thread (576 threads), which read 17 input columns per window row.
// CHECK-LABEL: extern "C" __global__ void __launch_bounds__(128) kiln_pointwise_
// CHECK: // Channels-last depthwise conv 3x3: 576 units of 8 output pixels x 4 channels, {{.*}} 17 input columns, each loaded and converted once.
// CHECK: const kiln_index_t cv = i % 6, row = i / 6, ow = (i / 6) % 1 * 8;
// CHECK: const kiln_vec<__half, 4> bias = reinterpret_cast<const kiln_vec<__half, 4>*>(in2)[cv];
// CHECK: acc[p][3] = __half2float(bias.v[3]);
// CHECK: const kiln_index_t ih = oh * 2 - 1 + kh * 1;
// CHECK: const kiln_vec<__half, 4>* line = reinterpret_cast<const kiln_vec<__half, 4>*>(in1) + (n * 16 + ih) * 90 + cv;
// CHECK: const kiln_vec<__half, 4> wv = reinterpret_cast<const kiln_vec<__half, 4>*>(in0)[(kh * 3 + kw) * 6 + cv];
// CHECK: for (int l = 0; l < 4; ++l) w[kw][l] = __half2float(wv.v[l]);
// CHECK: const kiln_index_t iw = ow * 2 - 1 + t;
// CHECK: const kiln_vec<__half, 4> xv = kiln_load_or_zero(line + iw * 6, iw >= 0 && iw < 15);
// CHECK: for (int l = 0; l < 4; ++l) x[l] = __half2float(xv.v[l]);
// CHECK: const int d = t - kw * 1;
// CHECK: if (d >= 0 && d % 2 == 0 && d / 2 < 8) {
// CHECK: acc[d / 2][l] += x[l] * w[kw][l];
// CHECK: kiln_clip(acc[0][0], 0.0f, 6.0f)
// CHECK: kiln_clip(acc[0][3], 0.0f, 6.0f)
// CHECK: reinterpret_cast<kiln_vec<__half, 4>*>(out0)[first] = y0_0;
// CHECK-NOT: if (ow +
// CHECK: kiln_clip(acc[7][3], 0.0f, 6.0f)
// CHECK: reinterpret_cast<kiln_vec<__half, 4>*>(out0)[(first + 42)] = y0_7;
func.func @mobilenet_block(%x: tensor<12x16x15x24xf16>, %b: tensor<24xf16>) -> tensor<12x8x8x24xf16> {
  %w = kiln.constant dense<[[[[-0.375], [-0.25], [-0.125]], [[0.0], [0.125], [0.25]], [[0.375], [-0.375], [-0.25]]], [[[-0.125], [0.0], [0.125]], [[0.25], [0.375], [-0.375]], [[-0.25], [-0.125], [0.0]]], [[[0.125], [0.25], [0.375]], [[-0.375], [-0.25], [-0.125]], [[0.0], [0.125], [0.25]]], [[[0.375], [-0.375], [-0.25]], [[-0.125], [0.0], [0.125]], [[0.25], [0.375], [-0.375]]], [[[-0.25], [-0.125], [0.0]], [[0.125], [0.25], [0.375]], [[-0.375], [-0.25], [-0.125]]], [[[0.0], [0.125], [0.25]], [[0.375], [-0.375], [-0.25]], [[-0.125], [0.0], [0.125]]], [[[0.25], [0.375], [-0.375]], [[-0.25], [-0.125], [0.0]], [[0.125], [0.25], [0.375]]], [[[-0.375], [-0.25], [-0.125]], [[0.0], [0.125], [0.25]], [[0.375], [-0.375], [-0.25]]], [[[-0.125], [0.0], [0.125]], [[0.25], [0.375], [-0.375]], [[-0.25], [-0.125], [0.0]]], [[[0.125], [0.25], [0.375]], [[-0.375], [-0.25], [-0.125]], [[0.0], [0.125], [0.25]]], [[[0.375], [-0.375], [-0.25]], [[-0.125], [0.0], [0.125]], [[0.25], [0.375], [-0.375]]], [[[-0.25], [-0.125], [0.0]], [[0.125], [0.25], [0.375]], [[-0.375], [-0.25], [-0.125]]], [[[0.0], [0.125], [0.25]], [[0.375], [-0.375], [-0.25]], [[-0.125], [0.0], [0.125]]], [[[0.25], [0.375], [-0.375]], [[-0.25], [-0.125], [0.0]], [[0.125], [0.25], [0.375]]], [[[-0.375], [-0.25], [-0.125]], [[0.0], [0.125], [0.25]], [[0.375], [-0.375], [-0.25]]], [[[-0.125], [0.0], [0.125]], [[0.25], [0.375], [-0.375]], [[-0.25], [-0.125], [0.0]]], [[[0.125], [0.25], [0.375]], [[-0.375], [-0.25], [-0.125]], [[0.0], [0.125], [0.25]]], [[[0.375], [-0.375], [-0.25]], [[-0.125], [0.0], [0.125]], [[0.25], [0.375], [-0.375]]], [[[-0.25], [-0.125], [0.0]], [[0.125], [0.25], [0.375]], [[-0.375], [-0.25], [-0.125]]], [[[0.0], [0.125], [0.25]], [[0.375], [-0.375], [-0.25]], [[-0.125], [0.0], [0.125]]], [[[0.25], [0.375], [-0.375]], [[-0.25], [-0.125], [0.0]], [[0.125], [0.25], [0.375]]], [[[-0.375], [-0.25], [-0.125]], [[0.0], [0.125], [0.25]], [[0.375], [-0.375], [-0.25]]], [[[-0.125], [0.0], [0.125]], [[0.25], [0.375], [-0.375]], [[-0.25], [-0.125], [0.0]]], [[[0.125], [0.25], [0.375]], [[-0.375], [-0.25], [-0.125]], [[0.0], [0.125], [0.25]]]]> : tensor<24x3x3x1xf16>
  %c = kiln.conv %x, %w, %b {dilations = array<i64: 1, 1>, group = 24 : i64, layout = "NHWC", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<12x16x15x24xf16>, tensor<24x3x3x1xf16>, tensor<24xf16> -> tensor<12x8x8x24xf16>
  %lo = kiln.constant dense<0.0> : tensor<f16>
  %hi = kiln.constant dense<6.0> : tensor<f16>
  %y = kiln.clip %c, %lo, %hi : tensor<12x8x8x24xf16>, tensor<f16>, tensor<f16> -> tensor<12x8x8x24xf16>
  return %y : tensor<12x8x8x24xf16>
}

// 5 f32 channels have no vector of two: one channel per thread, still the
// stored weight; 12 output columns in groups of 6 would leave 480 threads,
// so the cap halves to 4 (groups of 4: 720 threads), which read 8 input
// columns per window row; no bias (accumulators from 0), a SiLU epilogue
// per pixel.
// CHECK-LABEL: extern "C" __global__ void __launch_bounds__(128) kiln_pointwise_
// CHECK: // Channels-last depthwise conv 5x5: 720 units of 4 output pixels x 1 channels, {{.*}} 8 input columns, each loaded and converted once.
// CHECK: const kiln_index_t cv = i % 5, row = i / 15, ow = (i / 5) % 3 * 4;
// CHECK: acc[p][0] = 0.0f;
// CHECK: const kiln_vec<float, 1> wv = reinterpret_cast<const kiln_vec<float, 1>*>(in0)[(kh * 5 + kw) * 5 + cv];
// CHECK: const kiln_vec<float, 1> xv = kiln_load_or_zero(line + iw * 5, iw >= 0 && iw < 12);
// CHECK: if (d >= 0 && d % 1 == 0 && d / 1 < 4) {
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

// ConvNeXt's 7x7 pad 3 with a residual added after it: 8 f16 channels,
// vectors of 4 (2 per pixel); 20 output columns in groups of 7, 7 and 6
// (the cap of 8 pixels kept: 528 threads), 13 input columns per window row;
// the third group's seventh pixel is past the row: its epilogue (the
// residual's read) and store are skipped.
// CHECK-LABEL: extern "C" __global__ void __launch_bounds__(128) kiln_pointwise_
// CHECK: // Channels-last depthwise conv 7x7: 528 units of 7 output pixels x 4 channels, {{.*}} 13 input columns, each loaded and converted once.
// CHECK: const kiln_index_t cv = i % 2, row = i / 6, ow = (i / 2) % 3 * 7;
// CHECK: for (int t = 0; t < 13; ++t) {
// CHECK: acc[d / 1][l] += x[l] * w[kw][l];
// CHECK: reinterpret_cast<kiln_vec<__half, 4>*>(out0)[first] = y0_0;
// CHECK: if (ow + 6 < 20) {
// CHECK: reinterpret_cast<kiln_vec<__half, 4>*>(out0)[(first + 12)] = y0_6;
func.func @convnext_block(%x: tensor<4x22x20x8xf16>, %b: tensor<8xf16>, %r: tensor<4x22x20x8xf16>) -> tensor<4x22x20x8xf16> {
  %w = kiln.constant dense<[[[[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]], [[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]], [[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]], [[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]], [[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]], [[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]], [[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]]], [[[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]], [[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]], [[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]], [[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]], [[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]], [[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]], [[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]]], [[[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]], [[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]], [[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]], [[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]], [[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]], [[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]], [[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]]], [[[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]], [[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]], [[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]], [[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]], [[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]], [[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]], [[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]]], [[[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]], [[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]], [[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]], [[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]], [[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]], [[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]], [[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]]], [[[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]], [[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]], [[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]], [[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]], [[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]], [[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]], [[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]]], [[[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]], [[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]], [[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]], [[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]], [[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]], [[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]], [[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]]], [[[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]], [[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]], [[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]], [[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]], [[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]], [[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]], [[-0.375], [0.0], [0.375], [-0.125], [0.25], [-0.25], [0.125]]]]> : tensor<8x7x7x1xf16>
  %c = kiln.conv %x, %w, %b {dilations = array<i64: 1, 1>, group = 8 : i64, layout = "NHWC", pads = array<i64: 3, 3, 3, 3>, strides = array<i64: 1, 1>} : tensor<4x22x20x8xf16>, tensor<8x7x7x1xf16>, tensor<8xf16> -> tensor<4x22x20x8xf16>
  %y = kiln.add %c, %r : tensor<4x22x20x8xf16>, tensor<4x22x20x8xf16> -> tensor<4x22x20x8xf16>
  return %y : tensor<4x22x20x8xf16>
}
