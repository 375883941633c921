// RUN: kiln-opt %s --split-input-file --kiln-recognize-patterns | FileCheck %s

// BERT (TorchScript): ((x * (1 + erf(x / 1.41421354))) * 0.5).
// CHECK-LABEL: func.func @gelu_erf_bert
// CHECK-SAME:    (%[[X:.+]]: tensor<2x8xf32>)
// CHECK-NEXT:    %[[G:.+]] = kiln.gelu %[[X]] : tensor<2x8xf32> -> tensor<2x8xf32>
// CHECK-NEXT:    return %[[G]]
func.func @gelu_erf_bert(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %sqrt2 = kiln.constant dense<1.41421354> : tensor<f32>
  %one = kiln.constant dense<1.0> : tensor<f32>
  %half = kiln.constant dense<0.5> : tensor<f32>
  %0 = kiln.div %x, %sqrt2 : tensor<2x8xf32>, tensor<f32> -> tensor<2x8xf32>
  %1 = kiln.erf %0 : tensor<2x8xf32> -> tensor<2x8xf32>
  %2 = kiln.add %1, %one : tensor<2x8xf32>, tensor<f32> -> tensor<2x8xf32>
  %3 = kiln.mul %x, %2 : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
  %4 = kiln.mul %3, %half : tensor<2x8xf32>, tensor<f32> -> tensor<2x8xf32>
  return %4 : tensor<2x8xf32>
}

// -----

// 0.5 first, the reciprocal written as a product, commuted operands.
// CHECK-LABEL: func.func @gelu_erf_commuted
// CHECK-NEXT:    %[[G:.+]] = kiln.gelu %{{.+}} : tensor<4xf32> -> tensor<4xf32>
// CHECK-NEXT:    return %[[G]]
func.func @gelu_erf_commuted(%x: tensor<4xf32>) -> tensor<4xf32> {
  %rsqrt2 = kiln.constant dense<0.707106769> : tensor<1xf32>
  %one = kiln.constant dense<1.0> : tensor<f32>
  %half = kiln.constant dense<0.5> : tensor<f32>
  %0 = kiln.mul %rsqrt2, %x : tensor<1xf32>, tensor<4xf32> -> tensor<4xf32>
  %1 = kiln.erf %0 : tensor<4xf32> -> tensor<4xf32>
  %2 = kiln.add %one, %1 : tensor<f32>, tensor<4xf32> -> tensor<4xf32>
  %3 = kiln.mul %half, %2 : tensor<f32>, tensor<4xf32> -> tensor<4xf32>
  %4 = kiln.mul %x, %3 : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %4 : tensor<4xf32>
}

// -----

// GPT-2: 0.5 * x * (1 + tanh(0.7978845608 * (x + 0.044715 * pow(x, 3)))).
// CHECK-LABEL: func.func @gelu_tanh_gpt2
// CHECK-SAME:    (%[[X:.+]]: tensor<2x8xf32>)
// CHECK-NEXT:    %[[G:.+]] = kiln.gelu %[[X]] {approximate = "tanh"} : tensor<2x8xf32> -> tensor<2x8xf32>
// CHECK-NEXT:    return %[[G]]
func.func @gelu_tanh_gpt2(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %half = kiln.constant dense<0.5> : tensor<f32>
  %three = kiln.constant dense<3.0> : tensor<f32>
  %c = kiln.constant dense<4.471500e-02> : tensor<f32>
  %s = kiln.constant dense<0.797884583> : tensor<f32>
  %one = kiln.constant dense<1.0> : tensor<f32>
  %0 = kiln.mul %x, %half : tensor<2x8xf32>, tensor<f32> -> tensor<2x8xf32>
  %1 = kiln.pow %x, %three : tensor<2x8xf32>, tensor<f32> -> tensor<2x8xf32>
  %2 = kiln.mul %1, %c : tensor<2x8xf32>, tensor<f32> -> tensor<2x8xf32>
  %3 = kiln.add %x, %2 : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
  %4 = kiln.mul %3, %s : tensor<2x8xf32>, tensor<f32> -> tensor<2x8xf32>
  %5 = kiln.tanh %4 : tensor<2x8xf32> -> tensor<2x8xf32>
  %6 = kiln.add %5, %one : tensor<2x8xf32>, tensor<f32> -> tensor<2x8xf32>
  %7 = kiln.mul %0, %6 : tensor<2x8xf32>, tensor<2x8xf32> -> tensor<2x8xf32>
  return %7 : tensor<2x8xf32>
}

// -----

// x * x * x, commuted sums and products, f16 constants (matched within the
// type's precision).
// CHECK-LABEL: func.func @gelu_tanh_cube_f16
// CHECK-NEXT:    %[[G:.+]] = kiln.gelu %{{.+}} {approximate = "tanh"} : tensor<8xf16> -> tensor<8xf16>
// CHECK-NEXT:    return %[[G]]
func.func @gelu_tanh_cube_f16(%x: tensor<8xf16>) -> tensor<8xf16> {
  %half = kiln.constant dense<0.5> : tensor<f16>
  %c = kiln.constant dense<4.471500e-02> : tensor<f16>
  %s = kiln.constant dense<0.797884583> : tensor<f16>
  %one = kiln.constant dense<1.0> : tensor<f16>
  %sq = kiln.mul %x, %x : tensor<8xf16>, tensor<8xf16> -> tensor<8xf16>
  %cube = kiln.mul %x, %sq : tensor<8xf16>, tensor<8xf16> -> tensor<8xf16>
  %2 = kiln.mul %c, %cube : tensor<f16>, tensor<8xf16> -> tensor<8xf16>
  %3 = kiln.add %2, %x : tensor<8xf16>, tensor<8xf16> -> tensor<8xf16>
  %4 = kiln.mul %s, %3 : tensor<f16>, tensor<8xf16> -> tensor<8xf16>
  %5 = kiln.tanh %4 : tensor<8xf16> -> tensor<8xf16>
  %6 = kiln.add %one, %5 : tensor<f16>, tensor<8xf16> -> tensor<8xf16>
  %7 = kiln.mul %x, %6 : tensor<8xf16>, tensor<8xf16> -> tensor<8xf16>
  %8 = kiln.mul %half, %7 : tensor<f16>, tensor<8xf16> -> tensor<8xf16>
  return %8 : tensor<8xf16>
}

// -----

// An intermediate with another user: nothing changes.
// CHECK-LABEL: func.func @gelu_shared_erf
// CHECK-NOT:     kiln.gelu
// CHECK:         kiln.erf
func.func @gelu_shared_erf(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %sqrt2 = kiln.constant dense<1.41421354> : tensor<f32>
  %one = kiln.constant dense<1.0> : tensor<f32>
  %half = kiln.constant dense<0.5> : tensor<f32>
  %0 = kiln.div %x, %sqrt2 : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  %1 = kiln.erf %0 : tensor<4xf32> -> tensor<4xf32>
  %2 = kiln.add %1, %one : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  %3 = kiln.mul %x, %2 : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %4 = kiln.mul %3, %half : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  return %4, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// A wrong constant (0.6 instead of 0.5): nothing changes.
// CHECK-LABEL: func.func @gelu_wrong_constant
// CHECK-NOT:     kiln.gelu
func.func @gelu_wrong_constant(%x: tensor<4xf32>) -> tensor<4xf32> {
  %sqrt2 = kiln.constant dense<1.41421354> : tensor<f32>
  %one = kiln.constant dense<1.0> : tensor<f32>
  %c = kiln.constant dense<0.6> : tensor<f32>
  %0 = kiln.div %x, %sqrt2 : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  %1 = kiln.erf %0 : tensor<4xf32> -> tensor<4xf32>
  %2 = kiln.add %1, %one : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  %3 = kiln.mul %x, %2 : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %4 = kiln.mul %3, %c : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  return %4 : tensor<4xf32>
}

// -----

// BERT and GPT-2 attention: K comes transposed from [b, s, h, d] by
// [0, 2, 3, 1]; composed with the swap that gives [0, 2, 1, 3].
// CHECK-LABEL: func.func @attention_bert
// CHECK-SAME:    (%[[Q:[^:]+]]: tensor<1x2x8x4xf32>, %[[KR:[^:]+]]: tensor<1x8x2x4xf32>, %[[V:[^:]+]]: tensor<1x2x8x4xf32>, %[[M:[^:]+]]: tensor<1x1x8x8xf32>)
// CHECK-NEXT:    %[[K:.+]] = kiln.transpose %[[KR]] {perm = array<i64: 0, 2, 1, 3>} : tensor<1x8x2x4xf32> -> tensor<1x2x8x4xf32>
// CHECK-NEXT:    %[[O:.+]] = kiln.attention %[[Q]], %[[K]], %[[V]], %[[M]] {scale = 5.000000e-01 : f32} : tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x1x8x8xf32> -> tensor<1x2x8x4xf32>
// CHECK-NEXT:    return %[[O]]
func.func @attention_bert(%q: tensor<1x2x8x4xf32>, %k: tensor<1x8x2x4xf32>, %v: tensor<1x2x8x4xf32>, %mask: tensor<1x1x8x8xf32>) -> tensor<1x2x8x4xf32> {
  %scale = kiln.constant dense<0.5> : tensor<f32>
  %kt = kiln.transpose %k {perm = array<i64: 0, 2, 3, 1>} : tensor<1x8x2x4xf32> -> tensor<1x2x4x8xf32>
  %0 = kiln.matmul %q, %kt : tensor<1x2x8x4xf32>, tensor<1x2x4x8xf32> -> tensor<1x2x8x8xf32>
  %1 = kiln.mul %0, %scale : tensor<1x2x8x8xf32>, tensor<f32> -> tensor<1x2x8x8xf32>
  %2 = kiln.add %1, %mask : tensor<1x2x8x8xf32>, tensor<1x1x8x8xf32> -> tensor<1x2x8x8xf32>
  %3 = kiln.softmax %2 : tensor<1x2x8x8xf32> -> tensor<1x2x8x8xf32>
  %4 = kiln.matmul %3, %v : tensor<1x2x8x8xf32>, tensor<1x2x8x4xf32> -> tensor<1x2x8x4xf32>
  return %4 : tensor<1x2x8x4xf32>
}

// -----

// Division by a scalar, no mask, K^T transposed from K by [0, 2, 1]: the
// composition is the identity, so K is used directly.
// CHECK-LABEL: func.func @attention_div_no_mask
// CHECK-SAME:    (%[[Q:[^:]+]]: tensor<3x5x4xf32>, %[[K:[^:]+]]: tensor<3x6x4xf32>, %[[V:[^:]+]]: tensor<3x6x7xf32>)
// CHECK-NEXT:    %[[O:.+]] = kiln.attention %[[Q]], %[[K]], %[[V]] {scale = 2.500000e-01 : f32} : tensor<3x5x4xf32>, tensor<3x6x4xf32>, tensor<3x6x7xf32> -> tensor<3x5x7xf32>
// CHECK-NEXT:    return %[[O]]
func.func @attention_div_no_mask(%q: tensor<3x5x4xf32>, %k: tensor<3x6x4xf32>, %v: tensor<3x6x7xf32>) -> tensor<3x5x7xf32> {
  %four = kiln.constant dense<4.0> : tensor<f32>
  %kt = kiln.transpose %k {perm = array<i64: 0, 2, 1>} : tensor<3x6x4xf32> -> tensor<3x4x6xf32>
  %0 = kiln.matmul %q, %kt : tensor<3x5x4xf32>, tensor<3x4x6xf32> -> tensor<3x5x6xf32>
  %1 = kiln.div %0, %four : tensor<3x5x6xf32>, tensor<f32> -> tensor<3x5x6xf32>
  %2 = kiln.softmax %1 {axis = 2 : i64} : tensor<3x5x6xf32> -> tensor<3x5x6xf32>
  %3 = kiln.matmul %2, %v : tensor<3x5x6xf32>, tensor<3x6x7xf32> -> tensor<3x5x7xf32>
  return %3 : tensor<3x5x7xf32>
}

// -----

// No scale, a padding mask [b, 1, 1, sk] added on the left, K^T given as is:
// a transpose swapping the last two dims is inserted.
// CHECK-LABEL: func.func @attention_unscaled_padding
// CHECK-SAME:    (%[[Q:[^:]+]]: tensor<2x3x5x4xf32>, %[[KT:[^:]+]]: tensor<2x3x4x6xf32>, %[[V:[^:]+]]: tensor<2x3x6x4xf32>, %[[M:[^:]+]]: tensor<2x1x1x6xf32>)
// CHECK-NEXT:    %[[K:.+]] = kiln.transpose %[[KT]] {perm = array<i64: 0, 1, 3, 2>} : tensor<2x3x4x6xf32> -> tensor<2x3x6x4xf32>
// CHECK-NEXT:    %[[O:.+]] = kiln.attention %[[Q]], %[[K]], %[[V]], %[[M]] : tensor
// CHECK-NEXT:    return %[[O]]
func.func @attention_unscaled_padding(%q: tensor<2x3x5x4xf32>, %kt: tensor<2x3x4x6xf32>, %v: tensor<2x3x6x4xf32>, %mask: tensor<2x1x1x6xf32>) -> tensor<2x3x5x4xf32> {
  %0 = kiln.matmul %q, %kt : tensor<2x3x5x4xf32>, tensor<2x3x4x6xf32> -> tensor<2x3x5x6xf32>
  %1 = kiln.add %mask, %0 : tensor<2x1x1x6xf32>, tensor<2x3x5x6xf32> -> tensor<2x3x5x6xf32>
  %2 = kiln.softmax %1 : tensor<2x3x5x6xf32> -> tensor<2x3x5x6xf32>
  %3 = kiln.matmul %2, %v : tensor<2x3x5x6xf32>, tensor<2x3x6x4xf32> -> tensor<2x3x5x4xf32>
  return %3 : tensor<2x3x5x4xf32>
}

// -----

// A scale that is not a scalar: nothing changes.
// CHECK-LABEL: func.func @attention_vector_scale
// CHECK-NOT:     kiln.attention
// CHECK:         kiln.softmax
func.func @attention_vector_scale(%q: tensor<5x4xf32>, %kt: tensor<4x6xf32>, %v: tensor<6x4xf32>, %s: tensor<6xf32>) -> tensor<5x4xf32> {
  %0 = kiln.matmul %q, %kt : tensor<5x4xf32>, tensor<4x6xf32> -> tensor<5x6xf32>
  %1 = kiln.mul %0, %s : tensor<5x6xf32>, tensor<6xf32> -> tensor<5x6xf32>
  %2 = kiln.softmax %1 : tensor<5x6xf32> -> tensor<5x6xf32>
  %3 = kiln.matmul %2, %v : tensor<5x6xf32>, tensor<6x4xf32> -> tensor<5x4xf32>
  return %3 : tensor<5x4xf32>
}

// -----

// Softmax over another axis: nothing changes.
// CHECK-LABEL: func.func @attention_softmax_axis0
// CHECK-NOT:     kiln.attention
// CHECK:         kiln.softmax
func.func @attention_softmax_axis0(%q: tensor<6x4xf32>, %kt: tensor<4x6xf32>, %v: tensor<6x4xf32>) -> tensor<6x4xf32> {
  %0 = kiln.matmul %q, %kt : tensor<6x4xf32>, tensor<4x6xf32> -> tensor<6x6xf32>
  %1 = kiln.softmax %0 {axis = 0 : i64} : tensor<6x6xf32> -> tensor<6x6xf32>
  %2 = kiln.matmul %1, %v : tensor<6x6xf32>, tensor<6x4xf32> -> tensor<6x4xf32>
  return %2 : tensor<6x4xf32>
}

// -----

// The probabilities are also returned: nothing changes.
// CHECK-LABEL: func.func @attention_probs_used
// CHECK-NOT:     kiln.attention
// CHECK:         kiln.softmax
func.func @attention_probs_used(%q: tensor<5x4xf32>, %kt: tensor<4x6xf32>, %v: tensor<6x4xf32>) -> (tensor<5x4xf32>, tensor<5x6xf32>) {
  %0 = kiln.matmul %q, %kt : tensor<5x4xf32>, tensor<4x6xf32> -> tensor<5x6xf32>
  %1 = kiln.softmax %0 : tensor<5x6xf32> -> tensor<5x6xf32>
  %2 = kiln.matmul %1, %v : tensor<5x6xf32>, tensor<6x4xf32> -> tensor<5x4xf32>
  return %2, %1 : tensor<5x4xf32>, tensor<5x6xf32>
}

// -----

// The scaled scores have another user: nothing changes.
// CHECK-LABEL: func.func @attention_scores_used
// CHECK-NOT:     kiln.attention
// CHECK:         kiln.softmax
func.func @attention_scores_used(%q: tensor<5x4xf32>, %kt: tensor<4x6xf32>, %v: tensor<6x4xf32>) -> (tensor<5x4xf32>, tensor<5x6xf32>) {
  %c = kiln.constant dense<0.5> : tensor<f32>
  %0 = kiln.matmul %q, %kt : tensor<5x4xf32>, tensor<4x6xf32> -> tensor<5x6xf32>
  %1 = kiln.mul %0, %c : tensor<5x6xf32>, tensor<f32> -> tensor<5x6xf32>
  %2 = kiln.softmax %1 : tensor<5x6xf32> -> tensor<5x6xf32>
  %3 = kiln.matmul %2, %v : tensor<5x6xf32>, tensor<6x4xf32> -> tensor<5x4xf32>
  return %3, %1 : tensor<5x4xf32>, tensor<5x6xf32>
}

// -----

// A mask that broadcasts the scores to a larger shape: nothing changes.
// CHECK-LABEL: func.func @attention_mask_grows
// CHECK-NOT:     kiln.attention
func.func @attention_mask_grows(%q: tensor<5x4xf32>, %kt: tensor<4x6xf32>, %v: tensor<6x4xf32>, %mask: tensor<2x5x6xf32>) -> tensor<2x5x4xf32> {
  %0 = kiln.matmul %q, %kt : tensor<5x4xf32>, tensor<4x6xf32> -> tensor<5x6xf32>
  %1 = kiln.add %0, %mask : tensor<5x6xf32>, tensor<2x5x6xf32> -> tensor<2x5x6xf32>
  %2 = kiln.softmax %1 : tensor<2x5x6xf32> -> tensor<2x5x6xf32>
  %3 = kiln.matmul %2, %v : tensor<2x5x6xf32>, tensor<6x4xf32> -> tensor<2x5x4xf32>
  return %3 : tensor<2x5x4xf32>
}

// -----

// Swin-V2's per-head logit scale [h, 1, 1] multiplies the scores: it is
// constant over each matrix, so it moves onto q.
// CHECK-LABEL: func.func @attention_head_scale
// CHECK-SAME:    (%[[Q:[^:]+]]: tensor<4x2x5x8xf32>, %[[K:[^:]+]]: tensor<4x2x6x8xf32>, %[[V:[^:]+]]: tensor<4x2x6x8xf32>, %[[S:[^:]+]]: tensor<2x1x1xf32>, %[[B:[^:]+]]: tensor<1x2x5x6xf32>)
// CHECK-NEXT:    %[[QS:.+]] = kiln.mul %[[Q]], %[[S]] : tensor<4x2x5x8xf32>, tensor<2x1x1xf32> -> tensor<4x2x5x8xf32>
// CHECK-NEXT:    %[[O:.+]] = kiln.attention %[[QS]], %[[K]], %[[V]], %[[B]] : tensor
// CHECK-NEXT:    return %[[O]]
func.func @attention_head_scale(%q: tensor<4x2x5x8xf32>, %k: tensor<4x2x6x8xf32>, %v: tensor<4x2x6x8xf32>, %s: tensor<2x1x1xf32>, %bias: tensor<1x2x5x6xf32>) -> tensor<4x2x5x8xf32> {
  %kt = kiln.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<4x2x6x8xf32> -> tensor<4x2x8x6xf32>
  %0 = kiln.matmul %q, %kt : tensor<4x2x5x8xf32>, tensor<4x2x8x6xf32> -> tensor<4x2x5x6xf32>
  %1 = kiln.mul %0, %s : tensor<4x2x5x6xf32>, tensor<2x1x1xf32> -> tensor<4x2x5x6xf32>
  %2 = kiln.add %1, %bias : tensor<4x2x5x6xf32>, tensor<1x2x5x6xf32> -> tensor<4x2x5x6xf32>
  %3 = kiln.softmax %2 : tensor<4x2x5x6xf32> -> tensor<4x2x5x6xf32>
  %4 = kiln.matmul %3, %v : tensor<4x2x5x6xf32>, tensor<4x2x6x8xf32> -> tensor<4x2x5x8xf32>
  return %4 : tensor<4x2x5x8xf32>
}

// -----

// A factor that varies along the rows ([h, sq, 1]) is not one per matrix:
// nothing changes.
// CHECK-LABEL: func.func @attention_row_scale
// CHECK-NOT:     kiln.attention
// CHECK:         kiln.softmax
func.func @attention_row_scale(%q: tensor<4x2x5x8xf32>, %kt: tensor<4x2x8x6xf32>, %v: tensor<4x2x6x8xf32>, %s: tensor<2x5x1xf32>) -> tensor<4x2x5x8xf32> {
  %0 = kiln.matmul %q, %kt : tensor<4x2x5x8xf32>, tensor<4x2x8x6xf32> -> tensor<4x2x5x6xf32>
  %1 = kiln.mul %0, %s : tensor<4x2x5x6xf32>, tensor<2x5x1xf32> -> tensor<4x2x5x6xf32>
  %2 = kiln.softmax %1 : tensor<4x2x5x6xf32> -> tensor<4x2x5x6xf32>
  %3 = kiln.matmul %2, %v : tensor<4x2x5x6xf32>, tensor<4x2x6x8xf32> -> tensor<4x2x5x8xf32>
  return %3 : tensor<4x2x5x8xf32>
}

// -----

// Swin's shifted windows: the scores (+ the position bias) viewed as
// [B, W, h, N, N] to add the window mask [1, W, 1, N, N], then viewed back.
// The attention is made in that view: q, k and v split alike (the bias's
// leading 1 into 1 x 1), the two masks added into one, the result viewed
// back.
// CHECK-LABEL: func.func @attention_shifted_windows
// CHECK-SAME:    (%[[Q:[^:]+]]: tensor<6x2x4x8xf32>, %[[K:[^:]+]]: tensor<6x2x4x8xf32>, %[[V:[^:]+]]: tensor<6x2x4x8xf32>, %[[B:[^:]+]]: tensor<1x2x4x4xf32>, %[[M:[^:]+]]: tensor<3x4x4xf32>)
// CHECK-DAG:     %[[Q5:.+]] = kiln.reshape %[[Q]], %{{.+}} : tensor<6x2x4x8xf32>, tensor<5xi64> -> tensor<2x3x2x4x8xf32>
// CHECK-DAG:     %[[K5:.+]] = kiln.reshape %[[K]], %{{.+}} : tensor<6x2x4x8xf32>, tensor<5xi64> -> tensor<2x3x2x4x8xf32>
// CHECK-DAG:     %[[V5:.+]] = kiln.reshape %[[V]], %{{.+}} : tensor<6x2x4x8xf32>, tensor<5xi64> -> tensor<2x3x2x4x8xf32>
// CHECK-DAG:     %[[B5:.+]] = kiln.reshape %[[B]], %{{.+}} : tensor<1x2x4x4xf32>, tensor<5xi64> -> tensor<1x1x2x4x4xf32>
// CHECK:         %[[MASK:.+]] = kiln.add %[[B5]], %{{.+}} : tensor<1x1x2x4x4xf32>, tensor<1x3x1x4x4xf32> -> tensor<1x3x2x4x4xf32>
// CHECK:         %[[O5:.+]] = kiln.attention %[[Q5]], %[[K5]], %[[V5]], %[[MASK]] {scale = 5.000000e-01 : f32} : {{.*}} -> tensor<2x3x2x4x8xf32>
// CHECK:         %[[O:.+]] = kiln.reshape %[[O5]], %{{.+}} : tensor<2x3x2x4x8xf32>, tensor<4xi64> -> tensor<6x2x4x8xf32>
// CHECK-NEXT:    return %[[O]]
func.func @attention_shifted_windows(%q: tensor<6x2x4x8xf32>, %k: tensor<6x2x4x8xf32>, %v: tensor<6x2x4x8xf32>, %bias: tensor<1x2x4x4xf32>, %mask: tensor<3x4x4xf32>) -> tensor<6x2x4x8xf32> {
  %scale = kiln.constant dense<0.5> : tensor<f32>
  %kt = kiln.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<6x2x4x8xf32> -> tensor<6x2x8x4xf32>
  %0 = kiln.matmul %q, %kt : tensor<6x2x4x8xf32>, tensor<6x2x8x4xf32> -> tensor<6x2x4x4xf32>
  %1 = kiln.mul %0, %scale : tensor<6x2x4x4xf32>, tensor<f32> -> tensor<6x2x4x4xf32>
  %2 = kiln.add %1, %bias : tensor<6x2x4x4xf32>, tensor<1x2x4x4xf32> -> tensor<6x2x4x4xf32>
  %split = kiln.constant dense<[2, 3, 2, 4, 4]> : tensor<5xi64>
  %3 = kiln.reshape %2, %split : tensor<6x2x4x4xf32>, tensor<5xi64> -> tensor<2x3x2x4x4xf32>
  %one = kiln.constant dense<1> : tensor<1xi64>
  %zero = kiln.constant dense<0> : tensor<1xi64>
  %m1 = kiln.unsqueeze %mask, %one : tensor<3x4x4xf32>, tensor<1xi64> -> tensor<3x1x4x4xf32>
  %m5 = kiln.unsqueeze %m1, %zero : tensor<3x1x4x4xf32>, tensor<1xi64> -> tensor<1x3x1x4x4xf32>
  %4 = kiln.add %3, %m5 : tensor<2x3x2x4x4xf32>, tensor<1x3x1x4x4xf32> -> tensor<2x3x2x4x4xf32>
  %back = kiln.constant dense<[6, 2, 4, 4]> : tensor<4xi64>
  %5 = kiln.reshape %4, %back : tensor<2x3x2x4x4xf32>, tensor<4xi64> -> tensor<6x2x4x4xf32>
  %6 = kiln.softmax %5 : tensor<6x2x4x4xf32> -> tensor<6x2x4x4xf32>
  %7 = kiln.matmul %6, %v : tensor<6x2x4x4xf32>, tensor<6x2x4x8xf32> -> tensor<6x2x4x8xf32>
  return %7 : tensor<6x2x4x8xf32>
}

// -----

// The split view's mask is itself a view of a tensor of the scores' shape,
// and the left term of the add: both terms look like the split scores, and
// the one whose inner value is the scores is taken, whatever their order.
// CHECK-LABEL: func.func @attention_split_view_mask_first
// CHECK-SAME:    (%[[Q:[^:]+]]: tensor<6x2x4x8xf32>, %[[KT:[^:]+]]: tensor<6x2x8x4xf32>, %[[V:[^:]+]]: tensor<6x2x4x8xf32>, %[[M:[^:]+]]: tensor<6x2x4x4xf32>)
// CHECK-DAG:     %[[M5:.+]] = kiln.reshape %[[M]], %{{.+}} : tensor<6x2x4x4xf32>, tensor<5xi64> -> tensor<2x3x2x4x4xf32>
// CHECK:         %[[O5:.+]] = kiln.attention %{{.+}}, %{{.+}}, %{{.+}}, %[[M5]] : {{.*}} -> tensor<2x3x2x4x8xf32>
// CHECK:         %[[O:.+]] = kiln.reshape %[[O5]], %{{.+}} : tensor<2x3x2x4x8xf32>, tensor<4xi64> -> tensor<6x2x4x8xf32>
// CHECK-NEXT:    return %[[O]]
func.func @attention_split_view_mask_first(%q: tensor<6x2x4x8xf32>, %kt: tensor<6x2x8x4xf32>, %v: tensor<6x2x4x8xf32>, %mask: tensor<6x2x4x4xf32>) -> tensor<6x2x4x8xf32> {
  %0 = kiln.matmul %q, %kt : tensor<6x2x4x8xf32>, tensor<6x2x8x4xf32> -> tensor<6x2x4x4xf32>
  %split = kiln.constant dense<[2, 3, 2, 4, 4]> : tensor<5xi64>
  %m5 = kiln.reshape %mask, %split : tensor<6x2x4x4xf32>, tensor<5xi64> -> tensor<2x3x2x4x4xf32>
  %s5 = kiln.reshape %0, %split : tensor<6x2x4x4xf32>, tensor<5xi64> -> tensor<2x3x2x4x4xf32>
  %1 = kiln.add %m5, %s5 : tensor<2x3x2x4x4xf32>, tensor<2x3x2x4x4xf32> -> tensor<2x3x2x4x4xf32>
  %back = kiln.constant dense<[6, 2, 4, 4]> : tensor<4xi64>
  %2 = kiln.reshape %1, %back : tensor<2x3x2x4x4xf32>, tensor<4xi64> -> tensor<6x2x4x4xf32>
  %3 = kiln.softmax %2 : tensor<6x2x4x4xf32> -> tensor<6x2x4x4xf32>
  %4 = kiln.matmul %3, %v : tensor<6x2x4x4xf32>, tensor<6x2x4x8xf32> -> tensor<6x2x4x8xf32>
  return %4 : tensor<6x2x4x8xf32>
}

// -----

// A view that splits another dim than the first (the heads): nothing
// changes.
// CHECK-LABEL: func.func @attention_split_heads_view
// CHECK-NOT:     kiln.attention
// CHECK:         kiln.softmax
func.func @attention_split_heads_view(%q: tensor<2x6x4x8xf32>, %kt: tensor<2x6x8x4xf32>, %v: tensor<2x6x4x8xf32>, %mask: tensor<1x1x3x4x4xf32>) -> tensor<2x6x4x8xf32> {
  %0 = kiln.matmul %q, %kt : tensor<2x6x4x8xf32>, tensor<2x6x8x4xf32> -> tensor<2x6x4x4xf32>
  %split = kiln.constant dense<[2, 2, 3, 4, 4]> : tensor<5xi64>
  %1 = kiln.reshape %0, %split : tensor<2x6x4x4xf32>, tensor<5xi64> -> tensor<2x2x3x4x4xf32>
  %2 = kiln.add %1, %mask : tensor<2x2x3x4x4xf32>, tensor<1x1x3x4x4xf32> -> tensor<2x2x3x4x4xf32>
  %back = kiln.constant dense<[2, 6, 4, 4]> : tensor<4xi64>
  %3 = kiln.reshape %2, %back : tensor<2x2x3x4x4xf32>, tensor<4xi64> -> tensor<2x6x4x4xf32>
  %4 = kiln.softmax %3 : tensor<2x6x4x4xf32> -> tensor<2x6x4x4xf32>
  %5 = kiln.matmul %4, %v : tensor<2x6x4x4xf32>, tensor<2x6x4x8xf32> -> tensor<2x6x4x8xf32>
  return %5 : tensor<2x6x4x8xf32>
}

// -----

// Rank-2 scores: their first dim is the query rows, not a batch; splitting
// it would attend each group of queries to part of the keys. Nothing
// changes.
// CHECK-LABEL: func.func @attention_split_query_rows
// CHECK-NOT:     kiln.attention
// CHECK:         kiln.softmax
func.func @attention_split_query_rows(%q: tensor<4x4xf32>, %kt: tensor<4x4xf32>, %v: tensor<4x4xf32>, %m: tensor<2x2x1xf32>) -> tensor<4x4xf32> {
  %s = kiln.matmul %q, %kt : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  %split = kiln.constant dense<[2, 2, 4]> : tensor<3xi64>
  %s3 = kiln.reshape %s, %split : tensor<4x4xf32>, tensor<3xi64> -> tensor<2x2x4xf32>
  %a3 = kiln.add %s3, %m : tensor<2x2x4xf32>, tensor<2x2x1xf32> -> tensor<2x2x4xf32>
  %back = kiln.constant dense<[4, 4]> : tensor<2xi64>
  %a = kiln.reshape %a3, %back : tensor<2x2x4xf32>, tensor<2xi64> -> tensor<4x4xf32>
  %p = kiln.softmax %a : tensor<4x4xf32> -> tensor<4x4xf32>
  %o = kiln.matmul %p, %v : tensor<4x4xf32>, tensor<4x4xf32> -> tensor<4x4xf32>
  return %o : tensor<4x4xf32>
}
