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

// -----

// A slice that keeps every element in order disappears (Swin's window reverse
// crops its padded tensor to the size it already has); one that reverses a
// dim (a negative step) or drops elements stays.
// CHECK-LABEL: func.func @slice_keeping_everything
// CHECK: %[[R:.+]] = kiln.slice %arg0, {{.*}} -> tensor<4x8xf32>
// CHECK-NEXT: %[[D:.+]] = kiln.slice %arg0, {{.*}} -> tensor<4x6xf32>
// CHECK-NEXT: return %arg0, %[[R]], %[[D]]
func.func @slice_keeping_everything(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x6xf32>) {
  %zero = kiln.constant dense<0> : tensor<1xi64>
  %big = kiln.constant dense<9223372036854775807> : tensor<1xi64>
  %last = kiln.constant dense<-1> : tensor<1xi64>
  %before = kiln.constant dense<-9223372036854775807> : tensor<1xi64>
  %six = kiln.constant dense<6> : tensor<1xi64>
  %axis = kiln.constant dense<1> : tensor<1xi64>
  %one = kiln.constant dense<1> : tensor<1xi64>
  %keep = kiln.slice %x, %zero, %big, %axis, %one : tensor<4x8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<4x8xf32>
  %reverse = kiln.slice %x, %last, %before, %axis, %last : tensor<4x8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<4x8xf32>
  %drop = kiln.slice %x, %zero, %six, %axis, %one : tensor<4x8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<4x6xf32>
  return %keep, %reverse, %drop : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x6xf32>
}

// -----

// A pad by zero everywhere disappears, in any mode (Swin's window partition
// pads by (W - H mod W) mod W, zero at 224 x 224); one whose amounts cancel
// in a dim (a shift) or that pads stays.
// CHECK-LABEL: func.func @pad_by_zero
// CHECK: %[[S:.+]] = kiln.pad %arg0, {{.*}} -> tensor<4x8xf32>
// CHECK-NEXT: %[[P:.+]] = kiln.pad %arg0, {{.*}} -> tensor<4x10xf32>
// CHECK-NEXT: return %arg0, %arg0, %[[S]], %[[P]]
func.func @pad_by_zero(%x: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x10xf32>) {
  %zeros = kiln.constant dense<0> : tensor<4xi64>
  %shift = kiln.constant dense<[0, 1, 0, -1]> : tensor<4xi64>
  %two = kiln.constant dense<[0, 1, 0, 1]> : tensor<4xi64>
  %a = kiln.pad %x, %zeros {mode = "constant"} : tensor<4x8xf32>, tensor<4xi64> -> tensor<4x8xf32>
  %r = kiln.pad %x, %zeros {mode = "reflect"} : tensor<4x8xf32>, tensor<4xi64> -> tensor<4x8xf32>
  %s = kiln.pad %x, %shift {mode = "constant"} : tensor<4x8xf32>, tensor<4xi64> -> tensor<4x8xf32>
  %p = kiln.pad %x, %two {mode = "edge"} : tensor<4x8xf32>, tensor<4xi64> -> tensor<4x10xf32>
  return %a, %r, %s, %p : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x10xf32>
}

// -----

// A split of a transpose: every user a slice. Each piece is sliced from the
// transpose's input (the axis mapped through the permutation) and
// transposed on its own (Swin's [B W, N, 3, h, d] -> [3, B W, h, N, d]
// before q, k and v are taken). A transpose with another user stays.
// CHECK-LABEL: func.func @split_of_transpose
// CHECK-NOT:     kiln.transpose %arg0
// CHECK-DAG:     %[[A:.+]] = kiln.slice %arg0, {{.*}} -> tensor<4x5x1x6xf32>
// CHECK-DAG:     %[[B:.+]] = kiln.slice %arg0, {{.*}} -> tensor<4x5x2x6xf32>
// CHECK-DAG:     kiln.transpose %[[A]] {perm = array<i64: 2, 0, 3, 1>} : tensor<4x5x1x6xf32> -> tensor<1x4x6x5xf32>
// CHECK-DAG:     kiln.transpose %[[B]] {perm = array<i64: 2, 0, 3, 1>} : tensor<4x5x2x6xf32> -> tensor<2x4x6x5xf32>
// CHECK-LABEL: func.func @transpose_with_other_user
// CHECK:         %[[T:.+]] = kiln.transpose %arg0
// CHECK:         kiln.slice %[[T]]
func.func @split_of_transpose(%x: tensor<4x5x3x6xf32>) -> (tensor<1x4x6x5xf32>, tensor<2x4x6x5xf32>) {
  %t = kiln.transpose %x {perm = array<i64: 2, 0, 3, 1>} : tensor<4x5x3x6xf32> -> tensor<3x4x6x5xf32>
  %c0 = kiln.constant dense<0> : tensor<1xi64>
  %c1 = kiln.constant dense<1> : tensor<1xi64>
  %c3 = kiln.constant dense<3> : tensor<1xi64>
  %a = kiln.slice %t, %c0, %c1, %c0, %c1 : tensor<3x4x6x5xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<1x4x6x5xf32>
  %b = kiln.slice %t, %c1, %c3, %c0, %c1 : tensor<3x4x6x5xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<2x4x6x5xf32>
  return %a, %b : tensor<1x4x6x5xf32>, tensor<2x4x6x5xf32>
}
func.func @transpose_with_other_user(%x: tensor<4x5x3x6xf32>) -> (tensor<1x4x6x5xf32>, tensor<3x4x6x5xf32>) {
  %t = kiln.transpose %x {perm = array<i64: 2, 0, 3, 1>} : tensor<4x5x3x6xf32> -> tensor<3x4x6x5xf32>
  %c0 = kiln.constant dense<0> : tensor<1xi64>
  %c1 = kiln.constant dense<1> : tensor<1xi64>
  %a = kiln.slice %t, %c0, %c1, %c0, %c1 : tensor<3x4x6x5xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<1x4x6x5xf32>
  return %a, %t : tensor<1x4x6x5xf32>, tensor<3x4x6x5xf32>
}

// -----

// A slice that takes its starts from the transpose as well as its data is
// not a piece of a split: the transpose stays (this once crashed the pass,
// the slice being visited once per use).
// CHECK-LABEL: func.func @slice_starts_from_transpose
// CHECK:         %[[T:.+]] = kiln.transpose %arg0
// CHECK:         kiln.slice %[[T]], %[[T]]
func.func @slice_starts_from_transpose(%x: tensor<?xi64>) -> tensor<?xi64> {
  %t = kiln.transpose %x {perm = array<i64: 0>} : tensor<?xi64> -> tensor<1xi64>
  %e = kiln.constant dense<5> : tensor<1xi64>
  %a = kiln.constant dense<0> : tensor<1xi64>
  %s = kiln.constant dense<1> : tensor<1xi64>
  %r = kiln.slice %t, %t, %e, %a, %s : tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<?xi64>
  return %r : tensor<?xi64>
}

// -----

// nn.MultiheadAttention picks q, k and v from the joint projection by
// gathers of one constant index: a slice and a squeeze each (views the
// attention kernel reads by strides). A negative index counts from the back;
// index data and a gather of several indices stay gathers.
// CHECK-LABEL: func.func @gather_one_index
// CHECK-DAG: %[[ONE:.+]] = kiln.constant dense<1> : tensor<1xi64>
// CHECK-DAG: %[[TWO:.+]] = kiln.constant dense<2> : tensor<1xi64>
// CHECK-DAG: %[[ZERO:.+]] = kiln.constant dense<0> : tensor<1xi64>
// CHECK: %[[SLICE:.+]] = kiln.slice %arg0, %[[TWO]], %{{.+}}, %[[ZERO]], %[[ONE]] : tensor<3x17x8xf16>, {{.*}} -> tensor<1x17x8xf16>
// CHECK: %[[Q:.+]] = kiln.squeeze %[[SLICE]], %[[ZERO]] : tensor<1x17x8xf16>, tensor<1xi64> -> tensor<17x8xf16>
// CHECK: kiln.gather %arg1
// CHECK: kiln.gather %arg0
// CHECK: return %[[Q]]
func.func @gather_one_index(%x: tensor<3x17x8xf16>, %s: tensor<4xi64>) -> (tensor<17x8xf16>, tensor<i64>, tensor<2x17x8xf16>) {
  %last = kiln.constant dense<-1> : tensor<i64>
  %q = kiln.gather %x, %last {axis = 0 : i64} : tensor<3x17x8xf16>, tensor<i64> -> tensor<17x8xf16>
  %d = kiln.gather %s, %last {axis = 0 : i64} : tensor<4xi64>, tensor<i64> -> tensor<i64>
  %two = kiln.constant dense<[0, 2]> : tensor<2xi64>
  %kv = kiln.gather %x, %two {axis = 0 : i64} : tensor<3x17x8xf16>, tensor<2xi64> -> tensor<2x17x8xf16>
  return %q, %d, %kv : tensor<17x8xf16>, tensor<i64>, tensor<2x17x8xf16>
}

// -----

// q and k each scaled by d^-1/4 (nn.MultiheadAttention's export): the two
// factors join the attention's scale; a product with another use stays.
// CHECK-LABEL: func.func @attention_operand_scale
// CHECK: %[[A:.+]] = kiln.attention %arg0, %arg1, %arg2 {scale = 2.500000e-01 : f32}
// CHECK: %[[KEPT:.+]] = kiln.mul %arg0
// CHECK: kiln.attention %[[KEPT]], %arg1, %arg2 :
// CHECK: return %[[A]], %{{.+}}, %[[KEPT]]
func.func @attention_operand_scale(%q: tensor<2x4x16x16xf16>, %k: tensor<2x4x16x16xf16>, %v: tensor<2x4x16x16xf16>) -> (tensor<2x4x16x16xf16>, tensor<2x4x16x16xf16>, tensor<2x4x16x16xf16>) {
  %c = kiln.constant dense<5.000000e-01> : tensor<1xf16>
  %qs = kiln.mul %q, %c : tensor<2x4x16x16xf16>, tensor<1xf16> -> tensor<2x4x16x16xf16>
  %ks = kiln.mul %c, %k : tensor<1xf16>, tensor<2x4x16x16xf16> -> tensor<2x4x16x16xf16>
  %a = kiln.attention %qs, %ks, %v : tensor<2x4x16x16xf16>, tensor<2x4x16x16xf16>, tensor<2x4x16x16xf16> -> tensor<2x4x16x16xf16>
  %q2 = kiln.mul %q, %c : tensor<2x4x16x16xf16>, tensor<1xf16> -> tensor<2x4x16x16xf16>
  %b = kiln.attention %q2, %k, %v : tensor<2x4x16x16xf16>, tensor<2x4x16x16xf16>, tensor<2x4x16x16xf16> -> tensor<2x4x16x16xf16>
  return %a, %b, %q2 : tensor<2x4x16x16xf16>, tensor<2x4x16x16xf16>, tensor<2x4x16x16xf16>
}

// -----

// The recogniser's k^T times a scalar, transposed back: the factor moves
// past the transposes, which cancel, and it joins the attention's scale.
// CHECK-LABEL: func.func @transposed_key_scale
// CHECK-NOT: kiln.transpose
// CHECK-NOT: kiln.mul
// CHECK: %[[A:.+]] = kiln.attention %arg0, %arg1, %arg2 {scale = 2.500000e-01 : f32}
// CHECK-NEXT: return %[[A]]
func.func @transposed_key_scale(%q: tensor<2x4x16x8xf16>, %k: tensor<2x4x16x8xf16>, %v: tensor<2x4x16x8xf16>) -> tensor<2x4x16x8xf16> {
  %c = kiln.constant dense<2.500000e-01> : tensor<1xf16>
  %kt = kiln.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x16x8xf16> -> tensor<2x4x8x16xf16>
  %ks = kiln.mul %kt, %c : tensor<2x4x8x16xf16>, tensor<1xf16> -> tensor<2x4x8x16xf16>
  %kb = kiln.transpose %ks {perm = array<i64: 0, 1, 3, 2>} : tensor<2x4x8x16xf16> -> tensor<2x4x16x8xf16>
  %a = kiln.attention %q, %kb, %v : tensor<2x4x16x8xf16>, tensor<2x4x16x8xf16>, tensor<2x4x16x8xf16> -> tensor<2x4x16x8xf16>
  return %a : tensor<2x4x16x8xf16>
}

// -----

// q scaled before its head split (older nn.MultiheadAttention exports: q *
// d^-1/2, then [s, b, e] -> [s, b*h, d] -> transpose -> [b, h, s, d]): the
// factor passes the views, each with one use, and joins the scale.
// CHECK-LABEL: func.func @attention_scale_before_views
// CHECK-NOT: kiln.mul
// CHECK: %[[R:.+]] = kiln.reshape %arg0
// CHECK: kiln.attention %{{.+}}, %arg1, %arg2 {scale = 5.000000e-01 : f32}
func.func @attention_scale_before_views(%q: tensor<4x2x16xf16>, %k: tensor<2x2x4x8xf16>, %v: tensor<2x2x4x8xf16>) -> tensor<2x2x4x8xf16> {
  %c = kiln.constant dense<5.000000e-01> : tensor<f16>
  %heads = kiln.constant dense<[4, 4, 8]> : tensor<3xi64>
  %split = kiln.constant dense<[2, 2, 4, 8]> : tensor<4xi64>
  %qs = kiln.mul %q, %c : tensor<4x2x16xf16>, tensor<f16> -> tensor<4x2x16xf16>
  %qh = kiln.reshape %qs, %heads : tensor<4x2x16xf16>, tensor<3xi64> -> tensor<4x4x8xf16>
  %qt = kiln.transpose %qh {perm = array<i64: 1, 0, 2>} : tensor<4x4x8xf16> -> tensor<4x4x8xf16>
  %qb = kiln.reshape %qt, %split : tensor<4x4x8xf16>, tensor<4xi64> -> tensor<2x2x4x8xf16>
  %a = kiln.attention %qb, %k, %v : tensor<2x2x4x8xf16>, tensor<2x2x4x8xf16>, tensor<2x2x4x8xf16> -> tensor<2x2x4x8xf16>
  return %a : tensor<2x2x4x8xf16>
}

// -----

// Not folded: a factor that is not a constant, and a constant factor whose
// view has another use (that user needs the scaled values).
// CHECK-LABEL: func.func @attention_scale_kept
// CHECK: kiln.mul %arg0, %arg3
// CHECK: kiln.attention %{{.+}}, %arg1, %arg2 :
// CHECK: kiln.mul %arg0, %{{.+}}
// CHECK: kiln.attention %{{.+}}, %arg1, %arg2 :
func.func @attention_scale_kept(%q: tensor<2x2x4x8xf16>, %k: tensor<2x2x4x8xf16>, %v: tensor<2x2x4x8xf16>, %s: tensor<f16>) -> (tensor<2x2x4x8xf16>, tensor<2x2x4x8xf16>, tensor<2x4x2x8xf16>) {
  %c = kiln.constant dense<5.000000e-01> : tensor<f16>
  %qs = kiln.mul %q, %s : tensor<2x2x4x8xf16>, tensor<f16> -> tensor<2x2x4x8xf16>
  %a = kiln.attention %qs, %k, %v : tensor<2x2x4x8xf16>, tensor<2x2x4x8xf16>, tensor<2x2x4x8xf16> -> tensor<2x2x4x8xf16>
  %qc = kiln.mul %q, %c : tensor<2x2x4x8xf16>, tensor<f16> -> tensor<2x2x4x8xf16>
  %qt = kiln.transpose %qc {perm = array<i64: 0, 2, 1, 3>} : tensor<2x2x4x8xf16> -> tensor<2x4x2x8xf16>
  %qb = kiln.transpose %qt {perm = array<i64: 0, 2, 1, 3>} : tensor<2x4x2x8xf16> -> tensor<2x2x4x8xf16>
  %b = kiln.attention %qb, %k, %v : tensor<2x2x4x8xf16>, tensor<2x2x4x8xf16>, tensor<2x2x4x8xf16> -> tensor<2x2x4x8xf16>
  return %a, %b, %qt : tensor<2x2x4x8xf16>, tensor<2x2x4x8xf16>, tensor<2x4x2x8xf16>
}
