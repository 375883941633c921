// Bounds checks (kiln-compile --bounds-checks marks the module
// kiln.bounds_checks): every data-dependent index goes through
// kiln_checked_index with its bound, the axis of the indexed tensor and the
// op's site (artifact_format.h: Gather 1, GatherElements 2, GatherND 3,
// ScatterElements 4, ScatterND 5), and every kernel takes the fault record
// and its step index. Without the attribute nothing of it is emitted.
// RUN: kiln-translate %s --emit-cuda | FileCheck %s
// RUN: sed 's/attributes {kiln.bounds_checks}//' %s | kiln-translate --emit-cuda \
// RUN:   | FileCheck %s --check-prefix=OFF --implicit-check-not=kiln_bounds \
// RUN:     --implicit-check-not=kiln_checked_index

// CHECK-LABEL: kiln.kernel "gather"
// CHECK:         struct kiln_bounds_record {
// CHECK:         kiln_checked_index(
// CHECK:         extern "C" __global__ void __launch_bounds__(256) kiln_data_movement_{{[0-9a-f]+}}(const float* __restrict__ in0, const long long* __restrict__ in1, float* __restrict__ out0, kiln_bounds_record* __restrict__ kiln_bounds, unsigned long long kiln_step) {
// CHECK:         const kiln_index_t g{{[0-9]+}} = (kiln_index_t)kiln_checked_index(x{{[0-9]+}}, 50LL, 0, 1u, kiln_bounds, kiln_step);
// CHECK-NOT:     kiln_gather_index(x
// CHECK-LABEL: kiln.kernel "gather_elements"
// CHECK:         kiln_checked_index(x{{[0-9]+}}, 7LL, 1, 2u, kiln_bounds, kiln_step);
// CHECK-LABEL: kiln.kernel "gather_nd"
// CHECK:         kiln_checked_index(x{{[0-9]+}}, 4LL, 1, 3u, kiln_bounds, kiln_step);
// CHECK:         kiln_checked_index(x{{[0-9]+}}, 5LL, 2, 3u, kiln_bounds, kiln_step);
// CHECK-LABEL: kiln.kernel "scatter_elements"
// CHECK:         kiln_checked_index(x{{[0-9]+}}, 3LL, 0, 4u, kiln_bounds, kiln_step);
// CHECK-LABEL: kiln.kernel "scatter_nd"
// CHECK:         kiln_checked_index(x{{[0-9]+}}, 4LL, 0, 5u, kiln_bounds, kiln_step);
// A kernel without indices takes the parameters too (the runtime passes
// them to every launch of a checked artifact).
// CHECK-LABEL: kiln.kernel "relu"
// CHECK:         float* __restrict__ out0, kiln_bounds_record* __restrict__ kiln_bounds, unsigned long long kiln_step) {
// Without the attribute: the clamping helper, no record, no extra
// parameters.
// OFF-LABEL:   kiln.kernel "gather"
// OFF:           (const float* __restrict__ in0, const long long* __restrict__ in1, float* __restrict__ out0) {
// OFF:           (kiln_index_t)kiln_gather_index(x{{[0-9]+}}, 50LL);
// OFF-LABEL:   kiln.kernel "relu"
// OFF:           (const float* __restrict__ in0, float* __restrict__ out0) {
module attributes {kiln.bounds_checks} {
func.func @gather(%t: tensor<50x257xf32>, %ids: tensor<3x5xi64>) -> tensor<3x5x257xf32> {
  %e = kiln.empty : tensor<3x5x257xf32>
  %r = kiln.kernel "gather" data_movement ins(%t, %ids : tensor<50x257xf32>, tensor<3x5xi64>) outs(%e : tensor<3x5x257xf32>) attributes {block_size = 256 : i64, grid_size = 16 : i64} {
  ^bb0(%x: tensor<50x257xf32>, %i: tensor<3x5xi64>, %o: tensor<3x5x257xf32>):
    %g = kiln.gather %x, %i {axis = 0 : i64} : tensor<50x257xf32>, tensor<3x5xi64> -> tensor<3x5x257xf32>
    kiln.yield %g : tensor<3x5x257xf32>
  } -> tensor<3x5x257xf32>
  return %r : tensor<3x5x257xf32>
}

func.func @gather_elements(%a: tensor<3x7xf32>, %ids: tensor<3x2xi64>) -> tensor<3x2xf32> {
  %e = kiln.empty : tensor<3x2xf32>
  %r = kiln.kernel "gather_elements" data_movement ins(%a, %ids : tensor<3x7xf32>, tensor<3x2xi64>) outs(%e : tensor<3x2xf32>) attributes {block_size = 64 : i64, grid_size = 1 : i64} {
  ^bb0(%x: tensor<3x7xf32>, %i: tensor<3x2xi64>, %o: tensor<3x2xf32>):
    %v = kiln.gather_elements %x, %i {axis = 1 : i64} : tensor<3x7xf32>, tensor<3x2xi64> -> tensor<3x2xf32>
    kiln.yield %v : tensor<3x2xf32>
  } -> tensor<3x2xf32>
  return %r : tensor<3x2xf32>
}

func.func @gather_nd(%d: tensor<2x4x5x3xf32>, %ids: tensor<2x6x2xi64>) -> tensor<2x6x3xf32> {
  %e = kiln.empty : tensor<2x6x3xf32>
  %r = kiln.kernel "gather_nd" data_movement ins(%d, %ids : tensor<2x4x5x3xf32>, tensor<2x6x2xi64>) outs(%e : tensor<2x6x3xf32>) attributes {block_size = 64 : i64, grid_size = 1 : i64} {
  ^bb0(%x: tensor<2x4x5x3xf32>, %i: tensor<2x6x2xi64>, %o: tensor<2x6x3xf32>):
    %v = kiln.gather_nd %x, %i {batch_dims = 1 : i64} : tensor<2x4x5x3xf32>, tensor<2x6x2xi64> -> tensor<2x6x3xf32>
    kiln.yield %v : tensor<2x6x3xf32>
  } -> tensor<2x6x3xf32>
  return %r : tensor<2x6x3xf32>
}

func.func @scatter_elements(%d: tensor<3x3xf32>, %i: tensor<2x3xi64>, %u: tensor<2x3xf32>) -> tensor<3x3xf32> {
  %e = kiln.empty : tensor<3x3xf32>
  %r = kiln.kernel "scatter_elements" data_movement ins(%d, %i, %u : tensor<3x3xf32>, tensor<2x3xi64>, tensor<2x3xf32>) outs(%e : tensor<3x3xf32>) attributes {block_size = 32 : i64, grid_size = 1 : i64} {
  ^bb0(%x: tensor<3x3xf32>, %y: tensor<2x3xi64>, %z: tensor<2x3xf32>, %o: tensor<3x3xf32>):
    %s = kiln.scatter_elements %x, %y, %z {axis = 0 : i64, reduction = "add"} : tensor<3x3xf32>, tensor<2x3xi64>, tensor<2x3xf32> -> tensor<3x3xf32>
    kiln.yield %s : tensor<3x3xf32>
  } -> tensor<3x3xf32>
  return %r : tensor<3x3xf32>
}

func.func @scatter_nd(%d: tensor<4x4xf32>, %i: tensor<2x1xi64>, %u: tensor<2x4xf32>) -> tensor<4x4xf32> {
  %e = kiln.empty : tensor<4x4xf32>
  %r = kiln.kernel "scatter_nd" data_movement ins(%d, %i, %u : tensor<4x4xf32>, tensor<2x1xi64>, tensor<2x4xf32>) outs(%e : tensor<4x4xf32>) attributes {block_size = 32 : i64, grid_size = 1 : i64} {
  ^bb0(%x: tensor<4x4xf32>, %y: tensor<2x1xi64>, %z: tensor<2x4xf32>, %o: tensor<4x4xf32>):
    %s = kiln.scatter_nd %x, %y, %z {reduction = "none"} : tensor<4x4xf32>, tensor<2x1xi64>, tensor<2x4xf32> -> tensor<4x4xf32>
    kiln.yield %s : tensor<4x4xf32>
  } -> tensor<4x4xf32>
  return %r : tensor<4x4xf32>
}

func.func @relu(%a: tensor<64xf32>) -> tensor<64xf32> {
  %e = kiln.empty : tensor<64xf32>
  %r = kiln.kernel "relu" pointwise ins(%a : tensor<64xf32>) outs(%e : tensor<64xf32>) attributes {block_size = 64 : i64, grid_size = 1 : i64} {
  ^bb0(%x: tensor<64xf32>, %o: tensor<64xf32>):
    %v = kiln.relu %x : tensor<64xf32> -> tensor<64xf32>
    kiln.yield %v : tensor<64xf32>
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}
}
