// RUN: kiln-opt %s --split-input-file --verify-diagnostics
// Verifier and type-inference errors of kiln ops.

func.func @broadcast_mismatch(%x: tensor<4x3xf32>, %y: tensor<2xf32>) {
  // expected-error @+2 {{operand shapes do not broadcast: tensor<4x3xf32>, tensor<2xf32>}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.add %x, %y : tensor<4x3xf32>, tensor<2xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @element_type_mismatch(%x: tensor<4xf32>, %y: tensor<4xf16>) {
  // expected-error @+2 {{operands must have the same element type}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.mul %x, %y : tensor<4xf32>, tensor<4xf16> -> tensor<4xf32>
  return
}

// -----

func.func @wrong_result_shape(%x: tensor<4x1xf32>, %y: tensor<3xf32>) {
  // expected-error @+2 {{'kiln.add' op inferred type(s) 'tensor<4x3xf32>' are incompatible with return type(s) of operation 'tensor<4x4xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.add %x, %y : tensor<4x1xf32>, tensor<3xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @compare_result_not_bool(%x: tensor<4xf32>) {
  // expected-error @+1 {{result #0 must be tensor of 1-bit signless integer values}}
  %0 = kiln.less %x, %x : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @exp_of_integers(%x: tensor<4xi64>) {
  // expected-error @+1 {{operand #0 must be tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values}}
  %0 = kiln.exp %x : tensor<4xi64> -> tensor<4xi64>
  return
}

// -----

func.func @matmul_contraction(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+2 {{contraction dimensions differ: 3 vs 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.matmul %a, %b : tensor<2x3xf32>, tensor<4x5xf32> -> tensor<2x5xf32>
  return
}

// -----

func.func @gemm_rank(%a: tensor<2x3x4xf32>, %b: tensor<4x5xf32>) {
  // expected-error @+2 {{a and b must be 2-D}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.gemm %a, %b : tensor<2x3x4xf32>, tensor<4x5xf32> -> tensor<2x5xf32>
  return
}

// -----

func.func @gemm_bias(%a: tensor<2x4xf32>, %b: tensor<4x5xf32>, %c: tensor<3xf32>) {
  // expected-error @+2 {{c of type 'tensor<3xf32>' does not broadcast to the result}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.gemm %a, %b, %c : tensor<2x4xf32>, tensor<4x5xf32>, tensor<3xf32> -> tensor<2x5xf32>
  return
}

// -----

func.func @softmax_axis(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{axis 2 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.softmax %x {axis = 2 : i64} : tensor<2x3xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @reduce_axis(%x: tensor<2x3xf32>) {
  %axes = kiln.constant dense<[-3]> : tensor<1xi64>
  // expected-error @+2 {{axis -3 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.reduce_sum %x, %axes : tensor<2x3xf32>, tensor<1xi64> -> tensor<2x1xf32>
  return
}

// -----

func.func @reshape_count(%x: tensor<2x3xf32>) {
  %shape = kiln.constant dense<[4, 2]> : tensor<2xi64>
  // expected-error @+2 {{cannot reshape 'tensor<2x3xf32>' (6 elements) into 8 elements}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.reshape %x, %shape : tensor<2x3xf32>, tensor<2xi64> -> tensor<4x2xf32>
  return
}

// -----

func.func @reshape_two_minus_one(%x: tensor<2x3xf32>) {
  %shape = kiln.constant dense<[-1, -1]> : tensor<2xi64>
  // expected-error @+2 {{shape has more than one -1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.reshape %x, %shape : tensor<2x3xf32>, tensor<2xi64> -> tensor<?x?xf32>
  return
}

// -----

func.func @transpose_perm(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{perm is not a permutation}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.transpose %x {perm = array<i64: 0, 0>} : tensor<2x3xf32> -> tensor<2x2xf32>
  return
}

// -----

func.func @concat_dims(%x: tensor<2x3xf32>, %y: tensor<2x4xf32>) {
  // expected-error @+2 {{dimension 1 differs between inputs: 3 vs 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.concat %x, %y {axis = 0 : i64} : tensor<2x3xf32>, tensor<2x4xf32> -> tensor<4x3xf32>
  return
}

// -----

func.func @gather_axis(%x: tensor<2x3xf32>, %i: tensor<4xi64>) {
  // expected-error @+2 {{axis 2 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.gather %x, %i {axis = 2 : i64} : tensor<2x3xf32>, tensor<4xi64> -> tensor<2x4xf32>
  return
}

// -----

func.func @squeeze_non_unit(%x: tensor<2x3xf32>) {
  %axes = kiln.constant dense<0> : tensor<1xi64>
  // expected-error @+2 {{cannot squeeze dimension 0 of size 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.squeeze %x, %axes : tensor<2x3xf32>, tensor<1xi64> -> tensor<3xf32>
  return
}

// -----

func.func @expand_incompatible(%x: tensor<3xf32>) {
  %shape = kiln.constant dense<[2, 4]> : tensor<2xi64>
  // expected-error @+2 {{input 'tensor<3xf32>' does not broadcast to the requested shape}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.expand %x, %shape : tensor<3xf32>, tensor<2xi64> -> tensor<2x4xf32>
  return
}

// -----

func.func @where_types(%c: tensor<3xi1>, %x: tensor<3xf32>, %y: tensor<3xi64>) {
  // expected-error @+2 {{x and y must have the same element type}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.where %c, %x, %y : tensor<3xi1>, tensor<3xf32>, tensor<3xi64> -> tensor<3xf32>
  return
}

// -----

func.func @constant_type() {
  // expected-error @+1 {{'kiln.constant' op value type 'tensor<2xi64>' differs from result type 'tensor<3xi64>'}}
  %0 = "kiln.constant"() {value = dense<[1, 2]> : tensor<2xi64>} : () -> tensor<3xi64>
  return
}

// -----

// ONNX Pad's axes must be unique (onnxruntime rejects a repeat): a repeated
// axis would be sized by both entries and offset by one.
func.func @pad_repeated_axis(%x: tensor<64x16xf16>) -> tensor<64x24xf16> {
  %pads = kiln.constant dense<[0, 0, 8, 0]> : tensor<4xi64>
  %axes = kiln.constant dense<[1, -1]> : tensor<2xi64>
  // expected-error @+2 {{axis -1 is listed more than once}}
  // expected-error @+1 {{failed to infer returned types}}
  %p = kiln.pad %x, %pads axes %axes : tensor<2xi64> {mode = "edge"} : tensor<64x16xf16>, tensor<4xi64> -> tensor<64x24xf16>
  return %p : tensor<64x24xf16>
}
