// RUN: kiln-opt %s --split-input-file --verify-diagnostics | FileCheck %s
// The kind prints as one keyword after the name, one space either side.
// RUN: kiln-opt %s --split-input-file --verify-diagnostics | FileCheck %s --check-prefix=SPACING --strict-whitespace
// SPACING: {{^}}    %{{[0-9]+}} = kiln.kernel "add_relu" pointwise ins(

// CHECK-LABEL: func.func @round_trip
// CHECK: %[[E:.+]] = kiln.empty : tensor<4x8xf32>
// CHECK: kiln.kernel "add_relu" pointwise ins(%{{.*}}, %{{.*}} : tensor<4x8xf32>, tensor<8xf32>) outs(%[[E]] : tensor<4x8xf32>) attributes {block_size = 256 : i64, grid_size = 1 : i64} {
// CHECK: ^bb0(%{{.*}}: tensor<4x8xf32>, %{{.*}}: tensor<8xf32>, %{{.*}}: tensor<4x8xf32>):
// CHECK: kiln.yield %{{.*}} : tensor<4x8xf32>
// CHECK: } -> tensor<4x8xf32>
func.func @round_trip(%a: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %e = kiln.empty : tensor<4x8xf32>
  %r = kiln.kernel "add_relu" pointwise ins(%a, %b : tensor<4x8xf32>, tensor<8xf32>) outs(%e : tensor<4x8xf32>) attributes {block_size = 256 : i64, grid_size = 1 : i64} {
  ^bb0(%x: tensor<4x8xf32>, %y: tensor<8xf32>, %o: tensor<4x8xf32>):
    %s = kiln.add %x, %y : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
    %t = kiln.relu %s : tensor<4x8xf32> -> tensor<4x8xf32>
    kiln.yield %t : tensor<4x8xf32>
  } -> tensor<4x8xf32>
  return %r : tensor<4x8xf32>
}

// -----

func.func @unknown_kind(%a: tensor<4xf32>) -> tensor<4xf32> {
  %e = kiln.empty : tensor<4xf32>
  // The kind is a KernelKind attribute: its parser takes only their names.
  // expected-error @+2 {{expected ::kiln::KernelKind to be one of: pointwise, row_reduce, transpose, data_movement, library, attention}}
  // expected-error @+1 {{failed to parse Kiln_KernelKindAttr parameter 'value'}}
  %r = kiln.kernel "k" magic ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: tensor<4xf32>, %o: tensor<4xf32>):
    kiln.yield %x : tensor<4xf32>
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @bad_yield(%a: tensor<4xf32>) -> tensor<4xf32> {
  %e = kiln.empty : tensor<4xf32>
  // expected-error @+1 {{yields 'tensor<8xf32>' for result of type 'tensor<4xf32>'}}
  %r = kiln.kernel "k" pointwise ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: tensor<4xf32>, %o: tensor<4xf32>):
    %c = kiln.constant dense<1.0> : tensor<8xf32>
    kiln.yield %c : tensor<8xf32>
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @bad_block(%a: tensor<4xf32>) -> tensor<4xf32> {
  %e = kiln.empty : tensor<4xf32>
  // expected-error @+1 {{block_size must be positive, got 0}}
  %r = kiln.kernel "k" pointwise ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) attributes {block_size = 0 : i64} {
  ^bb0(%x: tensor<4xf32>, %o: tensor<4xf32>):
    kiln.yield %x : tensor<4xf32>
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

func.func @not_isolated(%a: tensor<4xf32>) -> tensor<4xf32> {
  %e = kiln.empty : tensor<4xf32>
  // expected-note @+1 {{required by region isolation constraints}}
  %r = kiln.kernel "k" pointwise ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: tensor<4xf32>, %o: tensor<4xf32>):
    // expected-error @+1 {{using value defined outside the region}}
    kiln.yield %a : tensor<4xf32>
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
