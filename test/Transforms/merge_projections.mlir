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

// -----

// BERT's projections: each matmul's only use adds a constant bias row (either
// operand order). The biases are concatenated like the weights and added
// once to the merged matmul (cuBLASLt's bias epilogue after fusion); the
// slices take the adds' place.
// CHECK-LABEL: func.func @qkv_bias
// CHECK-DAG: %[[BQ:.*]] = kiln.constant dense<1.000000e-01> : tensor<8xf32>
// CHECK-DAG: %[[BK:.*]] = kiln.constant dense<2.000000e-01> : tensor<8xf32>
// CHECK-DAG: %[[BV:.*]] = kiln.constant dense<3.000000e-01> : tensor<4xf32>
// CHECK: %[[QKV:.*]] = kiln.matmul %arg0, %{{.*}} : tensor<2x5x16xf32>, tensor<16x20xf32> -> tensor<2x5x20xf32>
// CHECK: %[[B:.*]] = kiln.concat %[[BQ]], %[[BK]], %[[BV]] {axis = 0 : i64} : tensor<8xf32>, tensor<8xf32>, tensor<4xf32> -> tensor<20xf32>
// CHECK: %[[SUM:.*]] = kiln.add %[[QKV]], %[[B]] : tensor<2x5x20xf32>, tensor<20xf32> -> tensor<2x5x20xf32>
// CHECK: %[[Q:.*]] = kiln.slice %[[SUM]], {{.*}} -> tensor<2x5x8xf32>
// CHECK: %[[K:.*]] = kiln.slice %[[SUM]], {{.*}} -> tensor<2x5x8xf32>
// CHECK: %[[V:.*]] = kiln.slice %[[SUM]], {{.*}} -> tensor<2x5x4xf32>
// CHECK-NOT: kiln.add
// CHECK-NOT: kiln.matmul
// CHECK: %[[T:.*]] = kiln.tanh %[[K]]
// CHECK: return %[[Q]], %[[T]], %[[V]]
func.func @qkv_bias(%x: tensor<2x5x16xf32>) -> (tensor<2x5x8xf32>, tensor<2x5x8xf32>, tensor<2x5x4xf32>) {
  %wq = kiln.constant dense<1.0> : tensor<16x8xf32>
  %wk = kiln.constant dense<2.0> : tensor<16x8xf32>
  %wv = kiln.constant dense<3.0> : tensor<16x4xf32>
  %bq = kiln.constant dense<0.1> : tensor<8xf32>
  %bk = kiln.constant dense<0.2> : tensor<8xf32>
  %q = kiln.matmul %x, %wq : tensor<2x5x16xf32>, tensor<16x8xf32> -> tensor<2x5x8xf32>
  %qb = kiln.add %bq, %q : tensor<8xf32>, tensor<2x5x8xf32> -> tensor<2x5x8xf32>
  %k = kiln.matmul %x, %wk : tensor<2x5x16xf32>, tensor<16x8xf32> -> tensor<2x5x8xf32>
  %kb = kiln.add %k, %bk : tensor<2x5x8xf32>, tensor<8xf32> -> tensor<2x5x8xf32>
  %kt = kiln.tanh %kb : tensor<2x5x8xf32> -> tensor<2x5x8xf32>
  %v = kiln.matmul %x, %wv : tensor<2x5x16xf32>, tensor<16x4xf32> -> tensor<2x5x4xf32>
  // Defined after the first matmul: moves up to the merged add.
  %bv = kiln.constant dense<0.3> : tensor<4xf32>
  %vb = kiln.add %v, %bv : tensor<2x5x4xf32>, tensor<4xf32> -> tensor<2x5x4xf32>
  return %qb, %kt, %vb : tensor<2x5x8xf32>, tensor<2x5x8xf32>, tensor<2x5x4xf32>
}

// -----

// Bias rows [1, .., 1, n] of one rank are joined along their last dim; rows
// of different ranks are flattened to [n] first.
// CHECK-LABEL: func.func @bias_rows
// CHECK: %[[B:.*]] = kiln.concat {{.*}} {axis = 2 : i64} : tensor<1x1x8xf32>, tensor<1x1x8xf32> -> tensor<1x1x16xf32>
// CHECK: kiln.add %{{.*}}, %[[B]] : tensor<3x4x16xf32>, tensor<1x1x16xf32> -> tensor<3x4x16xf32>
// CHECK-LABEL: func.func @mixed_bias_ranks
// CHECK: %[[R:.*]] = kiln.reshape %{{.*}} : tensor<1x8xf32>, tensor<1xi64> -> tensor<8xf32>
// CHECK: %[[B:.*]] = kiln.concat %{{.*}}, %[[R]] {axis = 0 : i64} : tensor<8xf32>, tensor<8xf32> -> tensor<16xf32>
// CHECK: kiln.add %{{.*}}, %[[B]] : tensor<3x4x16xf32>, tensor<16xf32> -> tensor<3x4x16xf32>
func.func @bias_rows(%x: tensor<3x4x16xf32>) -> (tensor<3x4x8xf32>, tensor<3x4x8xf32>) {
  %w = kiln.constant dense<1.0> : tensor<16x8xf32>
  %b = kiln.constant dense<0.5> : tensor<1x1x8xf32>
  %a = kiln.matmul %x, %w : tensor<3x4x16xf32>, tensor<16x8xf32> -> tensor<3x4x8xf32>
  %ab = kiln.add %a, %b : tensor<3x4x8xf32>, tensor<1x1x8xf32> -> tensor<3x4x8xf32>
  %c = kiln.matmul %x, %w : tensor<3x4x16xf32>, tensor<16x8xf32> -> tensor<3x4x8xf32>
  %cb = kiln.add %b, %c : tensor<1x1x8xf32>, tensor<3x4x8xf32> -> tensor<3x4x8xf32>
  return %ab, %cb : tensor<3x4x8xf32>, tensor<3x4x8xf32>
}
func.func @mixed_bias_ranks(%x: tensor<3x4x16xf32>) -> (tensor<3x4x8xf32>, tensor<3x4x8xf32>) {
  %w = kiln.constant dense<1.0> : tensor<16x8xf32>
  %b1 = kiln.constant dense<0.5> : tensor<8xf32>
  %b2 = kiln.constant dense<0.25> : tensor<1x8xf32>
  %a = kiln.matmul %x, %w : tensor<3x4x16xf32>, tensor<16x8xf32> -> tensor<3x4x8xf32>
  %ab = kiln.add %a, %b1 : tensor<3x4x8xf32>, tensor<8xf32> -> tensor<3x4x8xf32>
  %c = kiln.matmul %x, %w : tensor<3x4x16xf32>, tensor<16x8xf32> -> tensor<3x4x8xf32>
  %cb = kiln.add %c, %b2 : tensor<3x4x8xf32>, tensor<1x8xf32> -> tensor<3x4x8xf32>
  return %ab, %cb : tensor<3x4x8xf32>, tensor<3x4x8xf32>
}

// -----

// The matmuls merge but their biases do not when one member has no bias
// add, a bias is not a constant, the matmul has another use, or the add
// broadcasts more than a row (a column here): each add stays on its slice.
// CHECK-LABEL: func.func @one_without_bias
// CHECK: %[[M:.*]] = kiln.matmul {{.*}} -> tensor<4x16xf32>
// CHECK-NOT: kiln.add %[[M]]
// CHECK: %[[S:.*]] = kiln.slice %[[M]]
// CHECK: kiln.add %[[S]]
// CHECK-LABEL: func.func @bias_not_constant
// CHECK: %[[M:.*]] = kiln.matmul {{.*}} -> tensor<4x16xf32>
// CHECK-COUNT-2: kiln.slice %[[M]]
// CHECK-COUNT-2: kiln.add
// CHECK-LABEL: func.func @matmul_used_twice
// CHECK: %[[M:.*]] = kiln.matmul {{.*}} -> tensor<4x16xf32>
// CHECK-COUNT-2: kiln.slice %[[M]]
// CHECK-COUNT-2: kiln.add
// CHECK-LABEL: func.func @bias_column
// CHECK: %[[M:.*]] = kiln.matmul {{.*}} -> tensor<4x16xf32>
// CHECK-COUNT-2: kiln.slice %[[M]]
// CHECK-COUNT-2: kiln.add
func.func @one_without_bias(%x: tensor<4x16xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %w = kiln.constant dense<1.0> : tensor<16x8xf32>
  %b = kiln.constant dense<0.5> : tensor<8xf32>
  %a = kiln.matmul %x, %w : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  %ab = kiln.add %a, %b : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %c = kiln.matmul %x, %w : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  return %ab, %c : tensor<4x8xf32>, tensor<4x8xf32>
}
func.func @bias_not_constant(%x: tensor<4x16xf32>, %b2: tensor<8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %w = kiln.constant dense<1.0> : tensor<16x8xf32>
  %b = kiln.constant dense<0.5> : tensor<8xf32>
  %a = kiln.matmul %x, %w : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  %ab = kiln.add %a, %b : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %c = kiln.matmul %x, %w : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  %cb = kiln.add %c, %b2 : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  return %ab, %cb : tensor<4x8xf32>, tensor<4x8xf32>
}
func.func @matmul_used_twice(%x: tensor<4x16xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %w = kiln.constant dense<1.0> : tensor<16x8xf32>
  %b = kiln.constant dense<0.5> : tensor<8xf32>
  %a = kiln.matmul %x, %w : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  %ab = kiln.add %a, %b : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %c = kiln.matmul %x, %w : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  %cb = kiln.add %c, %b : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  return %ab, %cb, %c : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}
func.func @bias_column(%x: tensor<4x16xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>) {
  %w = kiln.constant dense<1.0> : tensor<16x8xf32>
  %b = kiln.constant dense<0.5> : tensor<8xf32>
  %col = kiln.constant dense<0.5> : tensor<4x1xf32>
  %a = kiln.matmul %x, %w : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  %ab = kiln.add %a, %b : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %c = kiln.matmul %x, %w : tensor<4x16xf32>, tensor<16x8xf32> -> tensor<4x8xf32>
  %cb = kiln.add %c, %col : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  return %ab, %cb : tensor<4x8xf32>, tensor<4x8xf32>
}
