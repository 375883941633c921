// RUN: kiln-opt %s --split-input-file --kiln-inline-constant-ifs | FileCheck %s

// A false condition: the else branch replaces the if, and the results' types
// (here unranked, the branches having different ranks) are refined.
// CHECK-LABEL: func.func @else_taken
// CHECK-NOT:     kiln.if
// CHECK-NOT:     kiln.unsqueeze
// CHECK:         %[[N:.+]] = kiln.neg %arg1 : tensor<1x1x4x4xi64> -> tensor<1x1x4x4xi64>
// CHECK:         return %[[N]] : tensor<1x1x4x4xi64>
func.func @else_taken(%x: tensor<4x4xi64>, %y: tensor<1x1x4x4xi64>) -> tensor<*xi64> {
  %c = kiln.constant dense<false> : tensor<i1>
  %axes = kiln.constant dense<0> : tensor<1xi64>
  %r = kiln.if %c : tensor<i1> then {
    %u = kiln.unsqueeze %x, %axes : tensor<4x4xi64>, tensor<1xi64> -> tensor<1x4x4xi64>
    kiln.yield %u : tensor<1x4x4xi64>
  } else {
    kiln.yield %y : tensor<1x1x4x4xi64>
  } : tensor<*xi64>
  %n = kiln.neg %r : tensor<*xi64> -> tensor<*xi64>
  return %n : tensor<*xi64>
}

// -----

// A true condition: the then branch's ops move before the if.
// CHECK-LABEL: func.func @then_taken
// CHECK-NOT:     kiln.if
// CHECK:         %[[U:.+]] = kiln.unsqueeze %arg0, %{{.+}} : tensor<4x4xi64>, tensor<1xi64> -> tensor<1x4x4xi64>
// CHECK:         return %[[U]] : tensor<1x4x4xi64>
func.func @then_taken(%x: tensor<4x4xi64>, %y: tensor<1x1x4x4xi64>) -> tensor<*xi64> {
  %c = kiln.constant dense<true> : tensor<i1>
  %axes = kiln.constant dense<0> : tensor<1xi64>
  %r = kiln.if %c : tensor<i1> then {
    %u = kiln.unsqueeze %x, %axes : tensor<4x4xi64>, tensor<1xi64> -> tensor<1x4x4xi64>
    kiln.yield %u : tensor<1x4x4xi64>
  } else {
    kiln.yield %y : tensor<1x1x4x4xi64>
  } : tensor<*xi64>
  return %r : tensor<*xi64>
}

// -----

// A condition that is not a constant: the if stays.
// CHECK-LABEL: func.func @data_condition
// CHECK:         kiln.if %arg0
func.func @data_condition(%c: tensor<i1>, %x: tensor<4xf32>, %y: tensor<1x4xf32>) -> tensor<*xf32> {
  %r = kiln.if %c : tensor<i1> then {
    kiln.yield %x : tensor<4xf32>
  } else {
    kiln.yield %y : tensor<1x4xf32>
  } : tensor<*xf32>
  return %r : tensor<*xf32>
}
