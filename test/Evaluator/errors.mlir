// Errors a bad model or bad input can cause are reported (exit status 2) with
// the op and its ONNX node: Gather index, Reshape size, broadcast, integer
// division by zero.
// RUN: %{make_tensor} %t/table.npy float32 3x2 range
// RUN: %{make_tensor} %t/ids.npy int64 2 0,3
// RUN: %{make_tensor} %t/shape.npy int64 2 4,2
// RUN: %{make_tensor} %t/a.npy int32 3 1,2,3
// RUN: %{make_tensor} %t/b.npy int32 2 1,2
// RUN: %{make_tensor} %t/zeros.npy int32 3 1,0,1
// RUN: %{exit_status} kiln-interpret %s --inputs %t/table.npy,%t/ids.npy,%t/shape.npy,%t/a.npy,%t/a.npy | FileCheck %s --check-prefix=GATHER
// GATHER: kiln-interpret: error: kiln.gather at node 'Gather_3' (Gather): index 3 is out of range for axis 0 of float32[3x2]
// GATHER: exit status: 2
// RUN: %{make_tensor} %t/ok_ids.npy int64 2 -3,2
// RUN: %{exit_status} kiln-interpret %s --inputs %t/table.npy,%t/ok_ids.npy,%t/shape.npy,%t/a.npy,%t/a.npy | FileCheck %s --check-prefix=RESHAPE
// RESHAPE: kiln-interpret: error: kiln.reshape at node 'Reshape_4' (Reshape): cannot reshape float32[2x2] (4 elements) to [4, 2]
// RESHAPE: exit status: 2
// RUN: %{make_tensor} %t/good_shape.npy int64 1 -1
// RUN: %{exit_status} kiln-interpret %s --inputs %t/table.npy,%t/ok_ids.npy,%t/good_shape.npy,%t/a.npy,%t/b.npy | FileCheck %s --check-prefix=BROADCAST
// BROADCAST: kiln-interpret: error: kiln.div at node 'Div_5' (Div): operand shapes [3] and [2] do not broadcast
// BROADCAST: exit status: 2
// RUN: %{exit_status} kiln-interpret %s --inputs %t/table.npy,%t/ok_ids.npy,%t/good_shape.npy,%t/a.npy,%t/zeros.npy | FileCheck %s --check-prefix=ZERO
// ZERO: kiln-interpret: error: kiln.div at node 'Div_5' (Div): integer division by zero at element [1]
// ZERO: exit status: 2
// RUN: %{exit_status} kiln-interpret %s --inputs %t/table.npy,%t/ok_ids.npy,%t/good_shape.npy,%t/a.npy,%t/a.npy | FileCheck %s --check-prefix=OK
// OK: output 0 'rows': float32[4]
// OK: output 1 'ratio': int32[3]
// OK: exit status: 0

func.func @main(%table: tensor<3x2xf32>, %ids: tensor<2xi64>, %shape: tensor<?xi64>,
                %a: tensor<?xi32>, %b: tensor<?xi32>) -> (tensor<?xf32>, tensor<?xi32>)
    attributes {kiln.output_names = ["rows", "ratio"]} {
  %rows = kiln.gather %table, %ids {axis = 0 : i64} : tensor<3x2xf32>, tensor<2xi64> -> tensor<2x2xf32> loc(fused<"Gather">["Gather_3"])
  %flat = kiln.reshape %rows, %shape : tensor<2x2xf32>, tensor<?xi64> -> tensor<?xf32> loc(fused<"Reshape">["Reshape_4"])
  %ratio = kiln.div %a, %b : tensor<?xi32>, tensor<?xi32> -> tensor<?xi32> loc(fused<"Div">["Div_5"])
  return %flat, %ratio : tensor<?xf32>, tensor<?xi32>
}
