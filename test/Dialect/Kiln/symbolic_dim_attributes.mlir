// RUN: kiln-opt %s --split-input-file | FileCheck %s --check-prefix=ROUNDTRIP
// RUN: kiln-opt %s --split-input-file --kiln-record-dim-exprs --verify-diagnostics | FileCheck %s
// The kiln.dim_ranges and kiln.dim_exprs attributes: they print and parse
// back, and the passes that read them reject malformed ones.

// ROUNDTRIP-LABEL: func.func @ranged
// ROUNDTRIP-SAME: attributes {kiln.dim_ranges = {batch = array<i64: 1, 64, 8>, seq = array<i64: 16, 512, 512>}}

// CHECK-LABEL: func.func @ranged
// CHECK-SAME: attributes {kiln.dim_ranges = {batch = array<i64: 1, 64, 8>, seq = array<i64: 16, 512, 512>}}
// CHECK: kiln.relu %{{.*}} {kiln.dim_exprs = ["batch", "seq"]}
// ROUNDTRIP: kiln.relu %{{.*}} {kiln.dim_exprs = ["\22a b\22*seq*12 - 1", "seq"]}
func.func @ranged(%x: tensor<?x?xf32> {kiln.name = "x", kiln.dim_names = ["batch", "seq"]}) -> tensor<?x?xf32>
    attributes {kiln.dim_ranges = {batch = array<i64: 1, 64, 8>, seq = array<i64: 16, 512, 512>}} {
  %0 = kiln.relu %x {kiln.dim_exprs = ["\"a b\"*seq*12 - 1", "seq"]} : tensor<?x?xf32> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// expected-error @+1 {{range of dimension 'batch' needs 1 <= lo <= opt <= hi, not lo 64, hi 1, opt 1}}
func.func @reversed(%x: tensor<?xf32> {kiln.dim_names = ["batch"]}) attributes {kiln.dim_ranges = {batch = array<i64: 64, 1, 1>}} {
  return
}

// -----

// expected-error @+1 {{range of dimension 'batch' needs 1 <= lo <= opt <= hi, not lo 0, hi 4, opt 4}}
func.func @from_zero(%x: tensor<?xf32> {kiln.dim_names = ["batch"]}) attributes {kiln.dim_ranges = {batch = array<i64: 0, 4, 4>}} {
  return
}

// -----

// expected-error @+1 {{range of dimension 'batch' needs 1 <= lo <= opt <= hi, not lo 1, hi 4, opt 9}}
func.func @opt_outside(%x: tensor<?xf32> {kiln.dim_names = ["batch"]}) attributes {kiln.dim_ranges = {batch = array<i64: 1, 4, 9>}} {
  return
}

// -----

// expected-error @+1 {{range of dimension 'batch' must be array<i64: lo, hi, opt>, not array<i64: 1, 4>}}
func.func @two_values(%x: tensor<?xf32> {kiln.dim_names = ["batch"]}) attributes {kiln.dim_ranges = {batch = array<i64: 1, 4>}} {
  return
}

// -----

// expected-error @+1 {{range of dimension 'seq': no argument has a dimension of that name}}
func.func @unknown_name(%x: tensor<?xf32> {kiln.dim_names = ["batch"]}) attributes {kiln.dim_ranges = {seq = array<i64: 1, 4, 4>}} {
  return
}

// -----

// expected-error @+1 {{range of dimension 'batch' on a static dimension (argument 0 dim 0 is 4)}}
func.func @static_dim(%x: tensor<4xf32> {kiln.dim_names = ["batch"]}) attributes {kiln.dim_ranges = {batch = array<i64: 1, 4, 4>}} {
  return
}

// -----

// expected-error @+1 {{'kiln.dim_ranges' must be a dictionary of dimension ranges}}
func.func @not_dictionary(%x: tensor<?xf32> {kiln.dim_names = ["batch"]}) attributes {kiln.dim_ranges = [1, 4, 4]} {
  return
}

// -----

func.func @on_an_op(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'kiln.dim_ranges' belongs on a function}}
  %0 = kiln.relu %x {kiln.dim_ranges = {}} : tensor<4xf32> -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @exprs_disagree(%x: tensor<?x8xf32> {kiln.dim_names = ["batch", ""]}) -> tensor<?x8xf32> {
  // expected-error @+1 {{'kiln.dim_exprs' entry 1 '9' disagrees with the static size 8}}
  %0 = kiln.relu %x {kiln.dim_exprs = ["batch", "9"]} : tensor<?x8xf32> -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

func.func @exprs_malformed(%x: tensor<?x8xf32> {kiln.dim_names = ["batch", ""]}) -> tensor<?x8xf32> {
  // expected-error @+1 {{'kiln.dim_exprs' entry 0 'batch**2' is not an extent expression}}
  %0 = kiln.relu %x {kiln.dim_exprs = ["batch**2", "8"]} : tensor<?x8xf32> -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

func.func @exprs_rank(%x: tensor<?x8xf32> {kiln.dim_names = ["batch", ""]}) -> tensor<?x8xf32> {
  // expected-error @+1 {{'kiln.dim_exprs' needs 2 strings, one per dim}}
  %0 = kiln.relu %x {kiln.dim_exprs = ["batch"]} : tensor<?x8xf32> -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}
