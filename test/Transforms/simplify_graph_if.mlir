// RUN: kiln-opt %s --kiln-specialize-shapes="shapes=x=2x8,y=1x1x8x8" --kiln-simplify-graph | FileCheck %s
// An If whose condition compares two shapes (DeBERTa-v2's `q_len != k_len`,
// the transformers 5.17 export) becomes its taken branch once the shapes are
// specialised: the shape arithmetic folds the condition to false, and the
// else branch's value flows on with its static type.

// CHECK-LABEL: func.func @shape_condition
// CHECK-NOT:     kiln.if
// CHECK-NOT:     kiln.shape
// CHECK:         %[[N:.+]] = kiln.neg %arg1 : tensor<1x1x8x8xi64> -> tensor<1x1x8x8xi64>
// CHECK:         return %[[N]] : tensor<1x1x8x8xi64>
func.func @shape_condition(%x: tensor<?x?xi64> {kiln.name = "x"}, %y: tensor<1x1x?x?xi64> {kiln.name = "y"}) -> tensor<*xi64> {
  %sx = kiln.shape %x {end = 2 : i64, start = 1 : i64} : tensor<?x?xi64> -> tensor<1xi64>
  %sy = kiln.shape %y {end = 4 : i64, start = 3 : i64} : tensor<1x1x?x?xi64> -> tensor<1xi64>
  %eq = kiln.equal %sx, %sy : tensor<1xi64>, tensor<1xi64> -> tensor<1xi1>
  %ne = kiln.not %eq : tensor<1xi1> -> tensor<1xi1>
  %empty = kiln.constant dense<> : tensor<0xi64>
  %c = kiln.reshape %ne, %empty : tensor<1xi1>, tensor<0xi64> -> tensor<i1>
  %axes = kiln.constant dense<0> : tensor<1xi64>
  %r = kiln.if %c : tensor<i1> then {
    %u = kiln.unsqueeze %x, %axes : tensor<?x?xi64>, tensor<1xi64> -> tensor<1x?x?xi64>
    kiln.yield %u : tensor<1x?x?xi64>
  } else {
    kiln.yield %y : tensor<1x1x?x?xi64>
  } : tensor<*xi64>
  %n = kiln.neg %r : tensor<*xi64> -> tensor<*xi64>
  return %n : tensor<*xi64>
}
