// kiln-interpret binds TensorProto inputs by name (kiln.name) before position,
// and checks each input against its argument type, naming the input.
// RUN: %{make_tensor} %t/x.pb int32 3 10,20,30 --name x
// RUN: %{make_tensor} %t/y.pb int32 3 1,2,3 --name y
// RUN: %{make_tensor} %t/anonymous.npy int32 3 1,2,3

// Files given as y, x still bind to x, y by name.
// RUN: kiln-interpret %s --inputs %t/y.pb,%t/x.pb --print-values | FileCheck %s --check-prefix=NAMED
// NAMED: output 0 'difference': int32[3]
// NAMED-NEXT: values: [9, 18, 27]

// Unnamed .npy files bind by position; named ones first take their argument.
// RUN: %{make_tensor} %t/ten.npy int32 3 10,20,30
// RUN: kiln-interpret %s --inputs %t/anonymous.npy,%t/ten.npy --print-values | FileCheck %s --check-prefix=POSITION
// POSITION: values: [-9, -18, -27]
// RUN: kiln-interpret %s --inputs %t/anonymous.npy,%t/x.pb --print-values | FileCheck %s --check-prefix=NAMED

// A directory of input_N files is read in numeric order.
// RUN: %{make_tensor} %t/dir/input_0.pb int32 3 10,20,30 --name x
// RUN: %{make_tensor} %t/dir/input_1.npy int32 3 1,2,3
// RUN: kiln-interpret %s --inputs %t/dir --print-values | FileCheck %s --check-prefix=NAMED

// Wrong dtype, wrong count, and a shape that --input-shape fixed.
// RUN: %{make_tensor} %t/wide.npy int64 3 1,2,3
// RUN: %{exit_status} kiln-interpret %s --inputs %t/x.pb,%t/wide.npy | FileCheck %s --check-prefix=DTYPE
// DTYPE: kiln-interpret: error: input 'y' (argument 1) of @main expects tensor<?xi32>, got int64[3]
// DTYPE: exit status: 2
// RUN: %{exit_status} kiln-interpret %s --inputs %t/x.pb | FileCheck %s --check-prefix=COUNT
// COUNT: kiln-interpret: error: the model takes 2 inputs, got 1 tensors
// COUNT: exit status: 2
// RUN: %{exit_status} kiln-interpret %s --input-shape x=4 --inputs %t/x.pb,%t/y.pb | FileCheck %s --check-prefix=SHAPE
// SHAPE: kiln-interpret: error: input 'x' (argument 0) of @main expects tensor<4xi32>, got int32[3]
// SHAPE: exit status: 2
// The comma-separated form, as kiln-compile takes it: both shapes apply
// (3 and 4 do not broadcast), and x=3,y=3 runs.
// RUN: %{exit_status} kiln-interpret %s --input-shape x=3,y=4 --inputs %t/x.pb,%t/y.pb 2>&1 | FileCheck %s --check-prefix=COMMA
// COMMA: operand shapes do not broadcast: tensor<3xi32>, tensor<4xi32>
// COMMA: exit status: 2
// RUN: kiln-interpret %s --input-shape x=3,y=3 --inputs %t/x.pb,%t/y.pb --print-values | FileCheck %s --check-prefix=NAMED

func.func @main(%x: tensor<?xi32> {kiln.name = "x"}, %y: tensor<?xi32> {kiln.name = "y"})
    -> tensor<?xi32> attributes {kiln.output_names = ["difference"]} {
  %0 = kiln.sub %x, %y : tensor<?xi32>, tensor<?xi32> -> tensor<?xi32>
  return %0 : tensor<?xi32>
}
