// RUN: kiln-opt %s --split-input-file --verify-diagnostics
// Verifier and type-inference errors of the math and logic ops.

func.func @mod_broadcast_mismatch(%x: tensor<4x3xi32>, %y: tensor<2xi32>) {
  // expected-error @+2 {{operand shapes do not broadcast: tensor<4x3xi32>, tensor<2xi32>}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.mod %x, %y : tensor<4x3xi32>, tensor<2xi32> -> tensor<4x3xi32>
  return
}

// -----

func.func @clip_element_types(%x: tensor<4xf32>, %lo: tensor<f16>) {
  // expected-error @+2 {{operands must have the same element type}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.clip %x, %lo, %lo : tensor<4xf32>, tensor<f16>, tensor<f16> -> tensor<4xf32>
  return
}

// -----

func.func @bit_shift_direction(%x: tensor<3xui8>) {
  // expected-error @+2 {{direction must be "left" or "right", got "up"}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.bit_shift %x, %x {direction = "up"} : tensor<3xui8>, tensor<3xui8> -> tensor<3xui8>
  return
}

// -----

func.func @bit_shift_signed(%x: tensor<3xi8>) {
  // expected-error @+1 {{operand #0 must be tensor of 8-bit unsigned integer}}
  %0 = kiln.bit_shift %x, %x {direction = "left"} : tensor<3xi8>, tensor<3xi8> -> tensor<3xi8>
  return
}

// -----

func.func @and_needs_bool(%x: tensor<3xi32>) {
  // expected-error @+1 {{operand #0 must be tensor of 1-bit signless integer values}}
  %0 = kiln.and %x, %x : tensor<3xi32>, tensor<3xi32> -> tensor<3xi1>
  return
}

// -----

func.func @is_nan_result(%x: tensor<3xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<3xi1>' are incompatible with return type(s) of operation 'tensor<4xi1>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.is_nan %x : tensor<3xf32> -> tensor<4xi1>
  return
}

// -----

func.func @elu_on_integers(%x: tensor<3xi32>) {
  // expected-error @+1 {{operand #0 must be tensor of 16-bit float or bfloat16 type or 32-bit float or 64-bit float values}}
  %0 = kiln.elu %x : tensor<3xi32> -> tensor<3xi32>
  return
}
