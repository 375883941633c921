// The loop template for kernels with run-time extents (issue 18): the ranged
// dims the element count names are `long long kiln_dim<i>` parameters after
// the buffers (narrowed to an int kiln_index_t when every tensor at the
// ranges' maxima stays below 2^30 elements), the count is computed from them, indices divide by static
// strides only (the run-time extent is the outermost dim), broadcasts of
// static operands read by their own dims, and vectors have no tail.
// Compiled by NVRTC.
// RUN: kiln-opt %s --split-input-file --kiln-tile-kernels | kiln-translate --emit-cuda | FileCheck %s

// CHECK-LABEL: kiln.kernel "bias_relu"
// CHECK:         (const float* __restrict__ in0, const float* __restrict__ in1, float* __restrict__ out0, long long kiln_dim0)
// CHECK:         // batch*8 elements (kiln_dim0 = batch) in vectors of 4; 1 vector per thread and grid-stride step.
// CHECK-NEXT:    const kiln_index_t kiln_count = (kiln_index_t)((kiln_dim0 * 8LL) / 4);
// CHECK:         reinterpret_cast<const kiln_vec<float, 4>*>(in0)[i]
// CHECK:         reinterpret_cast<const kiln_vec<float, 4>*>(in1)[(i % 2)]
// CHECK-NOT:     elements after the last whole vector
func.func @bias_relu(%x: tensor<?x8xf32> {kiln.name = "x", kiln.dim_names = ["batch", ""]}, %b: tensor<8xf32>) -> tensor<?x8xf32>
    attributes {kiln.dim_ranges = {batch = array<i64: 1, 64, 64>}} {
  %e = kiln.empty {kiln.dim_exprs = ["batch", "8"]} : tensor<?x8xf32>
  %r = kiln.kernel "bias_relu" pointwise ins(%x, %b : tensor<?x8xf32>, tensor<8xf32>) outs(%e : tensor<?x8xf32>) attributes {kiln.dim_exprs = ["batch", "8"]} {
  ^bb0(%a: tensor<?x8xf32>, %c: tensor<8xf32>, %o: tensor<?x8xf32>):
    %0 = kiln.add %a, %c : tensor<?x8xf32>, tensor<8xf32> -> tensor<?x8xf32>
    %1 = kiln.relu %0 : tensor<?x8xf32> -> tensor<?x8xf32>
    kiln.yield %1 : tensor<?x8xf32>
  } -> tensor<?x8xf32>
  return %r : tensor<?x8xf32>
}

// -----

// Transpose, a column broadcast, a gather from a static table and a concat
// on a static axis, all at run-time batch: the outermost index is the
// linear index divided by the static inner size, never taken modulo.
// CHECK-LABEL: kiln.kernel "movement"
// CHECK:         const long long* __restrict__ in1, const float* __restrict__ in2, float* __restrict__ out0, long long kiln_dim0)
// CHECK:         // batch*64 elements (kiln_dim0 = batch); 1 element per thread and grid-stride step.
// CHECK-NEXT:    const kiln_index_t kiln_count = (kiln_index_t)((kiln_dim0 * 64LL));
// CHECK:         const kiln_index_t c0 = (i % 8);
// CHECK:         in0[(((i / 64) * 4 + c0) * 8 + ((i / 8) % 8))]
// CHECK:         in1[((i / 64) * 4 + (c0 - 4))]
// CHECK:         kiln_gather_index({{.*}}, 50LL)
func.func @movement(%x: tensor<?x4x8xf32> {kiln.name = "x", kiln.dim_names = ["batch", "", ""]}, %ids: tensor<?x4xi64> {kiln.name = "ids", kiln.dim_names = ["batch", ""]}, %table: tensor<50x8xf32>) -> tensor<?x8x8xf32>
    attributes {kiln.dim_ranges = {batch = array<i64: 1, 64, 64>}} {
  %e = kiln.empty {kiln.dim_exprs = ["batch", "8", "8"]} : tensor<?x8x8xf32>
  %r = kiln.kernel "movement" data_movement ins(%x, %ids, %table : tensor<?x4x8xf32>, tensor<?x4xi64>, tensor<50x8xf32>) outs(%e : tensor<?x8x8xf32>) attributes {kiln.dim_exprs = ["batch", "8", "8"]} {
  ^bb0(%a: tensor<?x4x8xf32>, %i: tensor<?x4xi64>, %t: tensor<50x8xf32>, %o: tensor<?x8x8xf32>):
    %0 = kiln.transpose %a {perm = array<i64: 0, 2, 1>} : tensor<?x4x8xf32> -> tensor<?x8x4xf32>
    %1 = kiln.gather %t, %i {axis = 0 : i64} : tensor<50x8xf32>, tensor<?x4xi64> -> tensor<?x4x8xf32>
    %2 = kiln.transpose %1 {perm = array<i64: 0, 2, 1>} : tensor<?x4x8xf32> -> tensor<?x8x4xf32>
    %3 = kiln.concat %0, %2 {axis = 2 : i64} : tensor<?x8x4xf32>, tensor<?x8x4xf32> -> tensor<?x8x8xf32>
    kiln.yield %3 : tensor<?x8x8xf32>
  } -> tensor<?x8x8xf32>
  return %r : tensor<?x8x8xf32>
}

// -----

// Two ranged dims in one count: one parameter each, in name order.
// CHECK-LABEL: kiln.kernel "two_dims"
// CHECK:         float* __restrict__ out0, long long kiln_dim0, long long kiln_dim1)
// CHECK:         // batch*seq*16 elements (kiln_dim0 = batch, kiln_dim1 = seq) in vectors of 4
// CHECK-NEXT:    const kiln_index_t kiln_count = (kiln_index_t)((kiln_dim0 * kiln_dim1 * 16LL) / 4);
func.func @two_dims(%x: tensor<?x16xf32> {kiln.name = "x", kiln.dim_names = ["", ""]}, %ids: tensor<?x?xi64> {kiln.name = "ids", kiln.dim_names = ["batch", "seq"]}) -> tensor<?x16xf32>
    attributes {kiln.dim_ranges = {batch = array<i64: 1, 8, 8>, seq = array<i64: 16, 512, 512>}} {
  %e = kiln.empty {kiln.dim_exprs = ["batch*seq", "16"]} : tensor<?x16xf32>
  %r = kiln.kernel "two_dims" pointwise ins(%x : tensor<?x16xf32>) outs(%e : tensor<?x16xf32>) attributes {kiln.dim_exprs = ["batch*seq", "16"]} {
  ^bb0(%a: tensor<?x16xf32>, %o: tensor<?x16xf32>):
    %0 = kiln.relu %a : tensor<?x16xf32> -> tensor<?x16xf32>
    kiln.yield %0 : tensor<?x16xf32>
  } -> tensor<?x16xf32>
  return %r : tensor<?x16xf32>
}

// -----

// A row reduction with a run-time row count (ResNet's global average pool,
// NCHW): the rows are computed from the dim parameter, the row length (49)
// stays static, a warp per row.
// CHECK-LABEL: kiln.kernel "gap"
// CHECK:         (const float* __restrict__ in0, float* __restrict__ out0, long long kiln_dim0)
// CHECK:         // batch*64 output elements (kiln_dim0 = batch), 1 per row.
// CHECK-NEXT:    const kiln_index_t kiln_rows = (kiln_index_t)((kiln_dim0 * 64LL)) / 1;
// CHECK:         // kiln_rows rows of 49 elements; one warp per row, 4 rows per block.
// CHECK:         row < kiln_rows;
// CHECK:         = row * 49 + col;
func.func @gap(%x: tensor<?x64x7x7xf32> {kiln.name = "x", kiln.dim_names = ["batch", "", "", ""]}) -> tensor<?x64x1x1xf32>
    attributes {kiln.dim_ranges = {batch = array<i64: 1, 64, 64>}} {
  %e = kiln.empty {kiln.dim_exprs = ["batch", "64", "1", "1"]} : tensor<?x64x1x1xf32>
  %r = kiln.kernel "gap" row_reduce ins(%x : tensor<?x64x7x7xf32>) outs(%e : tensor<?x64x1x1xf32>) attributes {kiln.dim_exprs = ["batch", "64", "1", "1"]} {
  ^bb0(%a: tensor<?x64x7x7xf32>, %o: tensor<?x64x1x1xf32>):
    %axes = kiln.constant dense<[2, 3]> : tensor<2xi64>
    %0 = kiln.reduce_mean %a, %axes : tensor<?x64x7x7xf32>, tensor<2xi64> -> tensor<?x64x1x1xf32>
    kiln.yield %0 : tensor<?x64x1x1xf32>
  } -> tensor<?x64x1x1xf32>
  return %r : tensor<?x64x1x1xf32>
}

// -----

// The channels-last max pool with a run-time batch: its units (a pixel by a
// vector of 8 channels) are counted from the dim parameter; the pixel's
// batch index is its outermost dim, which no index needs the size of.
// CHECK-LABEL: kiln.kernel "pool"
// CHECK:         (const __half* __restrict__ in0, __half* __restrict__ out0, long long kiln_dim0)
// CHECK:         const kiln_index_t kiln_units = (kiln_index_t)((kiln_dim0 * 1024LL)) / 8;
// CHECK:         // Channels-last max pool: batch*1024 / 8 units of one output pixel x 8 channels
// CHECK:         i < kiln_units;
func.func @pool(%x: tensor<?x8x8x64xf16> {kiln.name = "x", kiln.dim_names = ["batch", "", "", ""]}) -> tensor<?x4x4x64xf16>
    attributes {kiln.dim_ranges = {batch = array<i64: 1, 64, 64>}} {
  %e = kiln.empty {kiln.dim_exprs = ["batch", "4", "4", "64"]} : tensor<?x4x4x64xf16>
  %r = kiln.kernel "pool" pointwise ins(%x : tensor<?x8x8x64xf16>) outs(%e : tensor<?x4x4x64xf16>) attributes {kiln.dim_exprs = ["batch", "4", "4", "64"]} {
  ^bb0(%a: tensor<?x8x8x64xf16>, %o: tensor<?x4x4x64xf16>):
    %0 = kiln.max_pool %a {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, layout = "NHWC", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<?x8x8x64xf16> -> tensor<?x4x4x64xf16>
    kiln.yield %0 : tensor<?x4x4x64xf16>
  } -> tensor<?x4x4x64xf16>
  return %r : tensor<?x4x4x64xf16>
}

// -----

// A softmax with a run-time row count (the MLP's head at batch 1..64): the
// vector row template computes kiln_rows from the output's count, a row's
// length (10) per row.
// CHECK-LABEL: kiln.kernel "head"
// CHECK:         (const float* __restrict__ in0, float* __restrict__ out0, long long kiln_dim0)
// CHECK:         // batch*10 output elements (kiln_dim0 = batch), 10 per row.
// CHECK-NEXT:    const kiln_index_t kiln_rows = (kiln_index_t)((kiln_dim0 * 10LL)) / 10;
// CHECK:         // kiln_rows rows of 10 elements; one warp per row
// CHECK:         row < kiln_rows;
func.func @head(%x: tensor<?x10xf32> {kiln.name = "x", kiln.dim_names = ["batch", ""]}) -> tensor<?x10xf32>
    attributes {kiln.dim_ranges = {batch = array<i64: 1, 64, 64>}} {
  %e = kiln.empty {kiln.dim_exprs = ["batch", "10"]} : tensor<?x10xf32>
  %r = kiln.kernel "head" row_reduce ins(%x : tensor<?x10xf32>) outs(%e : tensor<?x10xf32>) attributes {kiln.dim_exprs = ["batch", "10"]} {
  ^bb0(%a: tensor<?x10xf32>, %o: tensor<?x10xf32>):
    %0 = kiln.softmax %a {axis = -1 : i64} : tensor<?x10xf32> -> tensor<?x10xf32>
    kiln.yield %0 : tensor<?x10xf32>
  } -> tensor<?x10xf32>
  return %r : tensor<?x10xf32>
}

// -----

// kiln.shape of a ranged value: its elements are the extents, from the dim
// parameters (every ranged dim is a parameter of a kernel with run-time
// extents); the output is static, its count a constant.
// CHECK-LABEL: kiln.kernel "shape_of"
// Its tensors, with seq and batch at their ranges' maxima, stay below 2^30
// elements: the index type is int, and the dims are narrowed to it.
// CHECK:         typedef int kiln_index_t;
// CHECK:         (const long long* __restrict__ in0, long long* __restrict__ out0, long long kiln_dim0_value, long long kiln_dim1_value)
// CHECK:         const kiln_index_t kiln_dim0 = (kiln_index_t)kiln_dim0_value;
// CHECK-NEXT:    const kiln_index_t kiln_dim1 = (kiln_index_t)kiln_dim1_value;
// CHECK:         const kiln_index_t kiln_count = (kiln_index_t)((3LL));
// CHECK:         = (i == 0 ? (long long)(kiln_dim0) : (i == 1 ? 4LL : (long long)(kiln_dim1)));
func.func @shape_of(%x: tensor<?x4x?xi64> {kiln.name = "x", kiln.dim_names = ["batch", "", "seq"]}) -> tensor<3xi64>
    attributes {kiln.dim_ranges = {batch = array<i64: 1, 8, 8>, seq = array<i64: 16, 64, 64>}} {
  %e = kiln.empty : tensor<3xi64>
  %r = kiln.kernel "shape_of" data_movement ins(%x : tensor<?x4x?xi64>) outs(%e : tensor<3xi64>) {
  ^bb0(%a: tensor<?x4x?xi64>, %o: tensor<3xi64>):
    %0 = kiln.shape %a : tensor<?x4x?xi64> -> tensor<3xi64>
    kiln.yield %0 : tensor<3xi64>
  } -> tensor<3xi64>
  return %r : tensor<3xi64>
}

// -----

// Buckets (kiln.buckets, recorded by kiln-tile-kernels): the kernel's own
// configuration at the ranges' largest count (4 vectors per thread past
// the one-vector grid's cap, 8650752 f32 elements on 132 SMs), and one more
// kernel for the counts up to that one with 1 vector per thread, whose
// header names the bucket.
// CHECK-LABEL: kiln.kernel "relu_rows"{{$}}
// CHECK:         // rows*1024 elements (kiln_dim0 = rows) in vectors of 4; 4 vectors per thread and grid-stride step, blockDim.x apart.
// CHECK:       kiln.kernel "relu_rows", bucket of counts up to 8650752{{$}}
// CHECK:         // rows*1024 elements (kiln_dim0 = rows) in vectors of 4; 1 vector per thread and grid-stride step.
func.func @buckets(%x: tensor<?x1024xf32> {kiln.name = "x", kiln.dim_names = ["rows", ""]}) -> tensor<?x1024xf32>
    attributes {kiln.dim_ranges = {rows = array<i64: 1, 16384, 16384>}} {
  %e = kiln.empty {kiln.dim_exprs = ["rows", "1024"]} : tensor<?x1024xf32>
  %r = kiln.kernel "relu_rows" pointwise ins(%x : tensor<?x1024xf32>) outs(%e : tensor<?x1024xf32>) attributes {kiln.dim_exprs = ["rows", "1024"]} {
  ^bb0(%a: tensor<?x1024xf32>, %o: tensor<?x1024xf32>):
    %0 = kiln.relu %a {kiln.dim_exprs = ["rows", "1024"]} : tensor<?x1024xf32> -> tensor<?x1024xf32>
    kiln.yield %0 : tensor<?x1024xf32>
  } -> tensor<?x1024xf32>
  return %r : tensor<?x1024xf32>
}
