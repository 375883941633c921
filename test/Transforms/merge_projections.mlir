// RUN: kiln-opt %s --split-input-file --kiln-merge-projections | FileCheck %s

// Q, K and V projections of one activation: one matmul over the weights
// concatenated along N, then a slice of the last axis per projection.
// CHECK-LABEL: func.func @qkv
// CHECK-DAG: %[[WQ:.*]] = kiln.constant dense<1.000000e+00> : tensor<16x8xf32>
// CHECK-DAG: %[[WK:.*]] = kiln.constant dense<2.000000e+00> : tensor<16x8xf32>
// CHECK-DAG: %[[WV:.*]] = kiln.constant dense<3.000000e+00> : tensor<16x4xf32>
// CHECK: %[[W:.*]] = kiln.concat %[[WQ]], %[[WK]], %[[WV]] {axis = 1 : i64} : {{.*}} -> tensor<16x20xf32>
// CHECK: %[[QKV:.*]] = kiln.matmul %arg0, %[[W]] : tensor<2x5x16xf32>, tensor<16x20xf32> -> tensor<2x5x20xf32>
// CHECK: %[[Q:.*]] = kiln.slice %[[QKV]], {{.*}} -> tensor<2x5x8xf32>
// CHECK: %[[K:.*]] = kiln.slice %[[QKV]], {{.*}} -> tensor<2x5x8xf32>
// CHECK: %[[V:.*]] = kiln.slice %[[QKV]], {{.*}} -> tensor<2x5x4xf32>
// CHECK-NOT: kiln.matmul
// CHECK: return %[[Q]], %[[K]], %[[V]]
func.func @qkv(%x: tensor<2x5x16xf32>) -> (tensor<2x5x8xf32>, tensor<2x5x8xf32>, tensor<2x5x4xf32>) {
  %wq = kiln.constant dense<1.0> : tensor<16x8xf32>
  %wk = kiln.constant dense<2.0> : tensor<16x8xf32>
  %wv = kiln.constant dense<3.0> : tensor<16x4xf32>
  %q = kiln.matmul %x, %wq : tensor<2x5x16xf32>, tensor<16x8xf32> -> tensor<2x5x8xf32>
  %k = kiln.matmul %x, %wk : tensor<2x5x16xf32>, tensor<16x8xf32> -> tensor<2x5x8xf32>
  %v = kiln.matmul %x, %wv : tensor<2x5x16xf32>, tensor<16x4xf32> -> tensor<2x5x4xf32>
  return %q, %k, %v : tensor<2x5x8xf32>, tensor<2x5x8xf32>, tensor<2x5x4xf32>
}

// -----

// Deliberately not merged: different activations, a weight that is not a
// constant, and a lone projection.
// CHECK-LABEL: func.func @not_merged
// CHECK-NOT: kiln.concat
// CHECK-COUNT-3: kiln.matmul
func.func @not_merged(%x: tensor<4x16xf32>, %y: tensor<4x16xf32>, %w: tensor<16x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %c = kiln.constant dense<1.0> : tensor<16x8xf32>
  %a = kiln.matmul %x, %c : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  %b = kiln.matmul %y, %c : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  %d = kiln.matmul %x, %w : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  return %a, %b, %d : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}
