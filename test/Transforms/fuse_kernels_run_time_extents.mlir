// Kernels with run-time extents (issue 18): the kernel kinds' contract lets
// pointwise, data_movement, row_reduce and library kernels take run-time
// extents in the leading dims of each value (a library call's M or N),
// indexed as one extent when there are several; pointwise and data_movement
// kernels also take them by value, each a dim parameter in the index
// arithmetic, for the ops whose CUDA models index that way (a transpose of
// run-time dims, a broadcast along one, a gather along one); attention, a
// by-value op in another kind, or an op that would need a length along a
// run-time extent is a located error naming the ONNX node, the extents as
// expressions and the kind.
// RUN: kiln-opt %s --split-input-file --kiln-fuse-kernels --verify-diagnostics | FileCheck %s

// A pointwise chain with a bias row and a transpose that moves the
// innermost dim: one data_movement kernel (the tiled transpose template
// needs static extents), which keeps the root's extents.
// CHECK-LABEL: func.func @chain
// CHECK:         %[[E:.+]] = kiln.empty {kiln.dim_exprs = ["batch", "8", "4"]} : tensor<?x8x4xf32>
// CHECK:         kiln.kernel "add_relu_transpose_0" data_movement ins(%{{.*}}, %{{.*}} : tensor<?x4x8xf32>, tensor<8xf32>) outs(%[[E]] : tensor<?x8x4xf32>) attributes {kiln.dim_exprs = ["batch", "8", "4"]}
// CHECK-NOT:     kiln.kernel
func.func @chain(%x: tensor<?x4x8xf32> {kiln.name = "x", kiln.dim_names = ["batch", "", ""]}, %b: tensor<8xf32>) -> tensor<?x8x4xf32>
    attributes {kiln.dim_ranges = {batch = array<i64: 1, 64, 64>}} {
  %0 = kiln.add %x, %b {kiln.dim_exprs = ["batch", "4", "8"]} : tensor<?x4x8xf32>, tensor<8xf32> -> tensor<?x4x8xf32>
  %1 = kiln.relu %0 {kiln.dim_exprs = ["batch", "4", "8"]} : tensor<?x4x8xf32> -> tensor<?x4x8xf32>
  %2 = kiln.transpose %1 {kiln.dim_exprs = ["batch", "8", "4"], perm = array<i64: 0, 2, 1>} : tensor<?x4x8xf32> -> tensor<?x8x4xf32>
  return %2 : tensor<?x8x4xf32>
}

// -----

// Concat on a static axis, with a gather from a static table: one kernel.
// CHECK-LABEL: func.func @concat_gather
// CHECK:         kiln.kernel "gather_concat_0" data_movement
// CHECK-SAME:      attributes {kiln.dim_exprs = ["batch", "16"]}
func.func @concat_gather(%x: tensor<?x8xf32> {kiln.name = "x", kiln.dim_names = ["batch", ""]}, %ids: tensor<?xi64> {kiln.name = "ids", kiln.dim_names = ["batch"]}, %table: tensor<50x8xf32>) -> tensor<?x16xf32>
    attributes {kiln.dim_ranges = {batch = array<i64: 1, 64, 64>}} {
  %0 = kiln.gather %table, %ids {axis = 0 : i64, kiln.dim_exprs = ["batch", "8"]} : tensor<50x8xf32>, tensor<?xi64> -> tensor<?x8xf32>
  %1 = kiln.concat %x, %0 {axis = 1 : i64, kiln.dim_exprs = ["batch", "16"]} : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x16xf32>
  return %1 : tensor<?x16xf32>
}

// -----

// A GEMM with a run-time M (the rows of its lhs and result): a library
// kernel with its bias and relu epilogue, keeping its root's extents.
// CHECK-LABEL: func.func @matmul_bias_relu
// CHECK:         kiln.kernel "matmul_add_relu_0" library {{.*}}attributes {epilogue = #kiln.epilogue<addend = bias, activation = relu>, kiln.dim_exprs = ["batch", "4"]}
func.func @matmul_bias_relu(%x: tensor<?x8xf32> {kiln.name = "x", kiln.dim_names = ["batch", ""]}, %b: tensor<4xf32>) -> tensor<?x4xf32>
    attributes {kiln.dim_ranges = {batch = array<i64: 1, 64, 64>}} {
  %w = kiln.constant dense<0.5> : tensor<8x4xf32>
  %0 = kiln.matmul %x, %w {kiln.dim_exprs = ["batch", "4"]} : tensor<?x8xf32>, tensor<8x4xf32> -> tensor<?x4xf32>
  %1 = kiln.add %0, %b {kiln.dim_exprs = ["batch", "4"]} : tensor<?x4xf32>, tensor<4xf32> -> tensor<?x4xf32>
  %2 = kiln.relu %1 {kiln.dim_exprs = ["batch", "4"]} : tensor<?x4xf32> -> tensor<?x4xf32>
  return %2 : tensor<?x4xf32>
}

// -----

// A row reduction with a run-time row count: a row_reduce kernel.
// CHECK-LABEL: func.func @softmax
// CHECK:         kiln.kernel "softmax_0" row_reduce {{.*}}attributes {kiln.dim_exprs = ["batch", "8"]}
func.func @softmax(%x: tensor<?x8xf32> {kiln.name = "x", kiln.dim_names = ["batch", ""]}) -> tensor<?x8xf32>
    attributes {kiln.dim_ranges = {batch = array<i64: 1, 64, 64>}} {
  %0 = kiln.softmax %x {axis = -1 : i64, kiln.dim_exprs = ["batch", "8"]} : tensor<?x8xf32> -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// A matmul whose right-hand side has the run-time extent (here its K):
// cuBLASLt takes one only in M.
func.func @matmul_rhs(%x: tensor<1x?xf32> {kiln.name = "x", kiln.dim_names = ["", "batch"]}, %w: tensor<?x4xf32> {kiln.name = "w", kiln.dim_names = ["batch", ""]}) -> tensor<1x4xf32>
    attributes {kiln.dim_ranges = {batch = array<i64: 1, 64, 64>}} {
  // expected-error @+1 {{'kiln.matmul' has run-time extents and roots a library kernel: has a right-hand side with run-time extents; only the rows of the left-hand side (M, with its batch dims) may have one}}
  %0 = kiln.matmul %x, %w : tensor<1x?xf32>, tensor<?x4xf32> -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}

// -----

// A reduction over the run-time extent: its length would be a run-time
// value.
func.func @reduce_batch(%x: tensor<?x8xf32> {kiln.name = "x", kiln.dim_names = ["batch", ""]}) -> tensor<1x8xf32>
    attributes {kiln.dim_ranges = {batch = array<i64: 1, 64, 64>}} {
  %axes = kiln.constant dense<0> : tensor<1xi64>
  // expected-error @+1 {{'kiln.reduce_sum' has run-time extents and roots a pointwise kernel: reduces over its run-time extent; the length it reduces would be a run-time value}}
  %0 = kiln.reduce_sum %x, %axes {keepdims = true} : tensor<?x8xf32>, tensor<1xi64> -> tensor<1x8xf32>
  return %0 : tensor<1x8xf32>
}

// -----

// A transpose that moves the run-time extent inward: its index arithmetic
// takes the extent's value (by value).
// CHECK-LABEL: func.func @inward
// CHECK:         kiln.kernel "transpose_0" data_movement
// CHECK-SAME:      attributes {kiln.dim_exprs = ["4", "batch", "8"]}
func.func @inward(%x: tensor<?x4x8xf32> {kiln.name = "x", kiln.dim_names = ["batch", "", ""]}) -> tensor<4x?x8xf32>
    attributes {kiln.dim_ranges = {batch = array<i64: 1, 64, 64>}} {
  %0 = kiln.transpose %x {kiln.dim_exprs = ["4", "batch", "8"], perm = array<i64: 1, 0, 2>} : tensor<?x4x8xf32> -> tensor<4x?x8xf32>
  return %0 : tensor<4x?x8xf32>
}

// -----

// A concat along the run-time extent: the offsets would be run-time values.
func.func @concat_batch(%x: tensor<?x8xf32> {kiln.name = "x", kiln.dim_names = ["batch", ""]}) -> tensor<?x8xf32>
    attributes {kiln.dim_ranges = {batch = array<i64: 1, 64, 64>}} {
  // expected-error @+1 {{roots a data_movement kernel: concatenates along its run-time extent}}
  %0 = kiln.concat %x, %x {axis = 0 : i64, kiln.dim_exprs = ["batch*2", "8"]} : tensor<?x8xf32>, tensor<?x8xf32> -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// A producer the contract refuses stays out of the kernel and roots its
// own, which then fails with the reason: a slice of the run-time extent.
func.func @slice_batch(%x: tensor<?x8xf32> {kiln.name = "x", kiln.dim_names = ["batch", ""]}) -> tensor<?x8xf32>
    attributes {kiln.dim_ranges = {batch = array<i64: 2, 64, 64>}} {
  %s = kiln.constant dense<1> : tensor<1xi64>
  %e = kiln.constant dense<9223372036854775807> : tensor<1xi64>
  %a = kiln.constant dense<0> : tensor<1xi64>
  // expected-error @+1 {{roots a data_movement kernel: slices its run-time extent; its bounds would be run-time values}}
  %0 = kiln.slice %x, %s, %e, %a, %s {kiln.dim_exprs = ["batch - 1", "8"]} : tensor<?x8xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<?x8xf32>
  %1 = kiln.relu %0 {kiln.dim_exprs = ["batch - 1", "8"]} : tensor<?x8xf32> -> tensor<?x8xf32>
  return %1 : tensor<?x8xf32>
}

// -----

// Several run-time extents in leading dims: a bias row, a transpose within
// the static dims and a row scale of the same prefix join one kernel.
// CHECK-LABEL: func.func @prefix_chain
// CHECK:         kiln.kernel "add_transpose_mul_0" pointwise
// CHECK-SAME:      attributes {kiln.dim_exprs = ["batch", "seq", "8", "2"]}
// CHECK-NOT:     kiln.kernel
func.func @prefix_chain(%x: tensor<?x?x2x8xf32> {kiln.name = "x", kiln.dim_names = ["batch", "seq", "", ""]}, %b: tensor<8xf32>, %s: tensor<?x?x1x1xf32> {kiln.name = "s", kiln.dim_names = ["batch", "seq", "", ""]}) -> tensor<?x?x8x2xf32>
    attributes {kiln.dim_ranges = {batch = array<i64: 1, 8, 8>, seq = array<i64: 16, 64, 64>}} {
  %0 = kiln.add %x, %b {kiln.dim_exprs = ["batch", "seq", "2", "8"]} : tensor<?x?x2x8xf32>, tensor<8xf32> -> tensor<?x?x2x8xf32>
  %1 = kiln.transpose %0 {kiln.dim_exprs = ["batch", "seq", "8", "2"], perm = array<i64: 0, 1, 3, 2>} : tensor<?x?x2x8xf32> -> tensor<?x?x8x2xf32>
  %2 = kiln.mul %1, %s {kiln.dim_exprs = ["batch", "seq", "8", "2"]} : tensor<?x?x8x2xf32>, tensor<?x?x1x1xf32> -> tensor<?x?x8x2xf32>
  return %2 : tensor<?x?x8x2xf32>
}

// -----

// An operand with another run-time prefix: [1, seq, 8] added to
// [batch, seq, 8] indexes seq alone, by value; the position table's add and
// the head split that follows ([batch, seq, 2, 4] to [batch, 2, seq, 4])
// join one data_movement kernel.
// CHECK-LABEL: func.func @prefix_broadcast
// CHECK:         kiln.kernel "add_transpose_0" data_movement
// CHECK-SAME:      attributes {kiln.dim_exprs = ["batch", "2", "seq", "4"]}
// CHECK-NOT:     kiln.kernel
func.func @prefix_broadcast(%x: tensor<?x?x8xf32> {kiln.name = "x", kiln.dim_names = ["batch", "seq", ""]}, %p: tensor<1x?x8xf32> {kiln.name = "p", kiln.dim_names = ["", "seq", ""]}) -> tensor<?x2x?x4xf32>
    attributes {kiln.dim_ranges = {batch = array<i64: 1, 8, 8>, seq = array<i64: 16, 64, 64>}} {
  %shape = kiln.constant dense<[0, 0, 2, 4]> : tensor<4xi64>
  %0 = kiln.add %x, %p {kiln.dim_exprs = ["batch", "seq", "8"]} : tensor<?x?x8xf32>, tensor<1x?x8xf32> -> tensor<?x?x8xf32>
  %1 = kiln.reshape %0, %shape {kiln.dim_exprs = ["batch", "seq", "2", "4"]} : tensor<?x?x8xf32>, tensor<4xi64> -> tensor<?x?x2x4xf32>
  %2 = kiln.transpose %1 {kiln.dim_exprs = ["batch", "2", "seq", "4"], perm = array<i64: 0, 2, 1, 3>} : tensor<?x?x2x4xf32> -> tensor<?x2x?x4xf32>
  return %2 : tensor<?x2x?x4xf32>
}

// -----

// A transpose that swaps two run-time dims, by value.
// CHECK-LABEL: func.func @prefix_transpose
// CHECK:         kiln.kernel "transpose_0" data_movement
func.func @prefix_transpose(%x: tensor<?x?x8xf32> {kiln.name = "x", kiln.dim_names = ["batch", "seq", ""]}) -> tensor<?x?x8xf32>
    attributes {kiln.dim_ranges = {batch = array<i64: 1, 8, 8>, seq = array<i64: 16, 64, 64>}} {
  %0 = kiln.transpose %x {kiln.dim_exprs = ["seq", "batch", "8"], perm = array<i64: 1, 0, 2>} : tensor<?x?x8xf32> -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

// A gather along one of the run-time dims (x[:, 0], BERT's pooler): its
// index bound is seq's value.
// CHECK-LABEL: func.func @prefix_gather
// CHECK:         kiln.kernel "gather_tanh_0" pointwise
// CHECK-SAME:      attributes {kiln.dim_exprs = ["batch", "8"]}
func.func @prefix_gather(%x: tensor<?x?x8xf32> {kiln.name = "x", kiln.dim_names = ["batch", "seq", ""]}) -> tensor<?x8xf32>
    attributes {kiln.dim_ranges = {batch = array<i64: 1, 8, 8>, seq = array<i64: 16, 64, 64>}} {
  %i = kiln.constant dense<0> : tensor<i64>
  %0 = kiln.gather %x, %i {axis = 1 : i64, kiln.dim_exprs = ["batch", "8"]} : tensor<?x?x8xf32>, tensor<i64> -> tensor<?x8xf32>
  %1 = kiln.tanh %0 {kiln.dim_exprs = ["batch", "8"]} : tensor<?x8xf32> -> tensor<?x8xf32>
  return %1 : tensor<?x8xf32>
}

// -----

// kiln.shape of a ranged value: its elements are the extents, computed
// from the dim parameters; the kernel's output is static.
// CHECK-LABEL: func.func @shape_of_ranged
// CHECK:         kiln.kernel "shape_0" data_movement ins(%{{.*}} : tensor<?x?xi64>) outs(%{{.*}} : tensor<2xi64>)
func.func @shape_of_ranged(%x: tensor<?x?xi64> {kiln.name = "x", kiln.dim_names = ["batch", "seq"]}) -> tensor<2xi64>
    attributes {kiln.dim_ranges = {batch = array<i64: 1, 8, 8>, seq = array<i64: 16, 64, 64>}} {
  %0 = kiln.shape %x : tensor<?x?xi64> -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// A kiln.shape of a ranged value and shape arithmetic on it (a "dim value":
// here its two extents gathered and concatenated again) read by several
// kernels that can all compute it (pointwise and data_movement kernels,
// whose loop template indexes by value): each computes it from its dim
// parameters, with the shaped value as an input, and no kernel writes it to
// memory. (HF BERT's attention_mask shapes, read by the embedding and the
// mask kernels.)
// CHECK-LABEL: func.func @shape_read_by_two
// CHECK:         kiln.kernel "expand_0" data_movement ins(%[[IDS:.+]] : tensor<?x?xi64>)
// CHECK:           kiln.shape
// CHECK:           kiln.gather
// CHECK:           kiln.gather
// CHECK:           kiln.concat
// CHECK:           kiln.expand
// CHECK:         kiln.kernel "expand_relu_1" pointwise ins(%[[IDS]] : tensor<?x?xi64>)
// CHECK:           kiln.shape
// CHECK:           kiln.concat
// CHECK:           kiln.expand
// CHECK:           kiln.relu
// CHECK-NOT:     kiln.kernel
func.func @shape_read_by_two(%ids: tensor<?x?xi64> {kiln.name = "ids", kiln.dim_names = ["batch", "seq"]}) -> (tensor<?x?xf32>, tensor<?x?xf32>)
    attributes {kiln.dim_ranges = {batch = array<i64: 1, 8, 8>, seq = array<i64: 16, 64, 64>}} {
  %one = kiln.constant dense<1.5> : tensor<1x1xf32>
  %two = kiln.constant dense<-2.5> : tensor<1x1xf32>
  %i0 = kiln.constant dense<[0]> : tensor<1xi64>
  %i1 = kiln.constant dense<[1]> : tensor<1xi64>
  %s = kiln.shape %ids : tensor<?x?xi64> -> tensor<2xi64>
  %b = kiln.gather %s, %i0 {axis = 0 : i64} : tensor<2xi64>, tensor<1xi64> -> tensor<1xi64>
  %q = kiln.gather %s, %i1 {axis = 0 : i64} : tensor<2xi64>, tensor<1xi64> -> tensor<1xi64>
  %bq = kiln.concat %b, %q {axis = 0 : i64} : tensor<1xi64>, tensor<1xi64> -> tensor<2xi64>
  %a = kiln.expand %one, %bq {kiln.dim_exprs = ["batch", "seq"]} : tensor<1x1xf32>, tensor<2xi64> -> tensor<?x?xf32>
  %e = kiln.expand %two, %bq {kiln.dim_exprs = ["batch", "seq"]} : tensor<1x1xf32>, tensor<2xi64> -> tensor<?x?xf32>
  %c = kiln.relu %e {kiln.dim_exprs = ["batch", "seq"]} : tensor<?x?xf32> -> tensor<?x?xf32>
  return %a, %c : tensor<?x?xf32>, tensor<?x?xf32>
}

// -----

// A by-value op does not join a kernel whose template indexes the run-time
// prefix as one extent (a row reduction's rows): the transpose that swaps
// the run-time dims roots a kernel of its own.
// CHECK-LABEL: func.func @by_value_split
// CHECK:         kiln.kernel "transpose_0" data_movement
// CHECK:         kiln.kernel "reduce_max_1" row_reduce
func.func @by_value_split(%x: tensor<?x?x8xf32> {kiln.name = "x", kiln.dim_names = ["batch", "seq", ""]}) -> tensor<?x?x1xf32>
    attributes {kiln.dim_ranges = {batch = array<i64: 1, 8, 8>, seq = array<i64: 16, 64, 64>}} {
  %axes = kiln.constant dense<2> : tensor<1xi64>
  %0 = kiln.transpose %x {kiln.dim_exprs = ["seq", "batch", "8"], perm = array<i64: 1, 0, 2>} : tensor<?x?x8xf32> -> tensor<?x?x8xf32>
  %1 = kiln.reduce_max %0, %axes {keepdims = true, kiln.dim_exprs = ["seq", "batch", "1"]} : tensor<?x?x8xf32>, tensor<1xi64> -> tensor<?x?x1xf32>
  return %1 : tensor<?x?x1xf32>
}

// -----

// A row reduction whose own extents need their values (rows [batch, 4,
// seq]: seq after a static dim): only the loop template takes them.
func.func @by_value_row(%x: tensor<?x4x?x8xf32> {kiln.name = "x", kiln.dim_names = ["batch", "", "seq", ""]}) -> tensor<?x4x?x8xf32>
    attributes {kiln.dim_ranges = {batch = array<i64: 1, 8, 8>, seq = array<i64: 16, 64, 64>}} {
  // expected-error @+1 {{roots a row_reduce kernel: needs the values of its run-time extents (they are not a leading prefix its operands and result agree on), which only the loop template of pointwise and data_movement kernels takes}}
  %0 = kiln.softmax %x {axis = -1 : i64, kiln.dim_exprs = ["batch", "4", "seq", "8"]} : tensor<?x4x?x8xf32> -> tensor<?x4x?x8xf32>
  return %0 : tensor<?x4x?x8xf32>
}
