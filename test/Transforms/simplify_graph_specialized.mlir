// RUN: kiln-opt %s --kiln-specialize-shapes="shapes=seq=16" --kiln-simplify-graph | FileCheck %s

// With seq specialised, the whole head-split shape computation folds away.
// CHECK-LABEL: func.func @head_split
// CHECK-SAME: -> tensor<2x16x12x64xf32>
// CHECK-NOT: kiln.shape
// CHECK-NOT: kiln.gather
// CHECK-NOT: kiln.concat
// CHECK: %[[NEW:.+]] = kiln.constant dense<[2, 16, 12, 64]> : tensor<4xi64>
// CHECK: kiln.reshape %arg0, %[[NEW]] : tensor<2x16x768xf32>, tensor<4xi64> -> tensor<2x16x12x64xf32>
func.func @head_split(%x: tensor<2x?x768xf32> {kiln.name = "hidden", kiln.dim_names = ["", "seq", ""]}) -> tensor<?x?x?x?xf32> {
  %shape = kiln.shape %x : tensor<2x?x768xf32> -> tensor<3xi64>
  %i0 = kiln.constant dense<0> : tensor<i64>
  %i1 = kiln.constant dense<1> : tensor<i64>
  %b = kiln.gather %shape, %i0 {axis = 0 : i64} : tensor<3xi64>, tensor<i64> -> tensor<i64>
  %s = kiln.gather %shape, %i1 {axis = 0 : i64} : tensor<3xi64>, tensor<i64> -> tensor<i64>
  %axes = kiln.constant dense<0> : tensor<1xi64>
  %b1 = kiln.unsqueeze %b, %axes : tensor<i64>, tensor<1xi64> -> tensor<1xi64>
  %s1 = kiln.unsqueeze %s, %axes : tensor<i64>, tensor<1xi64> -> tensor<1xi64>
  %heads = kiln.constant dense<[12, 64]> : tensor<2xi64>
  %new = kiln.concat %b1, %s1, %heads {axis = 0 : i64} : tensor<1xi64>, tensor<1xi64>, tensor<2xi64> -> tensor<4xi64>
  %y = kiln.reshape %x, %new : tensor<2x?x768xf32>, tensor<4xi64> -> tensor<?x?x?x?xf32>
  return %y : tensor<?x?x?x?xf32>
}
