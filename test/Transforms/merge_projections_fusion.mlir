// RUN: kiln-opt %s --kiln-merge-projections --kiln-simplify-graph=max-bytes=1048576 --kiln-fuse-kernels | FileCheck %s

// BERT's self-attention: Q, K and V are MatMul + Add(bias) each. After
// kiln-merge-projections the joined bias (folded) is added once to the
// merged projection, so the add is the bias epilogue of one library GEMM,
// and the attention kernel reads q, k and v from that GEMM's output by
// strides (the slices, reshapes and transposes join it): two kernels.
// CHECK-LABEL: func.func @bert_self_attention
// CHECK:         %[[B:.+]] = kiln.constant dense<{{.+}}> : tensor<384xf16>
// CHECK:         %[[QKV:.+]] = kiln.kernel "matmul_add_0" library ins(%arg0, %{{.+}}, %[[B]] : tensor<1x128x128xf16>, tensor<128x384xf16>, tensor<384xf16>) outs(%{{.+}} : tensor<1x128x384xf16>)
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:      kiln.matmul
// CHECK-NEXT:      kiln.add
// CHECK-NEXT:      kiln.yield
// CHECK:         kiln.kernel "attention_1" attention ins(%[[QKV]], %arg1 : tensor<1x128x384xf16>, tensor<1x1x128x128xf16>)
// CHECK-COUNT-3:   kiln.slice %{{.+}} : tensor<1x128x384xf16>
// CHECK:           kiln.attention
// CHECK-NOT:     kiln.kernel
// CHECK:         return
func.func @bert_self_attention(%x: tensor<1x128x128xf16>, %mask: tensor<1x1x128x128xf16>) -> tensor<1x2x128x64xf16> {
  %wq = kiln.constant dense<1.0> : tensor<128x128xf16>
  %wk = kiln.constant dense<2.0> : tensor<128x128xf16>
  %wv = kiln.constant dense<3.0> : tensor<128x128xf16>
  %bq = kiln.constant dense<0.25> : tensor<128xf16>
  %bk = kiln.constant dense<0.5> : tensor<128xf16>
  %bv = kiln.constant dense<0.75> : tensor<128xf16>
  %heads = kiln.constant dense<[1, 128, 2, 64]> : tensor<4xi64>
  %q0 = kiln.matmul %x, %wq : tensor<1x128x128xf16>, tensor<128x128xf16> -> tensor<1x128x128xf16>
  %q1 = kiln.add %bq, %q0 : tensor<128xf16>, tensor<1x128x128xf16> -> tensor<1x128x128xf16>
  %q2 = kiln.reshape %q1, %heads : tensor<1x128x128xf16>, tensor<4xi64> -> tensor<1x128x2x64xf16>
  %q = kiln.transpose %q2 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x128x2x64xf16> -> tensor<1x2x128x64xf16>
  %k0 = kiln.matmul %x, %wk : tensor<1x128x128xf16>, tensor<128x128xf16> -> tensor<1x128x128xf16>
  %k1 = kiln.add %bk, %k0 : tensor<128xf16>, tensor<1x128x128xf16> -> tensor<1x128x128xf16>
  %k2 = kiln.reshape %k1, %heads : tensor<1x128x128xf16>, tensor<4xi64> -> tensor<1x128x2x64xf16>
  %k = kiln.transpose %k2 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x128x2x64xf16> -> tensor<1x2x128x64xf16>
  %v0 = kiln.matmul %x, %wv : tensor<1x128x128xf16>, tensor<128x128xf16> -> tensor<1x128x128xf16>
  %v1 = kiln.add %bv, %v0 : tensor<128xf16>, tensor<1x128x128xf16> -> tensor<1x128x128xf16>
  %v2 = kiln.reshape %v1, %heads : tensor<1x128x128xf16>, tensor<4xi64> -> tensor<1x128x2x64xf16>
  %v = kiln.transpose %v2 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x128x2x64xf16> -> tensor<1x2x128x64xf16>
  %o = kiln.attention %q, %k, %v, %mask {scale = 0.125 : f32} : tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16>, tensor<1x1x128x128xf16> -> tensor<1x2x128x64xf16>
  return %o : tensor<1x2x128x64xf16>
}
