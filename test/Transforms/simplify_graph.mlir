// RUN: kiln-opt %s --split-input-file --kiln-simplify-graph | FileCheck %s

// reshape(x, shape(x)) disappears once the shape is known.
// CHECK-LABEL: func.func @reshape_to_own_shape
// CHECK-NEXT: return %arg0 : tensor<2x8xf32>
func.func @reshape_to_own_shape(%x: tensor<2x8xf32>) -> tensor<?x?xf32> {
  %s = kiln.shape %x : tensor<2x8xf32> -> tensor<2xi64>
  %y = kiln.reshape %x, %s : tensor<2x8xf32>, tensor<2xi64> -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// -----

// Identity vanishes.
// CHECK-LABEL: func.func @identity
// CHECK-NEXT: %[[R:.+]] = kiln.relu %arg0
// CHECK-NEXT: return %[[R]]
func.func @identity(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = kiln.identity %x : tensor<4xf32> -> tensor<4xf32>
  %1 = kiln.relu %0 : tensor<4xf32> -> tensor<4xf32>
  %2 = kiln.identity %1 : tensor<4xf32> -> tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

// BERT-style head split with a dynamic seq: the static dims (batch 2, hidden
// 768) fold to constants, the seq dim stays a kiln.shape read.
// CHECK-LABEL: func.func @head_split
// CHECK: %[[SHAPE:.+]] = kiln.shape %arg0
// CHECK: %[[SEQ:.+]] = kiln.gather %[[SHAPE]]
// CHECK: %[[SEQ1:.+]] = kiln.unsqueeze %[[SEQ]]
// CHECK: kiln.concat %{{.*}}, %[[SEQ1]], %{{.*}} {axis = 0 : i64}
// CHECK-NOT: kiln.shape
// CHECK: kiln.reshape {{.*}} -> tensor<2x?x12x64xf32>
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

// -----

// Two transposes compose; an identity permutation disappears.
// CHECK-LABEL: func.func @transpose_pairs
// CHECK-NEXT: %[[T:.+]] = kiln.transpose %arg0 {perm = array<i64: 2, 0, 1>} : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
// CHECK-NEXT: return %arg1, %[[T]]
func.func @transpose_pairs(%x: tensor<2x3x4xf32>, %y: tensor<5x6xf32>) -> (tensor<5x6xf32>, tensor<4x2x3xf32>) {
  %0 = kiln.transpose %y {perm = array<i64: 1, 0>} : tensor<5x6xf32> -> tensor<6x5xf32>
  %1 = kiln.transpose %0 {perm = array<i64: 1, 0>} : tensor<6x5xf32> -> tensor<5x6xf32>
  %2 = kiln.transpose %x {perm = array<i64: 1, 0, 2>} : tensor<2x3x4xf32> -> tensor<3x2x4xf32>
  %3 = kiln.transpose %2 {perm = array<i64: 2, 1, 0>} : tensor<3x2x4xf32> -> tensor<4x2x3xf32>
  return %1, %3 : tensor<5x6xf32>, tensor<4x2x3xf32>
}
