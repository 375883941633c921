// RUN: kiln-opt %s --split-input-file --verify-diagnostics
// Verifier and type-inference errors of the movement ops.

func.func @pad_mode(%x: tensor<2xf32>, %p: tensor<2xi64>) {
  // expected-error @+2 {{unknown pad mode 'mirror'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.pad %x, %p {mode = "mirror"} : tensor<2xf32>, tensor<2xi64> -> tensor<?xf32>
  return
}

// -----

func.func @depth_to_space_rank(%x: tensor<8x2xf32>) {
  // expected-error @+2 {{input must be 4-D (NCHW), got rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.depth_to_space %x {blocksize = 2 : i64} : tensor<8x2xf32> -> tensor<8x2xf32>
  return
}

// -----

func.func @top_k_too_many(%x: tensor<3x4xf32>) {
  %k = kiln.constant dense<5> : tensor<1xi64>
  // expected-error @+2 {{k = 5 exceeds the axis length 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.top_k %x, %k : tensor<3x4xf32>, tensor<1xi64> -> tensor<3x5xi64>
  return
}

// -----

func.func @resize_mode(%x: tensor<4xf32>, %s: tensor<1xf32>) {
  // expected-error @+2 {{unsupported resize mode 'area'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.resize %x scales %s : tensor<1xf32> {mode = "area"} : tensor<4xf32> -> tensor<?xf32>
  return
}

// -----

func.func @einsum_terms(%x: tensor<3x4xf32>) {
  // expected-error @+2 {{equation 'ij,jk->ik': equation has 2 terms for 1 inputs}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.einsum %x {equation = "ij,jk->ik"} : tensor<3x4xf32> -> tensor<3x4xf32>
  return
}

// -----

func.func @scatter_reduction(%x: tensor<4xf32>, %i: tensor<2xi64>, %u: tensor<2xf32>) {
  // expected-error @+2 {{unknown reduction 'sub'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.scatter_elements %x, %i, %u {reduction = "sub"} : tensor<4xf32>, tensor<2xi64>, tensor<2xf32> -> tensor<4xf32>
  return
}
