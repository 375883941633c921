// nn.MultiheadAttention's view chain (torchvision's ViT after
// kiln-move-row-permutations): q, k and v out of the in-projection [b, s, 3e]
// (b 2, s 8, e 32, 2 heads of 16) through [s, b, 3, e], MHA's
// unsqueeze/transpose/squeeze, a slice each, [s, b*h, d] (b and h merged,
// not contiguous), a transpose and [b, h, s, d]. Traced as (size, stride)
// runs, each operand is the projection read at strides [s*3e, d, 3e, 1]
// (768, 16, 96, 1) from column 0, 32 and 64; the output is written as
// [b, s, h, d].
// RUN: kiln-opt %s --kiln-fuse-kernels --kiln-tile-kernels | kiln-translate --emit-cuda | FileCheck %s

// CHECK-LABEL: void __launch_bounds__(128) kiln_attention_
// CHECK:         const __half *q = in0 + (kiln_index_t)((b / 2)) * 768 + (kiln_index_t)((b % 2)) * 16;
// CHECK-NEXT:    const __half *k = in0 + 32 + (kiln_index_t)((b / 2)) * 768 + (kiln_index_t)((b % 2)) * 16;
// CHECK-NEXT:    const __half *v = in0 + 64 + (kiln_index_t)((b / 2)) * 768 + (kiln_index_t)((b % 2)) * 16;
// CHECK:         k + (valid ? key : 0) * 96 + col
// CHECK:         q + row0 * 96 + col
func.func @main(%x: tensor<2x8x96xf16>) -> tensor<2x8x2x16xf16> {
  %split3 = kiln.constant dense<[2, 8, 3, 32]> : tensor<4xi64>
  %c0 = kiln.constant dense<0> : tensor<1xi64>
  %c1 = kiln.constant dense<1> : tensor<1xi64>
  %c2 = kiln.constant dense<2> : tensor<1xi64>
  %c3 = kiln.constant dense<3> : tensor<1xi64>
  %heads = kiln.constant dense<[8, 4, 16]> : tensor<3xi64>
  %bhsd = kiln.constant dense<[2, 2, 8, 16]> : tensor<4xi64>
  %r = kiln.reshape %x, %split3 : tensor<2x8x96xf16>, tensor<4xi64> -> tensor<2x8x3x32xf16>
  %t = kiln.transpose %r {perm = array<i64: 1, 0, 2, 3>} : tensor<2x8x3x32xf16> -> tensor<8x2x3x32xf16>
  %u = kiln.unsqueeze %t, %c0 : tensor<8x2x3x32xf16>, tensor<1xi64> -> tensor<1x8x2x3x32xf16>
  %m = kiln.transpose %u {perm = array<i64: 3, 1, 2, 0, 4>} : tensor<1x8x2x3x32xf16> -> tensor<3x8x2x1x32xf16>
  %s = kiln.squeeze %m, %c3 : tensor<3x8x2x1x32xf16>, tensor<1xi64> -> tensor<3x8x2x32xf16>
  %qs = kiln.slice %s, %c0, %c1, %c0, %c1 : tensor<3x8x2x32xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<1x8x2x32xf16>
  %ks = kiln.slice %s, %c1, %c2, %c0, %c1 : tensor<3x8x2x32xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<1x8x2x32xf16>
  %vs = kiln.slice %s, %c2, %c3, %c0, %c1 : tensor<3x8x2x32xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<1x8x2x32xf16>
  %q0 = kiln.squeeze %qs, %c0 : tensor<1x8x2x32xf16>, tensor<1xi64> -> tensor<8x2x32xf16>
  %k0 = kiln.squeeze %ks, %c0 : tensor<1x8x2x32xf16>, tensor<1xi64> -> tensor<8x2x32xf16>
  %v0 = kiln.squeeze %vs, %c0 : tensor<1x8x2x32xf16>, tensor<1xi64> -> tensor<8x2x32xf16>
  %q1 = kiln.reshape %q0, %heads : tensor<8x2x32xf16>, tensor<3xi64> -> tensor<8x4x16xf16>
  %k1 = kiln.reshape %k0, %heads : tensor<8x2x32xf16>, tensor<3xi64> -> tensor<8x4x16xf16>
  %v1 = kiln.reshape %v0, %heads : tensor<8x2x32xf16>, tensor<3xi64> -> tensor<8x4x16xf16>
  %q2 = kiln.transpose %q1 {perm = array<i64: 1, 0, 2>} : tensor<8x4x16xf16> -> tensor<4x8x16xf16>
  %k2 = kiln.transpose %k1 {perm = array<i64: 1, 0, 2>} : tensor<8x4x16xf16> -> tensor<4x8x16xf16>
  %v2 = kiln.transpose %v1 {perm = array<i64: 1, 0, 2>} : tensor<8x4x16xf16> -> tensor<4x8x16xf16>
  %q = kiln.reshape %q2, %bhsd : tensor<4x8x16xf16>, tensor<4xi64> -> tensor<2x2x8x16xf16>
  %k = kiln.reshape %k2, %bhsd : tensor<4x8x16xf16>, tensor<4xi64> -> tensor<2x2x8x16xf16>
  %v = kiln.reshape %v2, %bhsd : tensor<4x8x16xf16>, tensor<4xi64> -> tensor<2x2x8x16xf16>
  %o = kiln.attention %q, %k, %v {scale = 0.25 : f32} : tensor<2x2x8x16xf16>, tensor<2x2x8x16xf16>, tensor<2x2x8x16xf16> -> tensor<2x2x8x16xf16>
  %y = kiln.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<2x2x8x16xf16> -> tensor<2x8x2x16xf16>
  return %y : tensor<2x8x2x16xf16>
}
