// RUN: kiln-opt %s --split-input-file --kiln-record-dim-exprs | FileCheck %s
// Symbolic extents of the ops transformers' attention-mask construction
// uses (HF BERT exported by TorchScript and dynamo): a range from 0 to an
// extent, GatherElements (the indices' extents) and GatherND.

// CHECK-LABEL: func.func @mask_indices
// CHECK: kiln.range {{.*}}kiln.dim_exprs = ["seq"]
// CHECK: kiln.gather_elements {{.*}}kiln.dim_exprs = ["1", "seq"]
// CHECK: kiln.gather_nd {{.*}}kiln.dim_exprs = ["batch", "seq"]
func.func @mask_indices(%ids: tensor<?x?xi64> {kiln.name = "ids", kiln.dim_names = ["batch", "seq"]}, %pairs: tensor<?x?x2xi64> {kiln.name = "pairs", kiln.dim_names = ["batch", "seq", ""]}) -> (tensor<?xi64>, tensor<1x?xi64>, tensor<?x?xi64>)
    attributes {kiln.dim_ranges = {batch = array<i64: 1, 8, 8>, seq = array<i64: 16, 64, 64>}} {
  %zero = kiln.constant dense<0> : tensor<i64>
  %one = kiln.constant dense<1> : tensor<i64>
  %table = kiln.constant dense<0> : tensor<1x512xi64>
  %shape = kiln.shape %ids {end = 2 : i64, start = 1 : i64} : tensor<?x?xi64> -> tensor<1xi64>
  %seq = kiln.squeeze %shape : tensor<1xi64> -> tensor<i64>
  %positions = kiln.range %zero, %seq, %one : tensor<i64>, tensor<i64>, tensor<i64> -> tensor<?xi64>
  %row = kiln.constant dense<0> : tensor<1xi64>
  %index = kiln.unsqueeze %positions, %row : tensor<?xi64>, tensor<1xi64> -> tensor<1x?xi64>
  %types = kiln.gather_elements %table, %index {axis = 1 : i64} : tensor<1x512xi64>, tensor<1x?xi64> -> tensor<1x?xi64>
  %picked = kiln.gather_nd %ids, %pairs {batch_dims = 0 : i64} : tensor<?x?xi64>, tensor<?x?x2xi64> -> tensor<?x?xi64>
  return %positions, %types, %picked : tensor<?xi64>, tensor<1x?xi64>, tensor<?x?xi64>
}

// -----

// A range by 2 or from a start other than 0 keeps no expression.
// CHECK-LABEL: func.func @strided_range
// CHECK: kiln.range {{.*}}kiln.dim_exprs = ["?"]
func.func @strided_range(%ids: tensor<?xi64> {kiln.name = "ids", kiln.dim_names = ["seq"]}) -> tensor<?xi64>
    attributes {kiln.dim_ranges = {seq = array<i64: 16, 64, 64>}} {
  %zero = kiln.constant dense<0> : tensor<i64>
  %two = kiln.constant dense<2> : tensor<i64>
  %shape = kiln.shape %ids : tensor<?xi64> -> tensor<1xi64>
  %seq = kiln.squeeze %shape : tensor<1xi64> -> tensor<i64>
  %even = kiln.range %zero, %seq, %two : tensor<i64>, tensor<i64>, tensor<i64> -> tensor<?xi64>
  return %even : tensor<?xi64>
}
