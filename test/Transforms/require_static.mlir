// RUN: kiln-opt %s --split-input-file --kiln-require-static --verify-diagnostics

// expected-error @+2 {{input 'x' has dynamic dim 0 ('batch'); pass --input-shape batch=N or x=Nx8}}
// expected-error @+1 {{input 'y' has dynamic dim 1; pass --input-shape y=2xN}}
func.func @dynamic_inputs(%x: tensor<?x8xf32> {kiln.name = "x", kiln.dim_names = ["batch", ""]}, %y: tensor<2x?xf32> {kiln.name = "y", kiln.dim_names = ["", ""]}) {
  return
}

// -----

func.func @dynamic_result(%x: tensor<4xf32>, %s: tensor<2xi64>) -> tensor<?x?xf32> {
  // expected-error @+1 {{result type 'tensor<?x?xf32>' is not static; code generation needs static shapes}}
  %0 = kiln.reshape %x, %s : tensor<4xf32>, tensor<2xi64> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// Static functions pass unchanged.
func.func @static(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = kiln.relu %x : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A loop left by kiln-simplify-graph: the message names the input to bind.
func.func @loop_trip_count(%m: tensor<i64> {kiln.name = "M"}, %y: tensor<f32> {kiln.name = "y"}) -> tensor<f32> {
  // expected-error @+1 {{Loop trip count is not known at compile time; bind input 'M' with --bind-input M=FILE.pb}}
  %0 = kiln.loop trip_count(%m : tensor<i64>) carried(%y : tensor<f32>) {
  ^bb0(%i: tensor<i64>, %c: tensor<i1>, %v: tensor<f32>):
    kiln.yield %c, %v : tensor<i1>, tensor<f32>
  } : tensor<f32>
  return %0 : tensor<f32>
}

// -----

// An if left by kiln-simplify-graph: its condition depends on data.
func.func @if_condition(%c: tensor<i1> {kiln.name = "flag"}, %x: tensor<4xf32> {kiln.name = "x"}, %y: tensor<1x4xf32> {kiln.name = "y"}) -> tensor<*xf32> {
  // expected-error @+1 {{If condition is not known at compile time (bind input 'flag' with --bind-input flag=FILE.pb) and its branches give values of different shapes (output 0: tensor<4xf32> then, tensor<1x4xf32> else), which would need run-time control flow}}
  %0 = kiln.if %c : tensor<i1> then {
    kiln.yield %x : tensor<4xf32>
  } else {
    kiln.yield %y : tensor<1x4xf32>
  } : tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

func.func @loop_condition(%y: tensor<f32> {kiln.name = "y"}) -> tensor<f32> {
  %m = kiln.constant dense<3> : tensor<i64>
  // expected-error @+1 {{Loop condition computed by the body depends on data (or it runs more than 4096 iterations); kiln unrolls loops and cannot run one on the GPU}}
  %0 = kiln.loop trip_count(%m : tensor<i64>) carried(%y : tensor<f32>) {
  ^bb0(%i: tensor<i64>, %c: tensor<i1>, %v: tensor<f32>):
    %1 = kiln.less %v, %y : tensor<f32>, tensor<f32> -> tensor<i1>
    kiln.yield %1, %v : tensor<i1>, tensor<f32>
  } : tensor<f32>
  return %0 : tensor<f32>
}

// -----

// Ranged dims whose run-time extents are expressions of them pass: which
// kernels take run-time extents is the kernel kinds' contract, checked at
// fusion (fuse_kernels_run_time_extents.mlir).
func.func @ranged(%x: tensor<?x?x16xf32> {kiln.name = "x", kiln.dim_names = ["batch", "seq", ""]}) -> tensor<?x16xf32>
    attributes {kiln.dim_ranges = {batch = array<i64: 1, 64, 64>, seq = array<i64: 16, 512, 128>}} {
  %shape = kiln.constant dense<[-1, 16]> : tensor<2xi64>
  %0 = kiln.reshape %x, %shape : tensor<?x?x16xf32>, tensor<2xi64> -> tensor<?x16xf32>
  %1 = kiln.relu %0 : tensor<?x16xf32> -> tensor<?x16xf32>
  return %1 : tensor<?x16xf32>
}

// -----

// A run-time extent that is no expression of the ranged dims (a shape read
// from an input) is an error at the first op that has one.
func.func @ranged_unknown(%x: tensor<?x16xf32> {kiln.name = "x", kiln.dim_names = ["batch", ""]}, %s: tensor<2xi64> {kiln.name = "s"}) -> tensor<?x?xf32>
    attributes {kiln.dim_ranges = {batch = array<i64: 1, 64, 64>}} {
  // expected-error @+1 {{result extents [?, ?] include one that is not an expression of the ranged dims (`?`); kernels and the memory plan need every run-time extent as one; pass --input-shape batch=N for an artifact of one size}}
  %0 = kiln.reshape %x, %s : tensor<?x16xf32>, tensor<2xi64> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// A ranged dim beside an unranged one: the unranged one is named as before.
// expected-error @+1 {{input 'y' has dynamic dim 0 ('other'); pass --input-shape other=N or y=N}}
func.func @ranged_and_unranged(%x: tensor<?xf32> {kiln.name = "x", kiln.dim_names = ["batch"]}, %y: tensor<?xf32> {kiln.name = "y", kiln.dim_names = ["other"]})
    attributes {kiln.dim_ranges = {batch = array<i64: 1, 8, 8>}} {
  return
}
