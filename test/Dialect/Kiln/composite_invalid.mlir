// RUN: kiln-opt %s --split-input-file --verify-diagnostics
// Verifier and type-inference errors of kiln.gelu and kiln.attention.

func.func @gelu_approximate(%x: tensor<4xf32>) {
  // expected-error @+1 {{approximate must be "none" or "tanh", got "fast"}}
  %0 = kiln.gelu %x {approximate = "fast"} : tensor<4xf32> -> tensor<4xf32>
  return
}

// -----

func.func @attention_head_size(%q: tensor<5x8xf32>, %k: tensor<6x4xf32>, %v: tensor<6x3xf32>) {
  // expected-error @+2 {{query and key head sizes differ: 8 vs 4}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.attention %q, %k, %v : tensor<5x8xf32>, tensor<6x4xf32>, tensor<6x3xf32> -> tensor<5x3xf32>
  return
}

// -----

func.func @attention_lengths(%q: tensor<5x8xf32>, %k: tensor<6x8xf32>, %v: tensor<7x3xf32>) {
  // expected-error @+2 {{key and value lengths differ: 6 vs 7}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.attention %q, %k, %v : tensor<5x8xf32>, tensor<6x8xf32>, tensor<7x3xf32> -> tensor<5x3xf32>
  return
}

// -----

func.func @attention_rank(%q: tensor<2x5x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x3xf32>) {
  // expected-error @+2 {{query, key and value must have one rank >= 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.attention %q, %k, %v : tensor<2x5x8xf32>, tensor<6x8xf32>, tensor<6x3xf32> -> tensor<2x5x3xf32>
  return
}

// -----

func.func @attention_batch(%q: tensor<2x5x8xf32>, %k: tensor<3x6x8xf32>, %v: tensor<3x6x3xf32>) {
  // expected-error @+2 {{do not broadcast}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.attention %q, %k, %v : tensor<2x5x8xf32>, tensor<3x6x8xf32>, tensor<3x6x3xf32> -> tensor<3x5x3xf32>
  return
}

// -----

func.func @attention_mask(%q: tensor<5x8xf32>, %k: tensor<6x8xf32>, %v: tensor<6x3xf32>, %m: tensor<5x5xf32>) {
  // expected-error @+2 {{mask 'tensor<5x5xf32>' does not broadcast to the scores 'tensor<5x6xf32>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.attention %q, %k, %v, %m : tensor<5x8xf32>, tensor<6x8xf32>, tensor<6x3xf32>, tensor<5x5xf32> -> tensor<5x3xf32>
  return
}

// -----

func.func @attention_element_type(%q: tensor<5x8xf32>, %k: tensor<6x8xf16>, %v: tensor<6x3xf32>) {
  // expected-error @+2 {{operands must have the element type of the query}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = kiln.attention %q, %k, %v : tensor<5x8xf32>, tensor<6x8xf16>, tensor<6x3xf32> -> tensor<5x3xf32>
  return
}
