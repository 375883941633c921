// RUN: kiln-opt %s --split-input-file --kiln-fuse-kernels | FileCheck %s

// An attention kernel takes the slices, reshapes and transposes that make
// q, k and v out of one merged projection (GPT-2's split into heads), and
// the transpose back to [b, s, h, d] after it: it reads and writes those
// layouts by strides, so the four copies disappear.
// CHECK-LABEL: func.func @merged_projection
// CHECK:         kiln.kernel "attention_0" attention ins(%arg0 : tensor<1x128x384xf16>) outs(%{{.+}} : tensor<1x128x2x64xf16>)
// CHECK-COUNT-3:   kiln.slice
// CHECK:           %[[O:.+]] = kiln.attention
// CHECK:           %[[T:.+]] = kiln.transpose %[[O]]
// CHECK:           kiln.yield %[[T]]
// CHECK-NOT:     kiln.kernel
func.func @merged_projection(%x: tensor<1x128x384xf16>) -> tensor<1x128x2x64xf16> {
  %axes = kiln.constant dense<2> : tensor<1xi64>
  %steps = kiln.constant dense<1> : tensor<1xi64>
  %s0 = kiln.constant dense<0> : tensor<1xi64>
  %s1 = kiln.constant dense<128> : tensor<1xi64>
  %s2 = kiln.constant dense<256> : tensor<1xi64>
  %s3 = kiln.constant dense<384> : tensor<1xi64>
  %heads = kiln.constant dense<[1, 128, 2, 64]> : tensor<4xi64>
  %qs = kiln.slice %x, %s0, %s1, %axes, %steps : tensor<1x128x384xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<1x128x128xf16>
  %ks = kiln.slice %x, %s1, %s2, %axes, %steps : tensor<1x128x384xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<1x128x128xf16>
  %vs = kiln.slice %x, %s2, %s3, %axes, %steps : tensor<1x128x384xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<1x128x128xf16>
  %qr = kiln.reshape %qs, %heads : tensor<1x128x128xf16>, tensor<4xi64> -> tensor<1x128x2x64xf16>
  %kr = kiln.reshape %ks, %heads : tensor<1x128x128xf16>, tensor<4xi64> -> tensor<1x128x2x64xf16>
  %vr = kiln.reshape %vs, %heads : tensor<1x128x128xf16>, tensor<4xi64> -> tensor<1x128x2x64xf16>
  %q = kiln.transpose %qr {perm = array<i64: 0, 2, 1, 3>} : tensor<1x128x2x64xf16> -> tensor<1x2x128x64xf16>
  %k = kiln.transpose %kr {perm = array<i64: 0, 2, 1, 3>} : tensor<1x128x2x64xf16> -> tensor<1x2x128x64xf16>
  %v = kiln.transpose %vr {perm = array<i64: 0, 2, 1, 3>} : tensor<1x128x2x64xf16> -> tensor<1x2x128x64xf16>
  %o = kiln.attention %q, %k, %v {scale = 0.125 : f32} : tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x128x64xf16>
  %t = kiln.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x128x64xf16> -> tensor<1x128x2x64xf16>
  return %t : tensor<1x128x2x64xf16>
}

// -----

// Not taken: a q whose rows start 4 elements off the 16-byte grid (the
// slice from column 4) keeps its copy kernel; a transpose that moves the
// head dim (o^T) keeps its transpose kernel; a v made by an add is computed
// in its own kernel. k, a transposed input, is read by strides.
// CHECK-LABEL: func.func @not_strided
// CHECK:         %[[Q:.+]] = kiln.kernel "slice_0" data_movement
// CHECK:         %[[V:.+]] = kiln.kernel "add_1" pointwise
// CHECK:         %[[O:.+]] = kiln.kernel "attention_2" attention ins(%arg1, %[[Q]], %[[V]] :
// CHECK:           kiln.transpose
// CHECK:           kiln.attention
// CHECK-NEXT:      kiln.yield
// CHECK:         kiln.kernel "transpose_3" transpose ins(%[[O]]
func.func @not_strided(%x: tensor<1x2x64x68xf16>, %kx: tensor<1x64x2x64xf16>, %v: tensor<1x2x64x64xf16>) -> tensor<1x2x64x64xf16> {
  %axes = kiln.constant dense<3> : tensor<1xi64>
  %steps = kiln.constant dense<1> : tensor<1xi64>
  %s4 = kiln.constant dense<4> : tensor<1xi64>
  %s68 = kiln.constant dense<68> : tensor<1xi64>
  %q = kiln.slice %x, %s4, %s68, %axes, %steps : tensor<1x2x64x68xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<1x2x64x64xf16>
  %k = kiln.transpose %kx {perm = array<i64: 0, 2, 1, 3>} : tensor<1x64x2x64xf16> -> tensor<1x2x64x64xf16>
  %va = kiln.add %v, %v : tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16> -> tensor<1x2x64x64xf16>
  %o = kiln.attention %q, %k, %va {scale = 0.125 : f32} : tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16>, tensor<1x2x64x64xf16> -> tensor<1x2x64x64xf16>
  %t = kiln.transpose %o {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x64x64xf16> -> tensor<1x2x64x64xf16>
  return %t : tensor<1x2x64x64xf16>
}

// -----

// nn.MultiheadAttention's view chains: q, k and v are slices of one
// projection [s, b, 3e] (s 4, b 2, e 16, 2 heads of 8), each split into
// heads as [s, b*h, d] (b and h merged although they are not contiguous),
// transposed and split again into [b, h, s, d]. Traced as runs of (size,
// stride), every operand is a strided view of the projection, so the
// kernel takes all the views, the shared reshape included.
// CHECK-LABEL: func.func @multihead_views
// CHECK:         kiln.kernel "attention_0" attention ins(%arg0 : tensor<4x2x48xf16>) outs(%{{.+}} : tensor<2x4x2x8xf16>)
// CHECK:           kiln.reshape
// CHECK-COUNT-3:   kiln.slice
// CHECK:           %[[O:.+]] = kiln.attention
// CHECK:           %[[T:.+]] = kiln.transpose %[[O]]
// CHECK:           kiln.yield %[[T]]
// CHECK-NOT:     kiln.kernel
func.func @multihead_views(%x: tensor<4x2x48xf16>) -> tensor<2x4x2x8xf16> {
  %three = kiln.constant dense<[4, 2, 3, 16]> : tensor<4xi64>
  %axis = kiln.constant dense<2> : tensor<1xi64>
  %step = kiln.constant dense<1> : tensor<1xi64>
  %s0 = kiln.constant dense<0> : tensor<1xi64>
  %s1 = kiln.constant dense<1> : tensor<1xi64>
  %s2 = kiln.constant dense<2> : tensor<1xi64>
  %s3 = kiln.constant dense<3> : tensor<1xi64>
  %heads = kiln.constant dense<[4, 4, 8]> : tensor<3xi64>
  %split = kiln.constant dense<[2, 2, 4, 8]> : tensor<4xi64>
  %r = kiln.reshape %x, %three : tensor<4x2x48xf16>, tensor<4xi64> -> tensor<4x2x3x16xf16>
  %qs = kiln.slice %r, %s0, %s1, %axis, %step : tensor<4x2x3x16xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<4x2x1x16xf16>
  %ks = kiln.slice %r, %s1, %s2, %axis, %step : tensor<4x2x3x16xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<4x2x1x16xf16>
  %vs = kiln.slice %r, %s2, %s3, %axis, %step : tensor<4x2x3x16xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<4x2x1x16xf16>
  %qh = kiln.reshape %qs, %heads : tensor<4x2x1x16xf16>, tensor<3xi64> -> tensor<4x4x8xf16>
  %kh = kiln.reshape %ks, %heads : tensor<4x2x1x16xf16>, tensor<3xi64> -> tensor<4x4x8xf16>
  %vh = kiln.reshape %vs, %heads : tensor<4x2x1x16xf16>, tensor<3xi64> -> tensor<4x4x8xf16>
  %qt = kiln.transpose %qh {perm = array<i64: 1, 0, 2>} : tensor<4x4x8xf16> -> tensor<4x4x8xf16>
  %kt = kiln.transpose %kh {perm = array<i64: 1, 0, 2>} : tensor<4x4x8xf16> -> tensor<4x4x8xf16>
  %vt = kiln.transpose %vh {perm = array<i64: 1, 0, 2>} : tensor<4x4x8xf16> -> tensor<4x4x8xf16>
  %q = kiln.reshape %qt, %split : tensor<4x4x8xf16>, tensor<4xi64> -> tensor<2x2x4x8xf16>
  %k = kiln.reshape %kt, %split : tensor<4x4x8xf16>, tensor<4xi64> -> tensor<2x2x4x8xf16>
  %v = kiln.reshape %vt, %split : tensor<4x4x8xf16>, tensor<4xi64> -> tensor<2x2x4x8xf16>
  %o = kiln.attention %q, %k, %v {scale = 0.125 : f32} : tensor<2x2x4x8xf16>, tensor<2x2x4x8xf16>, tensor<2x2x4x8xf16> -> tensor<2x2x4x8xf16>
  %t = kiln.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<2x2x4x8xf16> -> tensor<2x4x2x8xf16>
  return %t : tensor<2x4x2x8xf16>
}
