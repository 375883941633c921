// RUN: kiln-opt %s --split-input-file --kiln-fuse-kernels | FileCheck %s

// GPT-2's MLP and residuals: a tanh GELU after a Gemm with a bias row and a
// residual add after a view of a Gemm go into the library kernel (cuBLASLt's
// GELU_BIAS epilogue; the residual read as C with beta 1). Each library
// kernel records the epilogue it fuses (LibraryEpilogue.h); the Gemm's own
// C row is no part of it.
// CHECK-LABEL: func.func @gpt2_mlp
// CHECK: %[[H:.+]] = kiln.kernel "gemm_gelu_0" library
// CHECK-SAME: attributes {epilogue = #kiln.epilogue<activation = gelu_tanh>}
// CHECK-NEXT: ^bb0
// CHECK: kiln.gemm
// CHECK-NEXT: kiln.reshape
// CHECK-NEXT: kiln.gelu {{.*}} {approximate = "tanh"}
// CHECK-NEXT: kiln.yield
// CHECK: kiln.kernel "gemm_add_1" library ins(%{{.+}}, %{{.+}}, %{{.+}}, %arg0 :
// CHECK-SAME: attributes {epilogue = #kiln.epilogue<addend = residual>}
// CHECK-NEXT: ^bb0
// CHECK: kiln.gemm
// CHECK-NEXT: kiln.reshape
// CHECK-NEXT: kiln.add
// CHECK-NEXT: kiln.yield
// CHECK-NOT: kiln.kernel
func.func @gpt2_mlp(%x: tensor<1x8x16xf16>, %w1: tensor<16x64xf16>, %b1: tensor<64xf16>, %w2: tensor<64x16xf16>, %b2: tensor<16xf16>) -> tensor<1x8x16xf16> {
  %s = kiln.constant dense<[8, 16]> : tensor<2xi64>
  %s1 = kiln.constant dense<[1, 8, 64]> : tensor<3xi64>
  %s2 = kiln.constant dense<[8, 64]> : tensor<2xi64>
  %s3 = kiln.constant dense<[1, 8, 16]> : tensor<3xi64>
  %x2 = kiln.reshape %x, %s : tensor<1x8x16xf16>, tensor<2xi64> -> tensor<8x16xf16>
  %g1 = kiln.gemm %x2, %w1, %b1 : tensor<8x16xf16>, tensor<16x64xf16>, tensor<64xf16> -> tensor<8x64xf16>
  %r1 = kiln.reshape %g1, %s1 : tensor<8x64xf16>, tensor<3xi64> -> tensor<1x8x64xf16>
  %a = kiln.gelu %r1 {approximate = "tanh"} : tensor<1x8x64xf16> -> tensor<1x8x64xf16>
  %a2 = kiln.reshape %a, %s2 : tensor<1x8x64xf16>, tensor<2xi64> -> tensor<8x64xf16>
  %g2 = kiln.gemm %a2, %w2, %b2 : tensor<8x64xf16>, tensor<64x16xf16>, tensor<16xf16> -> tensor<8x16xf16>
  %r2 = kiln.reshape %g2, %s3 : tensor<8x16xf16>, tensor<3xi64> -> tensor<1x8x16xf16>
  %y = kiln.add %r2, %x : tensor<1x8x16xf16>, tensor<1x8x16xf16> -> tensor<1x8x16xf16>
  return %y : tensor<1x8x16xf16>
}

// -----

// A relu after a MatMul is its epilogue; BERT's erf GELU is not (cuBLASLt's
// GELU is the tanh form), nor an add that broadcasts a column, nor an
// epilogue on a result that has another user.
// CHECK-LABEL: func.func @not_fused
// CHECK: kiln.kernel "matmul_relu_0" library
// CHECK: kiln.kernel "matmul_1" library
// CHECK: kiln.kernel "gelu_2" pointwise
// CHECK: kiln.kernel "matmul_3" library
// CHECK: kiln.kernel "add_4" pointwise
// CHECK: kiln.kernel "matmul_5" library
// CHECK: kiln.kernel "relu_6" pointwise
func.func @not_fused(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>, %r: tensor<8x1xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>) {
  %m0 = kiln.matmul %x, %w : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
  %y0 = kiln.relu %m0 : tensor<8x16xf32> -> tensor<8x16xf32>
  %m1 = kiln.matmul %x, %w : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
  %y1 = kiln.gelu %m1 : tensor<8x16xf32> -> tensor<8x16xf32>
  %m2 = kiln.matmul %x, %w : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
  %y2 = kiln.add %m2, %r : tensor<8x16xf32>, tensor<8x1xf32> -> tensor<8x16xf32>
  %m3 = kiln.matmul %x, %w : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
  %y3 = kiln.relu %m3 : tensor<8x16xf32> -> tensor<8x16xf32>
  return %y0, %y1, %y2, %m3, %y3 : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>
}

// -----

// A row of the result's last dim added to a MatMul (either operand order) is
// cuBLASLt's bias, before the relu; a Gemm with a C row already has one, so
// a second row add stays a pointwise kernel.
// CHECK-LABEL: func.func @bias_rows
// CHECK: kiln.kernel "matmul_add_relu_0" library ins(%arg0, %arg1, %arg2 :
// CHECK-SAME: epilogue = #kiln.epilogue<addend = bias, activation = relu>
// CHECK: kiln.kernel "matmul_add_1" library ins(%arg0, %arg1, %arg3 :
// CHECK-SAME: epilogue = #kiln.epilogue<addend = bias>
// CHECK: kiln.kernel "gemm_2" library
// CHECK: kiln.kernel "add_3" pointwise
func.func @bias_rows(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>, %b: tensor<16xf32>, %r: tensor<1x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>) {
  %m0 = kiln.matmul %x, %w : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
  %a0 = kiln.add %m0, %b : tensor<8x16xf32>, tensor<16xf32> -> tensor<8x16xf32>
  %y0 = kiln.relu %a0 : tensor<8x16xf32> -> tensor<8x16xf32>
  %m1 = kiln.matmul %x, %w : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
  %y1 = kiln.add %r, %m1 : tensor<1x16xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  %g = kiln.gemm %x, %w, %b : tensor<8x16xf32>, tensor<16x16xf32>, tensor<16xf32> -> tensor<8x16xf32>
  %y2 = kiln.add %g, %r : tensor<8x16xf32>, tensor<1x16xf32> -> tensor<8x16xf32>
  return %y0, %y1, %y2 : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>
}

// -----

// A cast of an f16 product to f32 joins the cuBLASLt call (A/B 16F, C/D
// 32F): the Gemm's C row and an added bias row move after the cast, rebuilt
// as f32 constants (cuBLASLt reads the bias in D's type), and the relu
// follows in f32. ResNet's fc at --precision fp16 is the first kernel.
// CHECK-LABEL: func.func @cast_to_f32
// CHECK: kiln.kernel "gemm_cast_add_0" library ins(%arg0, %arg1 : tensor<8x16xf16>, tensor<4x16xf16>) outs(%{{.+}} : tensor<8x4xf32>)
// CHECK-SAME: epilogue = #kiln.epilogue<addend = bias, output_cast = true>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: kiln.constant dense<[5.000000e-01, 1.500000e+00, 2.500000e+00, 3.500000e+00]> : tensor<4xf32>
// CHECK-NEXT: kiln.gemm %{{.+}}, %{{.+}} {trans_b = true} : tensor<8x16xf16>, tensor<4x16xf16> -> tensor<8x4xf16>
// CHECK-NEXT: kiln.cast %{{.+}} {to = f32} : tensor<8x4xf16> -> tensor<8x4xf32>
// CHECK-NEXT: kiln.add %{{.+}}, %{{.+}} : tensor<8x4xf32>, tensor<4xf32> -> tensor<8x4xf32>
// CHECK-NEXT: kiln.yield
// CHECK: kiln.kernel "matmul_cast_add_etc_1" library ins(%arg0, %arg2 :
// CHECK-SAME: epilogue = #kiln.epilogue<addend = bias, activation = relu, output_cast = true>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: kiln.constant
// CHECK-NEXT: kiln.constant dense<[-1.000000e+00, 2.000000e+00, -3.000000e+00, 4.000000e+00]> : tensor<4xf32>
// CHECK-NEXT: kiln.matmul
// CHECK-NEXT: kiln.reshape
// CHECK-NEXT: kiln.cast %{{.+}} {to = f32} : tensor<2x4x4xf16> -> tensor<2x4x4xf32>
// CHECK-NEXT: kiln.add
// CHECK-NEXT: kiln.relu %{{.+}} : tensor<2x4x4xf32> -> tensor<2x4x4xf32>
// CHECK-NEXT: kiln.yield
// CHECK: kiln.kernel "matmul_cast_2" library ins(%arg3, %arg4 : tensor<8x16xbf16>, tensor<16x4xbf16>) outs(%{{.+}} : tensor<8x4xf32>)
// CHECK-SAME: epilogue = #kiln.epilogue<output_cast = true>
// CHECK-NOT: kiln.kernel
func.func @cast_to_f32(%x: tensor<8x16xf16>, %w: tensor<4x16xf16>, %v: tensor<16x4xf16>, %y: tensor<8x16xbf16>, %vb: tensor<16x4xbf16>) -> (tensor<8x4xf32>, tensor<2x4x4xf32>, tensor<8x4xf32>) {
  %c = kiln.constant dense<[0.5, 1.5, 2.5, 3.5]> : tensor<4xf16>
  %g = kiln.gemm %x, %w, %c {trans_b = true} : tensor<8x16xf16>, tensor<4x16xf16>, tensor<4xf16> -> tensor<8x4xf16>
  %y0 = kiln.cast %g {to = f32} : tensor<8x4xf16> -> tensor<8x4xf32>
  %b = kiln.constant dense<[-1.0, 2.0, -3.0, 4.0]> : tensor<4xf16>
  %s = kiln.constant dense<[2, 4, 4]> : tensor<3xi64>
  %m = kiln.matmul %x, %v : tensor<8x16xf16>, tensor<16x4xf16> -> tensor<8x4xf16>
  %r = kiln.reshape %m, %s : tensor<8x4xf16>, tensor<3xi64> -> tensor<2x4x4xf16>
  %a = kiln.add %r, %b : tensor<2x4x4xf16>, tensor<4xf16> -> tensor<2x4x4xf16>
  %h = kiln.relu %a : tensor<2x4x4xf16> -> tensor<2x4x4xf16>
  %y1 = kiln.cast %h {to = f32} : tensor<2x4x4xf16> -> tensor<2x4x4xf32>
  %mb = kiln.matmul %y, %vb : tensor<8x16xbf16>, tensor<16x4xbf16> -> tensor<8x4xbf16>
  %y2 = kiln.cast %mb {to = f32} : tensor<8x4xbf16> -> tensor<8x4xf32>
  return %y0, %y1, %y2 : tensor<8x4xf32>, tensor<2x4x4xf32>, tensor<8x4xf32>
}

// -----

// Casts that stay pointwise kernels: f32 -> f16 (cuBLASLt has no 32F A/B
// with a 16F D at 32F compute); a cast after a residual add (the f16
// residual would have to be C in f32) or after a bias that is not a
// constant (it cannot be rebuilt in f32), each taking its add along; a cast
// of a product with another user.
// CHECK-LABEL: func.func @cast_not_fused
// CHECK: kiln.kernel "matmul_0" library
// CHECK: kiln.kernel "cast_1" pointwise
// CHECK: kiln.kernel "matmul_2" library
// CHECK: kiln.kernel "add_cast_3" pointwise
// CHECK: kiln.kernel "matmul_4" library
// CHECK: kiln.kernel "add_cast_5" pointwise
// CHECK: kiln.kernel "matmul_6" library
// CHECK: kiln.kernel "cast_7" pointwise
// CHECK-NOT: kiln.kernel
func.func @cast_not_fused(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>, %h: tensor<8x16xf16>, %v: tensor<16x16xf16>, %b: tensor<16xf16>) -> (tensor<8x16xf16>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf16>, tensor<8x16xf32>) {
  %m0 = kiln.matmul %x, %w : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
  %y0 = kiln.cast %m0 {to = f16} : tensor<8x16xf32> -> tensor<8x16xf16>
  %m1 = kiln.matmul %h, %v : tensor<8x16xf16>, tensor<16x16xf16> -> tensor<8x16xf16>
  %a1 = kiln.add %m1, %h : tensor<8x16xf16>, tensor<8x16xf16> -> tensor<8x16xf16>
  %y1 = kiln.cast %a1 {to = f32} : tensor<8x16xf16> -> tensor<8x16xf32>
  %m2 = kiln.matmul %h, %v : tensor<8x16xf16>, tensor<16x16xf16> -> tensor<8x16xf16>
  %a2 = kiln.add %m2, %b : tensor<8x16xf16>, tensor<16xf16> -> tensor<8x16xf16>
  %y2 = kiln.cast %a2 {to = f32} : tensor<8x16xf16> -> tensor<8x16xf32>
  %m3 = kiln.matmul %h, %v : tensor<8x16xf16>, tensor<16x16xf16> -> tensor<8x16xf16>
  %y3 = kiln.cast %m3 {to = f32} : tensor<8x16xf16> -> tensor<8x16xf32>
  return %y0, %y1, %y2, %m3, %y3 : tensor<8x16xf16>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf16>, tensor<8x16xf32>
}

// -----

// A product widened to f32 only for a consumer kernel (kiln-convert-precision's
// softmax logits: T5's q kT plus its position bias) joins the GEMM, not the
// softmax's row kernel: cuBLASLt writes the scores in f32 instead of
// rounding them to f16 first.
// CHECK-LABEL: func.func @widened_scores
// CHECK: %[[SCORES:.+]] = kiln.kernel "matmul_cast_0" library ins(%arg0, %arg1 : tensor<2x8x4xf16>, tensor<2x4x8xf16>) outs(%{{.+}} : tensor<2x8x8xf32>)
// CHECK-SAME: epilogue = #kiln.epilogue<output_cast = true>
// CHECK: kiln.kernel "add_softmax_cast_1" row_reduce ins(%[[SCORES]], %arg2 : tensor<2x8x8xf32>, tensor<8x8xf32>)
// CHECK-NOT: kiln.kernel
func.func @widened_scores(%q: tensor<2x8x4xf16>, %k: tensor<2x4x8xf16>, %bias: tensor<8x8xf32>) -> tensor<2x8x8xf16> {
  %s = kiln.matmul %q, %k : tensor<2x8x4xf16>, tensor<2x4x8xf16> -> tensor<2x8x8xf16>
  %w = kiln.cast %s {to = f32} : tensor<2x8x8xf16> -> tensor<2x8x8xf32>
  %b = kiln.add %w, %bias : tensor<2x8x8xf32>, tensor<8x8xf32> -> tensor<2x8x8xf32>
  %p = kiln.softmax %b : tensor<2x8x8xf32> -> tensor<2x8x8xf32>
  %h = kiln.cast %p {to = f16} : tensor<2x8x8xf32> -> tensor<2x8x8xf16>
  return %h : tensor<2x8x8xf16>
}

// -----

// A pre-LayerNorm block's projection, x + (h @ w + b) (ViT's MLP and the
// MatMul + Add exports of nn.Linear): the bias row and then the residual
// are one cuBLASLt call, D = A·B + C + bias (either operand order in each
// add, through views of the product). An activation after both is the same
// call's RELU_BIAS / GELU_BIAS epilogue, which cuBLASLt applies after C and
// the bias.
// CHECK-LABEL: func.func @bias_residual
// CHECK: %[[Y:.+]] = kiln.kernel "matmul_add_add_0" library
// CHECK-SAME: epilogue = #kiln.epilogue<addend = bias_residual>
// CHECK-NEXT: ^bb0
// CHECK:      kiln.matmul
// CHECK-NEXT: kiln.reshape
// CHECK-NEXT: kiln.add
// CHECK-NEXT: kiln.add
// CHECK-NEXT: kiln.yield
// CHECK: kiln.kernel "matmul_add_add_etc_1" library ins({{.*}}%[[Y]]
// CHECK-SAME: epilogue = #kiln.epilogue<addend = bias_residual, activation = relu>
// CHECK-NOT: kiln.kernel
func.func @bias_residual(%x: tensor<2x8x16xf32>, %h: tensor<16x32xf32>, %w: tensor<32x16xf32>, %b: tensor<16xf32>, %w2: tensor<16x16xf32>) -> (tensor<2x8x16xf32>, tensor<2x8x16xf32>) {
  %s = kiln.constant dense<[2, 8, 16]> : tensor<3xi64>
  %m0 = kiln.matmul %h, %w : tensor<16x32xf32>, tensor<32x16xf32> -> tensor<16x16xf32>
  %r0 = kiln.reshape %m0, %s : tensor<16x16xf32>, tensor<3xi64> -> tensor<2x8x16xf32>
  %a0 = kiln.add %r0, %b : tensor<2x8x16xf32>, tensor<16xf32> -> tensor<2x8x16xf32>
  %y0 = kiln.add %x, %a0 : tensor<2x8x16xf32>, tensor<2x8x16xf32> -> tensor<2x8x16xf32>
  %m1 = kiln.matmul %y0, %w2 : tensor<2x8x16xf32>, tensor<16x16xf32> -> tensor<2x8x16xf32>
  %a1 = kiln.add %b, %m1 : tensor<16xf32>, tensor<2x8x16xf32> -> tensor<2x8x16xf32>
  %s1 = kiln.add %a1, %y0 : tensor<2x8x16xf32>, tensor<2x8x16xf32> -> tensor<2x8x16xf32>
  %y1 = kiln.relu %s1 : tensor<2x8x16xf32> -> tensor<2x8x16xf32>
  return %y0, %y1 : tensor<2x8x16xf32>, tensor<2x8x16xf32>
}

// -----

// Not one call: a bias add with another user (its sum is needed as it is),
// a residual added before the bias (cuBLASLt's C comes after the bias row in
// no exported graph; the adds stay one pointwise kernel), and a residual that
// broadcasts.
// CHECK-LABEL: func.func @bias_residual_not_fused
// CHECK: kiln.kernel "matmul_add_0" library
// CHECK-SAME: epilogue = #kiln.epilogue<addend = bias>
// CHECK: kiln.kernel "add_1" pointwise
// CHECK: kiln.kernel "matmul_2" library
// CHECK: kiln.kernel "add_add_3" pointwise
// CHECK: kiln.kernel "matmul_4" library
// CHECK: kiln.kernel "add_add_5" pointwise
// CHECK-NOT: kiln.kernel
func.func @bias_residual_not_fused(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>, %b: tensor<16xf32>, %c: tensor<8x1xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>) {
  %m0 = kiln.matmul %x, %w : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
  %a0 = kiln.add %m0, %b : tensor<8x16xf32>, tensor<16xf32> -> tensor<8x16xf32>
  %y0 = kiln.add %a0, %x : tensor<8x16xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  %m1 = kiln.matmul %x, %w : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
  %a1 = kiln.add %m1, %x : tensor<8x16xf32>, tensor<8x16xf32> -> tensor<8x16xf32>
  %y1 = kiln.add %a1, %b : tensor<8x16xf32>, tensor<16xf32> -> tensor<8x16xf32>
  %m2 = kiln.matmul %x, %w : tensor<8x16xf32>, tensor<16x16xf32> -> tensor<8x16xf32>
  %a2 = kiln.add %m2, %b : tensor<8x16xf32>, tensor<16xf32> -> tensor<8x16xf32>
  %y2 = kiln.add %a2, %c : tensor<8x16xf32>, tensor<8x1xf32> -> tensor<8x16xf32>
  return %a0, %y0, %y1, %y2 : tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>, tensor<8x16xf32>
}

// -----

// A transpose of a MatMul operand's last two dims that only the MatMul reads
// joins its library kernel (cuBLASLt reads that operand transposed: q·kᵀ of
// an attention that is not a kiln.attention, Swin's and Swin-V2's), either
// side, with an epilogue too. One read by another kernel as well, or one
// that moves a batch dim, stays a kernel of its own.
// CHECK-LABEL: func.func @transposed_operands
// CHECK: kiln.kernel "transpose_matmul_0" library ins(%arg1, %arg0 : tensor<2x3x8x16xf16>, tensor<2x3x8x16xf16>) outs(%{{.+}} : tensor<2x3x8x8xf16>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: kiln.transpose %{{.+}} {perm = array<i64: 0, 1, 3, 2>} : tensor<2x3x8x16xf16> -> tensor<2x3x16x8xf16>
// CHECK-NEXT: kiln.matmul
// CHECK-NEXT: kiln.yield
// CHECK: kiln.kernel "transpose_matmul_relu_1" library
// CHECK-SAME: epilogue = #kiln.epilogue<activation = relu>
// CHECK: kiln.transpose %{{.+}} {perm = array<i64: 1, 0>} : tensor<16x8xf16> -> tensor<8x16xf16>
// CHECK-NEXT: kiln.matmul
// CHECK-NEXT: kiln.relu
// CHECK: kiln.kernel "transpose_2" transpose
// CHECK: kiln.kernel "matmul_3" library ins(%arg0, %{{.+}} :
// CHECK: kiln.kernel "transpose_4" data_movement
// CHECK: kiln.kernel "matmul_5" library
func.func @transposed_operands(%q: tensor<2x3x8x16xf16>, %k: tensor<2x3x8x16xf16>, %w: tensor<16x8xf16>, %b: tensor<3x2x16x8xf16>, %x: tensor<16x8xf16>) -> (tensor<2x3x8x8xf16>, tensor<8x8xf16>, tensor<2x3x8x8xf16>, tensor<2x3x16x8xf16>, tensor<2x3x8x8xf16>) {
  %kt = kiln.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x3x8x16xf16> -> tensor<2x3x16x8xf16>
  %s = kiln.matmul %q, %kt : tensor<2x3x8x16xf16>, tensor<2x3x16x8xf16> -> tensor<2x3x8x8xf16>
  %wt = kiln.transpose %w {perm = array<i64: 1, 0>} : tensor<16x8xf16> -> tensor<8x16xf16>
  %p = kiln.matmul %wt, %x : tensor<8x16xf16>, tensor<16x8xf16> -> tensor<8x8xf16>
  %r = kiln.relu %p : tensor<8x8xf16> -> tensor<8x8xf16>
  %qt = kiln.transpose %q {perm = array<i64: 0, 1, 3, 2>} : tensor<2x3x8x16xf16> -> tensor<2x3x16x8xf16>
  %u = kiln.matmul %q, %qt : tensor<2x3x8x16xf16>, tensor<2x3x16x8xf16> -> tensor<2x3x8x8xf16>
  %bt = kiln.transpose %b {perm = array<i64: 1, 0, 2, 3>} : tensor<3x2x16x8xf16> -> tensor<2x3x16x8xf16>
  %v = kiln.matmul %q, %bt : tensor<2x3x8x16xf16>, tensor<2x3x16x8xf16> -> tensor<2x3x8x8xf16>
  return %s, %r, %u, %qt, %v : tensor<2x3x8x8xf16>, tensor<8x8xf16>, tensor<2x3x8x8xf16>, tensor<2x3x16x8xf16>, tensor<2x3x8x8xf16>
}
