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
