// RUN: kiln-opt %s --split-input-file --kiln-fold-constants | FileCheck %s
// RUN: kiln-opt %s --split-input-file --kiln-fold-constants=max-bytes=8 | FileCheck %s --check-prefix=CAPPED

// CHECK-LABEL: func.func @concat
// CHECK-NEXT: %[[C:.+]] = kiln.constant dense<[2, 3, 4]> : tensor<3xi64>
// CHECK-NEXT: return %[[C]]
// CAPPED-LABEL: func.func @concat
// CAPPED: kiln.concat
func.func @concat() -> tensor<3xi64> {
  %a = kiln.constant dense<[2, 3]> : tensor<2xi64>
  %b = kiln.constant dense<[4]> : tensor<1xi64>
  %c = kiln.concat %a, %b {axis = 0 : i64} : tensor<2xi64>, tensor<1xi64> -> tensor<3xi64>
  return %c : tensor<3xi64>
}

// -----

// A chain folds in one pass because ops are visited in program order.
// CHECK-LABEL: func.func @arithmetic_chain
// CHECK-NEXT: %[[C:.+]] = kiln.constant dense<[3.000000e+00, 5.000000e+00]> : tensor<2xf32>
// CHECK-NEXT: return %[[C]]
func.func @arithmetic_chain() -> tensor<2xf32> {
  %a = kiln.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = kiln.constant dense<1.0> : tensor<f32>
  %s = kiln.add %a, %a : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
  %t = kiln.add %s, %b : tensor<2xf32>, tensor<f32> -> tensor<2xf32>
  return %t : tensor<2xf32>
}

// -----

// Operands that are not constant block folding.
// CHECK-LABEL: func.func @not_constant
// CHECK: kiln.add
func.func @not_constant(%x: tensor<2xf32>) -> tensor<2xf32> {
  %a = kiln.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %s = kiln.add %a, %x : tensor<2xf32>, tensor<2xf32> -> tensor<2xf32>
  return %s : tensor<2xf32>
}

// -----

// A folded result fixes a dynamic result type and the function's signature.
// CHECK-LABEL: func.func @refines_signature
// CHECK-SAME: -> tensor<4xi64>
// CHECK: kiln.constant dense<[1, 2, 3, 4]> : tensor<4xi64>
func.func @refines_signature() -> tensor<?xi64> {
  %a = kiln.constant dense<[[1, 2], [3, 4]]> : tensor<2x2xi64>
  %s = kiln.constant dense<[-1]> : tensor<1xi64>
  %r = kiln.reshape %a, %s : tensor<2x2xi64>, tensor<1xi64> -> tensor<?xi64>
  return %r : tensor<?xi64>
}
