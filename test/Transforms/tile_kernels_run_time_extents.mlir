// kiln-tile-kernels on kernels with run-time extents (issue 18): the element
// count is recorded as an expression (kiln.element_count, DimExpr's printed
// form), the geometry is chosen for the ranges' largest count (grid_size is
// the grid there; at launch the grid is min(ceil(count / units per block),
// grid_size)), and vectors only divide the static trailing dims.
// RUN: kiln-opt %s --split-input-file --kiln-fuse-kernels --kiln-tile-kernels | FileCheck %s

// [batch, 8] f32 with a bias row: vectors of 4 (8 % 4 == 0), one block at
// batch 64 (512 elements); every count of the range chooses the same, so
// the kernel has no buckets (kiln.buckets would come before kiln.dim_exprs).
// CHECK-LABEL: func.func @bias_relu
// CHECK:         kiln.kernel "add_relu_0" pointwise
// CHECK-SAME:      block_size = 256 : i64, elements_per_thread = 1 : i64, grid_size = 1 : i64, kiln.dim_exprs = ["batch", "8"], kiln.element_count = "batch*8", variant = #kiln.variant<loop>, vector_width = 4 : i64
func.func @bias_relu(%x: tensor<?x8xf32> {kiln.name = "x", kiln.dim_names = ["batch", ""]}, %b: tensor<8xf32>) -> tensor<?x8xf32>
    attributes {kiln.dim_ranges = {batch = array<i64: 1, 64, 64>}} {
  %0 = kiln.add %x, %b {kiln.dim_exprs = ["batch", "8"]} : tensor<?x8xf32>, tensor<8xf32> -> tensor<?x8xf32>
  %1 = kiln.relu %0 {kiln.dim_exprs = ["batch", "8"]} : tensor<?x8xf32> -> tensor<?x8xf32>
  return %1 : tensor<?x8xf32>
}

// -----

// [batch, 6] f32: vectors of 2, the widest that divides 6, so every count
// in the range is whole vectors.
// CHECK-LABEL: func.func @six
// CHECK:         kiln.kernel "relu_0" pointwise
// CHECK-SAME:      kiln.element_count = "batch*6"
// CHECK-SAME:      vector_width = 2 : i64
func.func @six(%x: tensor<?x6xf32> {kiln.name = "x", kiln.dim_names = ["batch", ""]}) -> tensor<?x6xf32>
    attributes {kiln.dim_ranges = {batch = array<i64: 1, 64, 64>}} {
  %0 = kiln.relu %x {kiln.dim_exprs = ["batch", "6"]} : tensor<?x6xf32> -> tensor<?x6xf32>
  return %0 : tensor<?x6xf32>
}

// -----

// A large range: 4 vectors per thread and the grid of the largest count
// (16384 x 1024 elements / (256 x 4 x 4) = 4096 blocks). Up to the count
// whose one-vector grid fills the cap (132 SMs x 64 blocks x 256 x 4 =
// 8650752 elements) the choice is 1 vector per thread: one bucket, chosen
// there (8448 blocks of 256 x 4), for the counts up to it.
// CHECK-LABEL: func.func @large
// CHECK:         kiln.kernel "relu_0" pointwise
// CHECK-SAME:      elements_per_thread = 4 : i64, grid_size = 4096 : i64
// CHECK-SAME:      kiln.buckets = [{block_size = 256 : i64, elements_per_thread = 1 : i64, grid_size = 8448 : i64, max_count = 8650752 : i64, vector_width = 4 : i64}]
// CHECK-SAME:      kiln.element_count = "rows*1024"
// CHECK-SAME:      vector_width = 4 : i64
func.func @large(%x: tensor<?x1024xf32> {kiln.name = "x", kiln.dim_names = ["rows", ""]}) -> tensor<?x1024xf32>
    attributes {kiln.dim_ranges = {rows = array<i64: 1, 16384, 16384>}} {
  %0 = kiln.relu %x {kiln.dim_exprs = ["rows", "1024"]} : tensor<?x1024xf32> -> tensor<?x1024xf32>
  return %0 : tensor<?x1024xf32>
}

// -----

// Data movement reads elsewhere than its own index: scalar accesses.
// CHECK-LABEL: func.func @transpose
// CHECK:         kiln.kernel "transpose_0" data_movement
// CHECK-SAME:      grid_size = 8 : i64
// CHECK-SAME:      kiln.element_count = "batch*32", vector_width = 1 : i64
func.func @transpose(%x: tensor<?x4x8xf32> {kiln.name = "x", kiln.dim_names = ["batch", "", ""]}) -> tensor<?x8x4xf32>
    attributes {kiln.dim_ranges = {batch = array<i64: 1, 64, 64>}} {
  %0 = kiln.transpose %x {kiln.dim_exprs = ["batch", "8", "4"], perm = array<i64: 0, 2, 1>} : tensor<?x4x8xf32> -> tensor<?x8x4xf32>
  return %0 : tensor<?x8x4xf32>
}

// -----

// A ResNet head with a run-time batch: the global average pool of NCHW
// [batch, 64, 7, 7] is a row reduction with a run-time row count (rows of
// 49, a warp each, 4 per block): its count is the output's, batch*64, and
// its grid the one at batch 64 (4096 rows / 4); the row length stays static.
// CHECK-LABEL: func.func @global_average_pool
// CHECK:         kiln.kernel "reduce_mean_0" row_reduce
// CHECK-SAME:      block_size = 128 : i64, grid_size = 1024 : i64, kiln.dim_exprs = ["batch", "64", "1", "1"], kiln.element_count = "batch*64", rows_per_block = 4 : i64, variant = #kiln.variant<warp_rows>
func.func @global_average_pool(%x: tensor<?x64x7x7xf32> {kiln.name = "x", kiln.dim_names = ["batch", "", "", ""]}) -> tensor<?x64x1x1xf32>
    attributes {kiln.dim_ranges = {batch = array<i64: 1, 64, 64>}} {
  %axes = kiln.constant dense<[2, 3]> : tensor<2xi64>
  %0 = kiln.reduce_mean %x, %axes {kiln.dim_exprs = ["batch", "64", "1", "1"]} : tensor<?x64x7x7xf32>, tensor<2xi64> -> tensor<?x64x1x1xf32>
  return %0 : tensor<?x64x1x1xf32>
}

// -----

// Its channels-last form, a reduction over H and W computed per output
// element, and a channels-last max pool: pointwise kernels whose counts
// are the outputs' (the window and the reduced axes are static dims).
// CHECK-LABEL: func.func @channels_last
// CHECK:         kiln.kernel "max_pool_0" pointwise
// CHECK-SAME:      grid_size = 32 : i64, kiln.dim_exprs = ["batch", "4", "4", "64"], kiln.element_count = "batch*1024", variant = #kiln.variant<channels_last_pool>, vector_width = 8 : i64
// CHECK:         kiln.kernel "reduce_mean_1" pointwise
// CHECK-SAME:      kiln.element_count = "batch*64", variant = #kiln.variant<loop>
func.func @channels_last(%x: tensor<?x8x8x64xf16> {kiln.name = "x", kiln.dim_names = ["batch", "", "", ""]}) -> tensor<?x1x1x64xf16>
    attributes {kiln.dim_ranges = {batch = array<i64: 1, 64, 64>}} {
  %p = kiln.max_pool %x {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, kiln.dim_exprs = ["batch", "4", "4", "64"], layout = "NHWC", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<?x8x8x64xf16> -> tensor<?x4x4x64xf16>
  %axes = kiln.constant dense<[1, 2]> : tensor<2xi64>
  %0 = kiln.reduce_mean %p, %axes {kiln.dim_exprs = ["batch", "1", "1", "64"]} : tensor<?x4x4x64xf16>, tensor<2xi64> -> tensor<?x1x1x64xf16>
  return %0 : tensor<?x1x1x64xf16>
}

