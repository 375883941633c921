// Convolutions, pools and quantisation through the loop template: each output
// element loops over the window (and input channels) with padding tests;
// producers of a window op stay in kernels of their own. Every kernel also
// compiles with NVRTC.
// RUN: kiln-opt %s --kiln-fuse-kernels | FileCheck %s --check-prefix=FUSE
// RUN: kiln-translate %s --prepare --emit-cuda | FileCheck %s

// FUSE-LABEL: func.func @conv_relu
// FUSE:         kiln.kernel "relu_0" pointwise
// FUSE:           kiln.relu
// FUSE:         kiln.kernel "conv_1" pointwise
// FUSE-NOT:       kiln.relu
// FUSE:           kiln.conv
// FUSE:         kiln.kernel "relu_2" pointwise
// CHECK-LABEL:  kiln.kernel "conv_1"
// CHECK:          const float x{{[0-9]+}} = in2[(i / 16)];
// CHECK-NEXT:     float acc[[A:[0-9]+]] = x{{[0-9]+}};
// CHECK-NEXT:     const kiln_index_t cbase{{[0-9]+}} = ((i / 16) / 3) * 2;
// CHECK-NEXT:     for (kiln_index_t k[[K0:[0-9]+]] = 0; k[[K0]] < 3; ++k[[K0]]) {
// CHECK-NEXT:       const kiln_index_t q[[Q0:[0-9]+]] = ((i / 4) % 4) * 2 - 1 + k[[K0]] * 1;
// CHECK:              if (q[[Q0]] >= 0 && q[[Q0]] < 8 && q{{[0-9]+}} >= 0 && q{{[0-9]+}} < 7) {
// CHECK-NEXT:           for (kiln_index_t c{{[0-9]+}} = 0; c{{[0-9]+}} < 2; ++c{{[0-9]+}}) {
// CHECK:                  acc[[A]] += x{{[0-9]+}} * x{{[0-9]+}};
// CHECK:          out0[i] = acc[[A]];
func.func @conv_relu(%x: tensor<1x2x8x7xf32>, %w: tensor<3x2x3x3xf32>, %b: tensor<3xf32>) -> tensor<1x3x4x4xf32> {
  %r = kiln.relu %x : tensor<1x2x8x7xf32> -> tensor<1x2x8x7xf32>
  %c = kiln.conv %r, %w, %b {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<1x2x8x7xf32>, tensor<3x2x3x3xf32>, tensor<3xf32> -> tensor<1x3x4x4xf32>
  %y = kiln.relu %c : tensor<1x3x4x4xf32> -> tensor<1x3x4x4xf32>
  return %y : tensor<1x3x4x4xf32>
}

// A transposed convolution gathers: output o reads input (o + pad - k*d) / s
// when that divides exactly.
// CHECK-LABEL:  kiln.kernel "conv_transpose_0"
// CHECK:          if (t{{[0-9]+}} < 0 || t{{[0-9]+}} % 2 != 0) continue;
// CHECK:          if (p{{[0-9]+}} >= 3) continue;
func.func @conv_transpose(%x: tensor<1x1x3xf32>, %w: tensor<1x2x3xf32>) -> tensor<1x2x7xf32> {
  %c = kiln.conv_transpose %x, %w {dilations = array<i64: 1>, output_padding = array<i64: 0>, pads = array<i64: 0, 0>, strides = array<i64: 2>} : tensor<1x1x3xf32>, tensor<1x2x3xf32> -> tensor<1x2x7xf32>
  return %c : tensor<1x2x7xf32>
}

// MaxPool's indices: the first maximum wins, NaN propagates.
// CHECK-LABEL:  kiln.kernel "max_pool_indices_0"
// CHECK:          long long arg[[I:[0-9]+]] = -1LL;
// CHECK:          if (arg[[I]] < 0 || x[[X:[0-9]+]] > best{{[0-9]+}} || (x[[X]] != x[[X]] && best{{[0-9]+}} == best{{[0-9]+}})) {
// CHECK:          out0[i] = (long long)arg[[I]];
func.func @max_pool_indices(%x: tensor<1x1x5x5xf32>) -> tensor<1x1x2x2xi64> {
  %i = kiln.max_pool_indices %x {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<1x1x5x5xf32> -> tensor<1x1x2x2xi64>
  return %i : tensor<1x1x2x2xi64>
}

// AveragePool with count_include_pad counts the padded positions.
// CHECK-LABEL:  kiln.kernel "average_pool_0"
// CHECK:          if (q{{[0-9]+}} >= -1 && q{{[0-9]+}} < 6) ++n{{[0-9]+}};
// CHECK:          sum{{[0-9]+}} / (float)n{{[0-9]+}}
func.func @average_pool(%x: tensor<1x1x5xf32>) -> tensor<1x1x5xf32> {
  %a = kiln.average_pool %x {count_include_pad = true, dilations = array<i64: 1>, kernel_shape = array<i64: 3>, pads = array<i64: 1, 1>, strides = array<i64: 1>} : tensor<1x1x5xf32> -> tensor<1x1x5xf32>
  return %a : tensor<1x1x5xf32>
}

// A channels-last max pool of 8 f16 channels: the pool template gives each
// thread one output pixel x 8 channels, loaded as one 16-byte vector per
// window cell (vector i covers channels (i % 1) * 8...) and compared lane by
// lane in float with the elemental model's first-maximum/NaN rule.
// CHECK-LABEL:  kiln.kernel "max_pool_0"
// CHECK:          Channels-last max pool: 8 units of one output pixel x 8 channels (one 16-byte vector)
// CHECK:          const kiln_index_t cv = i % 1, pixel = i / 1;
// CHECK:          const kiln_index_t q0 = ((pixel / 2) % 2) * 2 - 0 + k0 * 1;
// CHECK:          const kiln_index_t q1 = (pixel % 2) * 2 - 0 + k1 * 1;
// CHECK:          const kiln_vec<__half, 8> x = reinterpret_cast<const kiln_vec<__half, 8>*>(in0)[((((pixel / 4)) * 5 + q0) * 4 + q1) * 1 + cv];
// CHECK:          if (!seen || v > best[l] || (v != v && best[l] == best[l])) best[l] = v;
// CHECK:          reinterpret_cast<kiln_vec<__half, 8>*>(out0)[i] = y;
func.func @max_pool_nhwc(%x: tensor<2x5x4x8xf16>) -> tensor<2x2x2x8xf16> {
  %m = kiln.max_pool %x {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, layout = "NHWC", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<2x5x4x8xf16> -> tensor<2x2x2x8xf16>
  return %m : tensor<2x2x2x8xf16>
}

// Three channels allow no vector: the elemental loop, one channel per
// thread; the output index is [n, h, w, c], so the channel is i % 3.
// CHECK-LABEL:  kiln.kernel "max_pool_0"
// CHECK-NOT:      Channels-last max pool
// CHECK:          const kiln_index_t q[[H:[0-9]+]] = ((i / 6) % 2) * 2 - 0 + k{{[0-9]+}} * 1;
// CHECK:          const kiln_index_t q[[W:[0-9]+]] = ((i / 3) % 2) * 2 - 0 + k{{[0-9]+}} * 1;
// CHECK:          in0[((((i / 12) * 5 + q[[H]]) * 4 + q[[W]]) * 3 + (i % 3))]
func.func @max_pool_nhwc_3_channels(%x: tensor<2x5x4x3xf16>) -> tensor<2x2x2x3xf16> {
  %m = kiln.max_pool %x {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, layout = "NHWC", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<2x5x4x3xf16> -> tensor<2x2x2x3xf16>
  return %m : tensor<2x2x2x3xf16>
}

// A channels-last average pool of 6 f32 channels: vectors of 2 (the widest
// that divides 6), fp32 sums, padded cells counted with count_include_pad.
// CHECK-LABEL:  kiln.kernel "average_pool_0"
// CHECK:          Channels-last average pool: 81 units of one output pixel x 2 channels (one 8-byte vector)
// CHECK:          const kiln_index_t cv = i % 3, pixel = i / 3;
// CHECK:          if (q0 >= -1 && q0 < 6 && q1 >= -1 && q1 < 5) ++count;
// CHECK:          const kiln_vec<float, 2> x = reinterpret_cast<const kiln_vec<float, 2>*>(in0)[((((pixel / 9)) * 5 + q0) * 4 + q1) * 3 + cv];
// CHECK:          sum[l] += v;
// CHECK:          for (int l = 0; l < 2; ++l) y.v[l] = sum[l] / (float)count;
func.func @average_pool_nhwc(%x: tensor<3x5x4x6xf32>) -> tensor<3x3x3x6xf32> {
  %a = kiln.average_pool %x {ceil_mode = true, count_include_pad = true, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>, layout = "NHWC"} : tensor<3x5x4x6xf32> -> tensor<3x3x3x6xf32>
  return %a : tensor<3x3x3x6xf32>
}

// Quantisation: x / scale, rint (half to even), + zero point, saturate.
// CHECK-LABEL:  kiln.kernel "quantize_linear_0"
// CHECK:          const double q[[Q:[0-9]+]] = rint((double)(x{{[0-9]+}} / {{.+}})) + (double){{.+}};
// CHECK-NEXT:     const long long v{{[0-9]+}} = (q[[Q]] != q[[Q]] ? 0LL : (long long)fmin(fmax(q[[Q]], 0.0), 255.0));
func.func @quantize(%x: tensor<8xf32>, %s: tensor<f32>, %z: tensor<ui8>) -> tensor<8xui8> {
  %q = kiln.quantize_linear %x, %s, %z : tensor<8xf32>, tensor<f32>, tensor<ui8> -> tensor<8xui8>
  return %q : tensor<8xui8>
}

// CHECK: // nvrtc: 10 kernels for sm_90
