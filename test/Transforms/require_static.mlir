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
