// RUN: kiln-opt %s --split-input-file --kiln-move-row-permutations | FileCheck %s

// nn.MultiheadAttention's in-projection: x [b, s, e] transposed to [s, b, e]
// before x·W + bias. The transpose moves down across the projection and the
// reshape that keeps the rows, to the head split's views.
// CHECK-LABEL: func.func @in_projection
// CHECK:         %[[P:.+]] = kiln.matmul %arg0, %{{.+}} : tensor<2x4x8xf32>, tensor<8x24xf32> -> tensor<2x4x24xf32>
// CHECK:         %[[B:.+]] = kiln.add %{{.+}}, %[[P]] : tensor<24xf32>, tensor<2x4x24xf32> -> tensor<2x4x24xf32>
// CHECK:         %[[R:.+]] = kiln.reshape %[[B]], %{{.+}} : tensor<2x4x24xf32>, tensor<4xi64> -> tensor<2x4x3x8xf32>
// CHECK:         %[[T:.+]] = kiln.transpose %[[R]] {perm = array<i64: 1, 0, 2, 3>} : tensor<2x4x3x8xf32> -> tensor<4x2x3x8xf32>
// CHECK:         kiln.unsqueeze %[[T]]
// CHECK-NOT:     kiln.transpose
func.func @in_projection(%x: tensor<2x4x8xf32>) -> tensor<1x4x2x3x8xf32> {
  %w = kiln.constant dense<1.0> : tensor<8x24xf32>
  %bias = kiln.constant dense<0.5> : tensor<24xf32>
  %shape = kiln.constant dense<[4, 2, 3, 8]> : tensor<4xi64>
  %axes = kiln.constant dense<0> : tensor<1xi64>
  %t = kiln.transpose %x {perm = array<i64: 1, 0, 2>} : tensor<2x4x8xf32> -> tensor<4x2x8xf32>
  %p = kiln.matmul %t, %w : tensor<4x2x8xf32>, tensor<8x24xf32> -> tensor<4x2x24xf32>
  %b = kiln.add %bias, %p : tensor<24xf32>, tensor<4x2x24xf32> -> tensor<4x2x24xf32>
  %r = kiln.reshape %b, %shape : tensor<4x2x24xf32>, tensor<4xi64> -> tensor<4x2x3x8xf32>
  %u = kiln.unsqueeze %r, %axes : tensor<4x2x3x8xf32>, tensor<1xi64> -> tensor<1x4x2x3x8xf32>
  return %u : tensor<1x4x2x3x8xf32>
}

// -----

// The out-projection: the heads merged into rows of a 2-D gemm, the rows
// split again and transposed back to [b, s, e]. The transpose moves up
// across the gemm (its rows merged, then split: only the reshapes' shapes
// change) and the merge of the heads, to the transpose after the attention.
// CHECK-LABEL: func.func @out_projection
// CHECK:         %[[H:.+]] = kiln.transpose %arg0 {perm = array<i64: 2, 0, 1, 3>} : tensor<2x2x4x4xf32> -> tensor<4x2x2x4xf32>
// CHECK:         %[[T:.+]] = kiln.transpose %[[H]] {perm = array<i64: 1, 0, 2, 3>} : tensor<4x2x2x4xf32> -> tensor<2x4x2x4xf32>
// CHECK:         %[[M:.+]] = kiln.reshape %[[T]], %{{.+}} : tensor<2x4x2x4xf32>, tensor<2xi64> -> tensor<8x8xf32>
// CHECK:         %[[G:.+]] = kiln.gemm %[[M]], %{{.+}}, %{{.+}} {trans_b = true} : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8xf32> -> tensor<8x8xf32>
// CHECK:         %[[S:.+]] = kiln.reshape %[[G]], %{{.+}} : tensor<8x8xf32>, tensor<3xi64> -> tensor<2x4x8xf32>
// CHECK-NEXT:    return %[[S]]
func.func @out_projection(%o: tensor<2x2x4x4xf32>) -> tensor<2x4x8xf32> {
  %w = kiln.constant dense<1.0> : tensor<8x8xf32>
  %bias = kiln.constant dense<0.5> : tensor<8xf32>
  %rows = kiln.constant dense<[8, 8]> : tensor<2xi64>
  %split = kiln.constant dense<[4, 2, 8]> : tensor<3xi64>
  %h = kiln.transpose %o {perm = array<i64: 2, 0, 1, 3>} : tensor<2x2x4x4xf32> -> tensor<4x2x2x4xf32>
  %m = kiln.reshape %h, %rows : tensor<4x2x2x4xf32>, tensor<2xi64> -> tensor<8x8xf32>
  %g = kiln.gemm %m, %w, %bias {trans_b = true} : tensor<8x8xf32>, tensor<8x8xf32>, tensor<8xf32> -> tensor<8x8xf32>
  %s = kiln.reshape %g, %split : tensor<8x8xf32>, tensor<3xi64> -> tensor<4x2x8xf32>
  %t = kiln.transpose %s {perm = array<i64: 1, 0, 2>} : tensor<4x2x8xf32> -> tensor<2x4x8xf32>
  return %t : tensor<2x4x8xf32>
}

// -----

// A permutation of 3 leading dims moves up across a relu and a projection
// to the transpose that makes its input (one that moves the last dim, so
// not a row permutation itself).
// CHECK-LABEL: func.func @three_leading_dims
// CHECK:         %[[A:.+]] = kiln.transpose %arg0 {perm = array<i64: 0, 1, 3, 2>}
// CHECK:         %[[T:.+]] = kiln.transpose %[[A]] {perm = array<i64: 2, 0, 1, 3>} : tensor<2x3x4x8xf32> -> tensor<4x2x3x8xf32>
// CHECK:         %[[P:.+]] = kiln.matmul %[[T]], %{{.+}} : tensor<4x2x3x8xf32>, tensor<8x16xf32> -> tensor<4x2x3x16xf32>
// CHECK:         %[[R:.+]] = kiln.relu %[[P]] : tensor<4x2x3x16xf32> -> tensor<4x2x3x16xf32>
// CHECK-NEXT:    return %[[R]]
func.func @three_leading_dims(%x: tensor<2x3x8x4xf32>) -> tensor<4x2x3x16xf32> {
  %w = kiln.constant dense<1.0> : tensor<8x16xf32>
  %a = kiln.transpose %x {perm = array<i64: 0, 1, 3, 2>} : tensor<2x3x8x4xf32> -> tensor<2x3x4x8xf32>
  %p = kiln.matmul %a, %w : tensor<2x3x4x8xf32>, tensor<8x16xf32> -> tensor<2x3x4x16xf32>
  %r = kiln.relu %p : tensor<2x3x4x16xf32> -> tensor<2x3x4x16xf32>
  %t = kiln.transpose %r {perm = array<i64: 2, 0, 1, 3>} : tensor<2x3x4x16xf32> -> tensor<4x2x3x16xf32>
  return %t : tensor<4x2x3x16xf32>
}

// -----

// A permutation of 4 leading dims moves down across a product with a row
// and a layer norm of the last dim, and a reshape that splits the last dim,
// to the transpose that uses it.
// CHECK-LABEL: func.func @four_leading_dims
// CHECK:         %[[M:.+]] = kiln.mul %arg0, %{{.+}} : tensor<2x3x4x5x8xf32>, tensor<8xf32> -> tensor<2x3x4x5x8xf32>
// CHECK:         %[[N:.+]] = kiln.layer_norm %[[M]], %{{.+}} {{.*}}: tensor<2x3x4x5x8xf32>, tensor<8xf32> -> tensor<2x3x4x5x8xf32>
// CHECK:         %[[R:.+]] = kiln.reshape %[[N]], %{{.+}} : tensor<2x3x4x5x8xf32>, tensor<6xi64> -> tensor<2x3x4x5x2x4xf32>
// CHECK:         %[[T:.+]] = kiln.transpose %[[R]] {perm = array<i64: 3, 2, 0, 1, 4, 5>} : tensor<2x3x4x5x2x4xf32> -> tensor<5x4x2x3x2x4xf32>
// CHECK:         kiln.transpose %[[T]] {perm = array<i64: 0, 1, 2, 3, 5, 4>}
func.func @four_leading_dims(%x: tensor<2x3x4x5x8xf32>) -> tensor<5x4x2x3x4x2xf32> {
  %c = kiln.constant dense<2.0> : tensor<8xf32>
  %shape = kiln.constant dense<[5, 4, 2, 3, 2, 4]> : tensor<6xi64>
  %t = kiln.transpose %x {perm = array<i64: 3, 2, 0, 1, 4>} : tensor<2x3x4x5x8xf32> -> tensor<5x4x2x3x8xf32>
  %m = kiln.mul %t, %c : tensor<5x4x2x3x8xf32>, tensor<8xf32> -> tensor<5x4x2x3x8xf32>
  %n = kiln.layer_norm %m, %c {axis = -1 : i64} : tensor<5x4x2x3x8xf32>, tensor<8xf32> -> tensor<5x4x2x3x8xf32>
  %r = kiln.reshape %n, %shape : tensor<5x4x2x3x8xf32>, tensor<6xi64> -> tensor<5x4x2x3x2x4xf32>
  %u = kiln.transpose %r {perm = array<i64: 0, 1, 2, 3, 5, 4>} : tensor<5x4x2x3x2x4xf32> -> tensor<5x4x2x3x4x2xf32>
  return %u : tensor<5x4x2x3x4x2xf32>
}

// -----

// Not moved: the identity permutation; a permutation that moves the last
// dim (a projection does not commute with it); an add whose other operand
// varies along the rows; a transpose whose row-wise users end in a return,
// not in a view.
// CHECK-LABEL: func.func @not_moved
// CHECK:         %[[I:.+]] = kiln.transpose %arg0 {perm = array<i64: 0, 1, 2>}
// CHECK-NEXT:    kiln.matmul %[[I]]
// CHECK:         %[[L:.+]] = kiln.transpose %arg0 {perm = array<i64: 0, 2, 1>}
// CHECK-NEXT:    kiln.matmul %[[L]]
// CHECK:         %[[A:.+]] = kiln.transpose %arg0 {perm = array<i64: 1, 0, 2>}
// CHECK-NEXT:    kiln.add %[[A]], %arg1
// CHECK:         %[[E:.+]] = kiln.transpose %arg0 {perm = array<i64: 1, 0, 2>}
// CHECK-NEXT:    kiln.relu %[[E]]
func.func @not_moved(%x: tensor<4x4x4xf32>, %y: tensor<4x4x4xf32>) -> (tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<4x4x4xf32>) {
  %w = kiln.constant dense<1.0> : tensor<4x4xf32>
  %axes = kiln.constant dense<0> : tensor<1xi64>
  %i = kiln.transpose %x {perm = array<i64: 0, 1, 2>} : tensor<4x4x4xf32> -> tensor<4x4x4xf32>
  %ip = kiln.matmul %i, %w : tensor<4x4x4xf32>, tensor<4x4xf32> -> tensor<4x4x4xf32>
  %iu = kiln.unsqueeze %ip, %axes : tensor<4x4x4xf32>, tensor<1xi64> -> tensor<1x4x4x4xf32>
  %l = kiln.transpose %x {perm = array<i64: 0, 2, 1>} : tensor<4x4x4xf32> -> tensor<4x4x4xf32>
  %lp = kiln.matmul %l, %w : tensor<4x4x4xf32>, tensor<4x4xf32> -> tensor<4x4x4xf32>
  %lu = kiln.unsqueeze %lp, %axes : tensor<4x4x4xf32>, tensor<1xi64> -> tensor<1x4x4x4xf32>
  %a = kiln.transpose %x {perm = array<i64: 1, 0, 2>} : tensor<4x4x4xf32> -> tensor<4x4x4xf32>
  %as = kiln.add %a, %y : tensor<4x4x4xf32>, tensor<4x4x4xf32> -> tensor<4x4x4xf32>
  %au = kiln.unsqueeze %as, %axes : tensor<4x4x4xf32>, tensor<1xi64> -> tensor<1x4x4x4xf32>
  %e = kiln.transpose %x {perm = array<i64: 1, 0, 2>} : tensor<4x4x4xf32> -> tensor<4x4x4xf32>
  %er = kiln.relu %e : tensor<4x4x4xf32> -> tensor<4x4x4xf32>
  return %iu, %lu, %au, %er : tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<1x4x4x4xf32>, tensor<4x4x4xf32>
}
