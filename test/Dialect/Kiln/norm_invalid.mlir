// RUN: kiln-opt %s --split-input-file --verify-diagnostics
// Verifier and type-inference errors of the ops in KilnNormOps.td.

func.func @reduce_min_repeated_axis(%x: tensor<2x3xf32>) {
  %axes = kiln.constant dense<[1, -1]> : tensor<2xi64>
  // expected-error @+2 {{axis -1 is repeated}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.reduce_min %x, %axes : tensor<2x3xf32>, tensor<2xi64> -> tensor<2x1xf32>
  return
}

// -----

func.func @arg_max_axis(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{axis 2 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.arg_max %x {axis = 2 : i64} : tensor<2x3xf32> -> tensor<2x1xi64>
  return
}

// -----

func.func @layer_norm_scale(%x: tensor<2x3xf32>, %g: tensor<4xf32>) {
  // expected-error @+2 {{'tensor<4xf32>' does not broadcast to the normalised dims of 'tensor<2x3xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.layer_norm %x, %g : tensor<2x3xf32>, tensor<4xf32> -> tensor<2x3xf32>
  return
}

// -----

func.func @batch_norm_channels(%x: tensor<2x3x4xf32>, %c: tensor<3xf32>, %bad: tensor<4xf32>) {
  // expected-error @+2 {{variance has 4 elements for 3 channels}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.batch_norm %x, %c, %c, %c, %bad : tensor<2x3x4xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<4xf32> -> tensor<2x3x4xf32>
  return
}

// -----

func.func @nll_target_rank(%x: tensor<3x5xf32>, %t: tensor<3x2xi64>) {
  // expected-error @+2 {{target of type 'tensor<3x2xi64>' must have rank 1}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.nll_loss %x, %t : tensor<3x5xf32>, tensor<3x2xi64> -> tensor<f32>
  return
}

// -----

func.func @nll_reduction(%x: tensor<3x5xf32>, %t: tensor<3xi64>) {
  // expected-error @+1 {{reduction must be none, sum or mean, got 'average'}}
  %0 = kiln.nll_loss %x, %t {reduction = "average"} : tensor<3x5xf32>, tensor<3xi64> -> tensor<f32>
  return
}
