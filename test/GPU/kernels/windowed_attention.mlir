// GPU kernel tests of windowed attention as Swin and Swin-V2 write it: each
// function is the decomposed graph, which kiln-translate recognises as
// kiln.attention (kiln-recognize-patterns), checked against the CPU
// evaluator on the decomposed ops. Shifted windows add their window mask in
// a view that splits the batch of windows, [B W, h, N, N] as [B, W, h, N, N]:
// the attention is made in that view (rank 5, q, k and v split alike) with
// the two masks added into one [1, W, h, N, N] (a kernel of its own here,
// where they are inputs; computed at load in a model, where they are
// weights). Swin-V2's cosine attention scales the scores by a per-head
// [h, 1, 1] factor, which moves onto q: the normalisation kernel of q
// multiplies by it as it writes. Windows of 49 (7 x 7: a partial query and
// key tile) and of 64, heads of 32, f16: the flash kernel. (Swin's q scale is
// a kernel of its own here, where q is an input; in a model it joins the
// kernel that makes q.)
// RUN: rm -rf %t && kiln-translate %s --kernel-test-bundle %t | FileCheck %s
// CHECK: wrote case windowed_attention.f16_shifted_windows (3 kernels, 3 launches)
// CHECK: wrote case windowed_attention.f16_cosine_shifted_windows (4 kernels, 4 launches)
// CHECK: wrote case windowed_attention.f16_cosine_windows (3 kernels, 3 launches)
// CHECK: wrote case windowed_attention.f16_shifted_windows_projection (2 kernels, 2 launches)
// CHECK: wrote case windowed_attention.f16_cosine_windows_projection (3 kernels, 3 launches)

// Swin: q scaled by d^-1/2, a relative position bias [1, h, N, N], the
// shifted windows' mask [W, N, N] (0 or -100) in the split view; B = 2,
// W = 4 windows of 7 x 7, 3 heads.
func.func @f16_shifted_windows(%q: tensor<8x3x49x32xf16>, %k: tensor<8x3x49x32xf16>, %v: tensor<8x3x49x32xf16>, %bias: tensor<1x3x49x49xf16>, %mask: tensor<4x49x49xf16> {kiln.test_range = [-100.0, 0.0]}) -> tensor<8x3x49x32xf16>
    attributes {kiln.test_tolerance = [2.0e-2, 5.0e-3]} {
  %scale = kiln.constant dense<0.1767767> : tensor<f16>
  %qs = kiln.mul %q, %scale : tensor<8x3x49x32xf16>, tensor<f16> -> tensor<8x3x49x32xf16>
  %kt = kiln.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<8x3x49x32xf16> -> tensor<8x3x32x49xf16>
  %s = kiln.matmul %qs, %kt : tensor<8x3x49x32xf16>, tensor<8x3x32x49xf16> -> tensor<8x3x49x49xf16>
  %b = kiln.add %s, %bias : tensor<8x3x49x49xf16>, tensor<1x3x49x49xf16> -> tensor<8x3x49x49xf16>
  %split = kiln.constant dense<[2, 4, 3, 49, 49]> : tensor<5xi64>
  %b5 = kiln.reshape %b, %split : tensor<8x3x49x49xf16>, tensor<5xi64> -> tensor<2x4x3x49x49xf16>
  %one = kiln.constant dense<1> : tensor<1xi64>
  %zero = kiln.constant dense<0> : tensor<1xi64>
  %m1 = kiln.unsqueeze %mask, %one : tensor<4x49x49xf16>, tensor<1xi64> -> tensor<4x1x49x49xf16>
  %m5 = kiln.unsqueeze %m1, %zero : tensor<4x1x49x49xf16>, tensor<1xi64> -> tensor<1x4x1x49x49xf16>
  %a5 = kiln.add %b5, %m5 : tensor<2x4x3x49x49xf16>, tensor<1x4x1x49x49xf16> -> tensor<2x4x3x49x49xf16>
  %back = kiln.constant dense<[8, 3, 49, 49]> : tensor<4xi64>
  %a = kiln.reshape %a5, %back : tensor<2x4x3x49x49xf16>, tensor<4xi64> -> tensor<8x3x49x49xf16>
  %p = kiln.softmax %a : tensor<8x3x49x49xf16> -> tensor<8x3x49x49xf16>
  %o = kiln.matmul %p, %v : tensor<8x3x49x49xf16>, tensor<8x3x49x32xf16> -> tensor<8x3x49x32xf16>
  return %o : tensor<8x3x49x32xf16>
}

// Swin-V2: q and k normalised (F.normalize: x / clip(sqrt(sum(x^2)), 1e-12)),
// the scores times a per-head logit scale [3, 1, 1] (an input: trained
// scales differ per head), a bias [1, h, N, N] and the shifted windows' mask
// in the split view; B = 2, W = 4 windows of 8 x 8.
func.func @f16_cosine_shifted_windows(%q: tensor<8x3x64x32xf16>, %k: tensor<8x3x64x32xf16>, %v: tensor<8x3x64x32xf16>, %logit: tensor<3x1x1xf16> {kiln.test_range = [1.0, 10.0]}, %bias: tensor<1x3x64x64xf16>, %mask: tensor<4x64x64xf16> {kiln.test_range = [-100.0, 0.0]}) -> tensor<8x3x64x32xf16>
    attributes {kiln.test_tolerance = [2.0e-2, 5.0e-3]} {
  %axes = kiln.constant dense<[3]> : tensor<1xi64>
  %eps = kiln.constant dense<1.0e-12> : tensor<f16>
  %inf = kiln.constant dense<0x7C00> : tensor<f16>
  %full = kiln.constant dense<[8, 3, 64, 32]> : tensor<4xi64>
  %q2 = kiln.mul %q, %q : tensor<8x3x64x32xf16>, tensor<8x3x64x32xf16> -> tensor<8x3x64x32xf16>
  %qsum = kiln.reduce_sum %q2, %axes : tensor<8x3x64x32xf16>, tensor<1xi64> -> tensor<8x3x64x1xf16>
  %qn = kiln.sqrt %qsum : tensor<8x3x64x1xf16> -> tensor<8x3x64x1xf16>
  %qc = kiln.clip %qn, %eps, %inf : tensor<8x3x64x1xf16>, tensor<f16>, tensor<f16> -> tensor<8x3x64x1xf16>
  %qe = kiln.expand %qc, %full : tensor<8x3x64x1xf16>, tensor<4xi64> -> tensor<8x3x64x32xf16>
  %qh = kiln.div %q, %qe : tensor<8x3x64x32xf16>, tensor<8x3x64x32xf16> -> tensor<8x3x64x32xf16>
  %k2 = kiln.mul %k, %k : tensor<8x3x64x32xf16>, tensor<8x3x64x32xf16> -> tensor<8x3x64x32xf16>
  %ksum = kiln.reduce_sum %k2, %axes : tensor<8x3x64x32xf16>, tensor<1xi64> -> tensor<8x3x64x1xf16>
  %kn = kiln.sqrt %ksum : tensor<8x3x64x1xf16> -> tensor<8x3x64x1xf16>
  %kc = kiln.clip %kn, %eps, %inf : tensor<8x3x64x1xf16>, tensor<f16>, tensor<f16> -> tensor<8x3x64x1xf16>
  %ke = kiln.expand %kc, %full : tensor<8x3x64x1xf16>, tensor<4xi64> -> tensor<8x3x64x32xf16>
  %kh = kiln.div %k, %ke : tensor<8x3x64x32xf16>, tensor<8x3x64x32xf16> -> tensor<8x3x64x32xf16>
  %kt = kiln.transpose %kh {perm = array<i64: 0, 1, 3, 2>} : tensor<8x3x64x32xf16> -> tensor<8x3x32x64xf16>
  %s = kiln.matmul %qh, %kt : tensor<8x3x64x32xf16>, tensor<8x3x32x64xf16> -> tensor<8x3x64x64xf16>
  %ls = kiln.mul %s, %logit : tensor<8x3x64x64xf16>, tensor<3x1x1xf16> -> tensor<8x3x64x64xf16>
  %b = kiln.add %ls, %bias : tensor<8x3x64x64xf16>, tensor<1x3x64x64xf16> -> tensor<8x3x64x64xf16>
  %split = kiln.constant dense<[2, 4, 3, 64, 64]> : tensor<5xi64>
  %b5 = kiln.reshape %b, %split : tensor<8x3x64x64xf16>, tensor<5xi64> -> tensor<2x4x3x64x64xf16>
  %one = kiln.constant dense<1> : tensor<1xi64>
  %zero = kiln.constant dense<0> : tensor<1xi64>
  %m1 = kiln.unsqueeze %mask, %one : tensor<4x64x64xf16>, tensor<1xi64> -> tensor<4x1x64x64xf16>
  %m5 = kiln.unsqueeze %m1, %zero : tensor<4x1x64x64xf16>, tensor<1xi64> -> tensor<1x4x1x64x64xf16>
  %a5 = kiln.add %b5, %m5 : tensor<2x4x3x64x64xf16>, tensor<1x4x1x64x64xf16> -> tensor<2x4x3x64x64xf16>
  %back = kiln.constant dense<[8, 3, 64, 64]> : tensor<4xi64>
  %a = kiln.reshape %a5, %back : tensor<2x4x3x64x64xf16>, tensor<4xi64> -> tensor<8x3x64x64xf16>
  %p = kiln.softmax %a : tensor<8x3x64x64xf16> -> tensor<8x3x64x64xf16>
  %o = kiln.matmul %p, %v : tensor<8x3x64x64xf16>, tensor<8x3x64x32xf16> -> tensor<8x3x64x32xf16>
  return %o : tensor<8x3x64x32xf16>
}

// Swin-V2's windows without the shift: the per-head scale and the bias only
// (the scale's product moved onto q; no split view).
func.func @f16_cosine_windows(%q: tensor<8x3x64x32xf16>, %k: tensor<8x3x64x32xf16>, %v: tensor<8x3x64x32xf16>, %logit: tensor<3x1x1xf16> {kiln.test_range = [1.0, 10.0]}, %bias: tensor<1x3x64x64xf16>) -> tensor<8x3x64x32xf16>
    attributes {kiln.test_tolerance = [2.0e-2, 5.0e-3]} {
  %axes = kiln.constant dense<[3]> : tensor<1xi64>
  %eps = kiln.constant dense<1.0e-12> : tensor<f16>
  %inf = kiln.constant dense<0x7C00> : tensor<f16>
  %full = kiln.constant dense<[8, 3, 64, 32]> : tensor<4xi64>
  %q2 = kiln.mul %q, %q : tensor<8x3x64x32xf16>, tensor<8x3x64x32xf16> -> tensor<8x3x64x32xf16>
  %qsum = kiln.reduce_sum %q2, %axes : tensor<8x3x64x32xf16>, tensor<1xi64> -> tensor<8x3x64x1xf16>
  %qn = kiln.sqrt %qsum : tensor<8x3x64x1xf16> -> tensor<8x3x64x1xf16>
  %qc = kiln.clip %qn, %eps, %inf : tensor<8x3x64x1xf16>, tensor<f16>, tensor<f16> -> tensor<8x3x64x1xf16>
  %qe = kiln.expand %qc, %full : tensor<8x3x64x1xf16>, tensor<4xi64> -> tensor<8x3x64x32xf16>
  %qh = kiln.div %q, %qe : tensor<8x3x64x32xf16>, tensor<8x3x64x32xf16> -> tensor<8x3x64x32xf16>
  %k2 = kiln.mul %k, %k : tensor<8x3x64x32xf16>, tensor<8x3x64x32xf16> -> tensor<8x3x64x32xf16>
  %ksum = kiln.reduce_sum %k2, %axes : tensor<8x3x64x32xf16>, tensor<1xi64> -> tensor<8x3x64x1xf16>
  %kn = kiln.sqrt %ksum : tensor<8x3x64x1xf16> -> tensor<8x3x64x1xf16>
  %kc = kiln.clip %kn, %eps, %inf : tensor<8x3x64x1xf16>, tensor<f16>, tensor<f16> -> tensor<8x3x64x1xf16>
  %ke = kiln.expand %kc, %full : tensor<8x3x64x1xf16>, tensor<4xi64> -> tensor<8x3x64x32xf16>
  %kh = kiln.div %k, %ke : tensor<8x3x64x32xf16>, tensor<8x3x64x32xf16> -> tensor<8x3x64x32xf16>
  %kt = kiln.transpose %kh {perm = array<i64: 0, 1, 3, 2>} : tensor<8x3x64x32xf16> -> tensor<8x3x32x64xf16>
  %s = kiln.matmul %qh, %kt : tensor<8x3x64x32xf16>, tensor<8x3x32x64xf16> -> tensor<8x3x64x64xf16>
  %ls = kiln.mul %s, %logit : tensor<8x3x64x64xf16>, tensor<3x1x1xf16> -> tensor<8x3x64x64xf16>
  %b = kiln.add %ls, %bias : tensor<8x3x64x64xf16>, tensor<1x3x64x64xf16> -> tensor<8x3x64x64xf16>
  %p = kiln.softmax %b : tensor<8x3x64x64xf16> -> tensor<8x3x64x64xf16>
  %o = kiln.matmul %p, %v : tensor<8x3x64x64xf16>, tensor<8x3x64x32xf16> -> tensor<8x3x64x32xf16>
  return %o : tensor<8x3x64x32xf16>
}

// Swin's layout: the joint projection [B W N, 3 h d] split into q, k and v
// ([B W, N, 3, h, d] transposed to [3, B W, h, N, d], a slice and squeeze
// each, as kiln-simplify-graph makes of the gathers), the
// shifted windows' attention made in the split view, and the output written
// as [B W, N, h d]: the attention kernel reads q, k and v by strides through
// the split and writes through the transpose.
func.func @f16_shifted_windows_projection(%qkv: tensor<392x288xf16>, %bias: tensor<1x3x49x49xf16>, %mask: tensor<4x49x49xf16> {kiln.test_range = [-100.0, 0.0]}) -> tensor<8x49x96xf16>
    attributes {kiln.test_tolerance = [2.0e-2, 5.0e-3]} {
  %heads = kiln.constant dense<[8, 49, 3, 3, 32]> : tensor<5xi64>
  %x = kiln.reshape %qkv, %heads : tensor<392x288xf16>, tensor<5xi64> -> tensor<8x49x3x3x32xf16>
  %t = kiln.transpose %x {perm = array<i64: 2, 0, 3, 1, 4>} : tensor<8x49x3x3x32xf16> -> tensor<3x8x3x49x32xf16>
  %c0 = kiln.constant dense<0> : tensor<1xi64>
  %c1 = kiln.constant dense<1> : tensor<1xi64>
  %c2 = kiln.constant dense<2> : tensor<1xi64>
  %c3 = kiln.constant dense<3> : tensor<1xi64>
  %qs = kiln.slice %t, %c0, %c1, %c0, %c1 : tensor<3x8x3x49x32xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<1x8x3x49x32xf16>
  %ks = kiln.slice %t, %c1, %c2, %c0, %c1 : tensor<3x8x3x49x32xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<1x8x3x49x32xf16>
  %vs = kiln.slice %t, %c2, %c3, %c0, %c1 : tensor<3x8x3x49x32xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<1x8x3x49x32xf16>
  %q = kiln.squeeze %qs, %c0 : tensor<1x8x3x49x32xf16>, tensor<1xi64> -> tensor<8x3x49x32xf16>
  %k = kiln.squeeze %ks, %c0 : tensor<1x8x3x49x32xf16>, tensor<1xi64> -> tensor<8x3x49x32xf16>
  %v = kiln.squeeze %vs, %c0 : tensor<1x8x3x49x32xf16>, tensor<1xi64> -> tensor<8x3x49x32xf16>
  %scale = kiln.constant dense<0.1767767> : tensor<f16>
  %kt = kiln.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<8x3x49x32xf16> -> tensor<8x3x32x49xf16>
  %s = kiln.matmul %q, %kt : tensor<8x3x49x32xf16>, tensor<8x3x32x49xf16> -> tensor<8x3x49x49xf16>
  %ss = kiln.mul %s, %scale : tensor<8x3x49x49xf16>, tensor<f16> -> tensor<8x3x49x49xf16>
  %b = kiln.add %ss, %bias : tensor<8x3x49x49xf16>, tensor<1x3x49x49xf16> -> tensor<8x3x49x49xf16>
  %split = kiln.constant dense<[2, 4, 3, 49, 49]> : tensor<5xi64>
  %b5 = kiln.reshape %b, %split : tensor<8x3x49x49xf16>, tensor<5xi64> -> tensor<2x4x3x49x49xf16>
  %one = kiln.constant dense<1> : tensor<1xi64>
  %zero = kiln.constant dense<0> : tensor<1xi64>
  %m1 = kiln.unsqueeze %mask, %one : tensor<4x49x49xf16>, tensor<1xi64> -> tensor<4x1x49x49xf16>
  %m5 = kiln.unsqueeze %m1, %zero : tensor<4x1x49x49xf16>, tensor<1xi64> -> tensor<1x4x1x49x49xf16>
  %a5 = kiln.add %b5, %m5 : tensor<2x4x3x49x49xf16>, tensor<1x4x1x49x49xf16> -> tensor<2x4x3x49x49xf16>
  %back = kiln.constant dense<[8, 3, 49, 49]> : tensor<4xi64>
  %a = kiln.reshape %a5, %back : tensor<2x4x3x49x49xf16>, tensor<4xi64> -> tensor<8x3x49x49xf16>
  %p = kiln.softmax %a : tensor<8x3x49x49xf16> -> tensor<8x3x49x49xf16>
  %o = kiln.matmul %p, %v : tensor<8x3x49x49xf16>, tensor<8x3x49x32xf16> -> tensor<8x3x49x32xf16>
  %ot = kiln.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<8x3x49x32xf16> -> tensor<8x49x3x32xf16>
  %merged = kiln.constant dense<[8, 49, 96]> : tensor<3xi64>
  %y = kiln.reshape %ot, %merged : tensor<8x49x3x32xf16>, tensor<3xi64> -> tensor<8x49x96xf16>
  return %y : tensor<8x49x96xf16>
}

// Swin-V2's layout after kiln-simplify-graph split its shared transpose
// (slice(transpose(x)) -> transpose(slice(x)) for every piece): q, k and v
// are slices of the joint projection [B W, N, 3, h, d] on dim 2, each
// transposed to [B W, h, N, d]. The norm kernels of q (times the per-head
// scale) and k read their rows through slice and transpose (whole rows of
// 32 contiguous elements, by vectors), the attention kernel reads v so.
func.func @f16_cosine_windows_projection(%qkv: tensor<512x288xf16>, %logit: tensor<3x1x1xf16> {kiln.test_range = [1.0, 10.0]}, %bias: tensor<1x3x64x64xf16>) -> tensor<8x3x64x32xf16>
    attributes {kiln.test_tolerance = [2.0e-2, 5.0e-3]} {
  %heads = kiln.constant dense<[8, 64, 3, 3, 32]> : tensor<5xi64>
  %x = kiln.reshape %qkv, %heads : tensor<512x288xf16>, tensor<5xi64> -> tensor<8x64x3x3x32xf16>
  %c0 = kiln.constant dense<0> : tensor<1xi64>
  %c1 = kiln.constant dense<1> : tensor<1xi64>
  %c2 = kiln.constant dense<2> : tensor<1xi64>
  %c3 = kiln.constant dense<3> : tensor<1xi64>
  %qs = kiln.slice %x, %c0, %c1, %c2, %c1 : tensor<8x64x3x3x32xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<8x64x1x3x32xf16>
  %ks = kiln.slice %x, %c1, %c2, %c2, %c1 : tensor<8x64x3x3x32xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<8x64x1x3x32xf16>
  %vs = kiln.slice %x, %c2, %c3, %c2, %c1 : tensor<8x64x3x3x32xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<8x64x1x3x32xf16>
  %qt = kiln.transpose %qs {perm = array<i64: 2, 0, 3, 1, 4>} : tensor<8x64x1x3x32xf16> -> tensor<1x8x3x64x32xf16>
  %kt5 = kiln.transpose %ks {perm = array<i64: 2, 0, 3, 1, 4>} : tensor<8x64x1x3x32xf16> -> tensor<1x8x3x64x32xf16>
  %vt = kiln.transpose %vs {perm = array<i64: 2, 0, 3, 1, 4>} : tensor<8x64x1x3x32xf16> -> tensor<1x8x3x64x32xf16>
  %q = kiln.squeeze %qt, %c0 : tensor<1x8x3x64x32xf16>, tensor<1xi64> -> tensor<8x3x64x32xf16>
  %k = kiln.squeeze %kt5, %c0 : tensor<1x8x3x64x32xf16>, tensor<1xi64> -> tensor<8x3x64x32xf16>
  %v = kiln.squeeze %vt, %c0 : tensor<1x8x3x64x32xf16>, tensor<1xi64> -> tensor<8x3x64x32xf16>
  %axes = kiln.constant dense<[3]> : tensor<1xi64>
  %eps = kiln.constant dense<1.0e-12> : tensor<f16>
  %inf = kiln.constant dense<0x7C00> : tensor<f16>
  %full = kiln.constant dense<[8, 3, 64, 32]> : tensor<4xi64>
  %q2 = kiln.mul %q, %q : tensor<8x3x64x32xf16>, tensor<8x3x64x32xf16> -> tensor<8x3x64x32xf16>
  %qsum = kiln.reduce_sum %q2, %axes : tensor<8x3x64x32xf16>, tensor<1xi64> -> tensor<8x3x64x1xf16>
  %qn = kiln.sqrt %qsum : tensor<8x3x64x1xf16> -> tensor<8x3x64x1xf16>
  %qc = kiln.clip %qn, %eps, %inf : tensor<8x3x64x1xf16>, tensor<f16>, tensor<f16> -> tensor<8x3x64x1xf16>
  %qe = kiln.expand %qc, %full : tensor<8x3x64x1xf16>, tensor<4xi64> -> tensor<8x3x64x32xf16>
  %qh = kiln.div %q, %qe : tensor<8x3x64x32xf16>, tensor<8x3x64x32xf16> -> tensor<8x3x64x32xf16>
  %k2 = kiln.mul %k, %k : tensor<8x3x64x32xf16>, tensor<8x3x64x32xf16> -> tensor<8x3x64x32xf16>
  %ksum = kiln.reduce_sum %k2, %axes : tensor<8x3x64x32xf16>, tensor<1xi64> -> tensor<8x3x64x1xf16>
  %kn = kiln.sqrt %ksum : tensor<8x3x64x1xf16> -> tensor<8x3x64x1xf16>
  %kc = kiln.clip %kn, %eps, %inf : tensor<8x3x64x1xf16>, tensor<f16>, tensor<f16> -> tensor<8x3x64x1xf16>
  %ke = kiln.expand %kc, %full : tensor<8x3x64x1xf16>, tensor<4xi64> -> tensor<8x3x64x32xf16>
  %kh = kiln.div %k, %ke : tensor<8x3x64x32xf16>, tensor<8x3x64x32xf16> -> tensor<8x3x64x32xf16>
  %ktr = kiln.transpose %kh {perm = array<i64: 0, 1, 3, 2>} : tensor<8x3x64x32xf16> -> tensor<8x3x32x64xf16>
  %s = kiln.matmul %qh, %ktr : tensor<8x3x64x32xf16>, tensor<8x3x32x64xf16> -> tensor<8x3x64x64xf16>
  %ls = kiln.mul %s, %logit : tensor<8x3x64x64xf16>, tensor<3x1x1xf16> -> tensor<8x3x64x64xf16>
  %b = kiln.add %ls, %bias : tensor<8x3x64x64xf16>, tensor<1x3x64x64xf16> -> tensor<8x3x64x64xf16>
  %p = kiln.softmax %b : tensor<8x3x64x64xf16> -> tensor<8x3x64x64xf16>
  %o = kiln.matmul %p, %v : tensor<8x3x64x64xf16>, tensor<8x3x64x32xf16> -> tensor<8x3x64x32xf16>
  return %o : tensor<8x3x64x32xf16>
}
