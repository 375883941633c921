// The row-reduce template: `reduction` picks warp shuffles or a block
// reduction through shared memory; the prologue is computed per input
// element and the epilogue on the result. Softmax holds its row in registers
// (without `vector_width`, one element at a time; softmax.mlir has the
// vectors): a max pass, exponentials summed in place, a write pass.
// RUN: kiln-translate %s --emit-cuda | FileCheck %s

// CHECK-LABEL: kiln.kernel "softmax_warp"
// CHECK:       __launch_bounds__(128)
// CHECK:         // 64 rows of 128 elements; one warp per row, 4 rows per block; 4 elements per thread, held in registers.
// CHECK-NEXT:    const int lane = threadIdx.x & 31;
// CHECK-NEXT:    for (kiln_index_t row = (kiln_index_t)blockIdx.x * 4 + (threadIdx.x >> 5); row < 64; row += (kiln_index_t)gridDim.x * 4) {
// CHECK-NEXT:      float xs[4];
// CHECK-NEXT:      float rowMax = (-__int_as_float(0x7f800000));
// CHECK:           for (int k = 0; k < 4; ++k) {
// CHECK:             const float [[X:x[0-9]+]] = in0[at{{[0-9]+}}];
// CHECK-NEXT:        xs[k * 1 + 0] = [[X]];
// CHECK-NEXT:        rowMax = kiln_max(rowMax, [[X]]);
// CHECK:           rowMax = kiln_warp_allreduce(rowMax, kiln_max_op());
// CHECK:             xs[k * 1 + 0] = exp2f((xs[k * 1 + 0] - rowMax) * 1.44269502f);
// CHECK-NEXT:        sum += xs[k * 1 + 0];
// CHECK:           sum = kiln_warp_allreduce(sum, kiln_sum_op());
// CHECK-NEXT:      const float inv = 1.0f / sum;
// CHECK:             const float [[Y:y[0-9]+]] = xs[k * 1 + 0] * inv;
// CHECK-NEXT:        out0[at{{[0-9]+}}] = [[Y]];
// CHECK-NOT:     __shared__
func.func @softmax_warp(%a: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %e = kiln.empty : tensor<64x128xf32>
  %r = kiln.kernel "softmax_warp" row_reduce ins(%a : tensor<64x128xf32>) outs(%e : tensor<64x128xf32>) attributes {block_size = 128 : i64, grid_size = 16 : i64, rows_per_block = 4 : i64, variant = #kiln.variant<warp_rows>} {
  ^bb0(%x: tensor<64x128xf32>, %o: tensor<64x128xf32>):
    %s = kiln.softmax %x : tensor<64x128xf32> -> tensor<64x128xf32>
    kiln.yield %s : tensor<64x128xf32>
  } -> tensor<64x128xf32>
  return %r : tensor<64x128xf32>
}

// The same softmax with variant = block_rows: one block per row, partial
// results through shared memory. Rows of 50257 have a tail.
// CHECK-LABEL: kiln.kernel "softmax_block"
// CHECK:       __launch_bounds__(1024)
// CHECK:         // 2 rows of 50257 elements; one block per row; 50 elements per thread, held in registers.
// CHECK-NEXT:    __shared__ float kiln_partials[32];
// CHECK-NEXT:    for (kiln_index_t row = blockIdx.x; row < 2; row += gridDim.x) {
// CHECK-NEXT:      float xs[50];
// CHECK:             const kiln_index_t [[V:vcol[0-9]+]] = threadIdx.x + k * 1024;
// CHECK-NEXT:        if ([[V]] < 50257) {
// CHECK:           rowMax = kiln_block_allreduce(rowMax, kiln_max_op(), kiln_partials);
// CHECK:           sum = kiln_block_allreduce(sum, kiln_sum_op(), kiln_partials);
func.func @softmax_block(%a: tensor<2x50257xf32>) -> tensor<2x50257xf32> {
  %e = kiln.empty : tensor<2x50257xf32>
  %r = kiln.kernel "softmax_block" row_reduce ins(%a : tensor<2x50257xf32>) outs(%e : tensor<2x50257xf32>) attributes {block_size = 1024 : i64, grid_size = 2 : i64, rows_per_block = 1 : i64, variant = #kiln.variant<block_rows>} {
  ^bb0(%x: tensor<2x50257xf32>, %o: tensor<2x50257xf32>):
    %s = kiln.softmax %x : tensor<2x50257xf32> -> tensor<2x50257xf32>
    kiln.yield %s : tensor<2x50257xf32>
  } -> tensor<2x50257xf32>
  return %r : tensor<2x50257xf32>
}

// Mean of squares (prologue) then 1/sqrt(m + eps) (epilogue), f16 storage
// with float accumulation; lane 0 writes the row's result.
// CHECK-LABEL: kiln.kernel "rms"
// CHECK:         float acc = 0.0f;
// CHECK:           const float x{{[0-9]+}} = __half2float(in0[at{{[0-9]+}}]);
// CHECK-NEXT:      const float v{{[0-9]+}} = (x{{[0-9]+}} * x{{[0-9]+}});
// CHECK-NEXT:      acc += v{{[0-9]+}};
// CHECK:         acc = kiln_warp_allreduce(acc, kiln_sum_op());
// CHECK-NEXT:    const float mean = acc / 4097.0f;
// CHECK-NEXT:    if (lane == 0) {
// CHECK-NEXT:      const float v{{[0-9]+}} = kiln_round_f16(mean);
// CHECK-NEXT:      const float v{{[0-9]+}} = (v{{[0-9]+}} + 9.99999975e-06f);
// CHECK-NEXT:      const float v{{[0-9]+}} = kiln_sqrt(
// CHECK-NEXT:      const float v{{[0-9]+}} = kiln_reciprocal(
// CHECK-NEXT:      const float v{{[0-9]+}} = kiln_round_f16(
// CHECK-NEXT:      out0[row] = __float2half_rn(
func.func @rms(%a: tensor<16x4097xf16>) -> tensor<16x1xf16> {
  %e = kiln.empty : tensor<16x1xf16>
  %r = kiln.kernel "rms" row_reduce ins(%a : tensor<16x4097xf16>) outs(%e : tensor<16x1xf16>) attributes {block_size = 256 : i64, grid_size = 2 : i64, rows_per_block = 8 : i64, variant = #kiln.variant<warp_rows>} {
  ^bb0(%x: tensor<16x4097xf16>, %o: tensor<16x1xf16>):
    %axes = kiln.constant dense<[1]> : tensor<1xi64>
    %eps = kiln.constant dense<1.0e-5> : tensor<f32>
    %sq = kiln.mul %x, %x : tensor<16x4097xf16>, tensor<16x4097xf16> -> tensor<16x4097xf16>
    %m = kiln.reduce_mean %sq, %axes {keepdims = true} : tensor<16x4097xf16>, tensor<1xi64> -> tensor<16x1xf16>
    %m32 = kiln.cast %m {to = f32} : tensor<16x1xf16> -> tensor<16x1xf32>
    %p = kiln.add %m32, %eps : tensor<16x1xf32>, tensor<f32> -> tensor<16x1xf32>
    %s = kiln.sqrt %p : tensor<16x1xf32> -> tensor<16x1xf32>
    %q = kiln.reciprocal %s : tensor<16x1xf32> -> tensor<16x1xf32>
    %h = kiln.cast %q {to = f16} : tensor<16x1xf32> -> tensor<16x1xf16>
    kiln.yield %h : tensor<16x1xf16>
  } -> tensor<16x1xf16>
  return %r : tensor<16x1xf16>
}

// reduce_max over two trailing axes of an i32 tensor, block strategy.
// CHECK-LABEL: kiln.kernel "imax"
// CHECK:         __shared__ long long kiln_partials[32];
// CHECK:         long long acc = (-2147483648LL);
// CHECK:           acc = kiln_imax(acc, x{{[0-9]+}}, false);
// CHECK:         acc = kiln_block_allreduce(acc, kiln_imax_op<false>(), kiln_partials);
// CHECK:         if (threadIdx.x == 0) {
// CHECK-NEXT:      out0[row] = (int)
func.func @imax(%a: tensor<8x30x70xi32>) -> tensor<8xi32> {
  %e = kiln.empty : tensor<8xi32>
  %r = kiln.kernel "imax" row_reduce ins(%a : tensor<8x30x70xi32>) outs(%e : tensor<8xi32>) attributes {block_size = 256 : i64, grid_size = 8 : i64, variant = #kiln.variant<block_rows>} {
  ^bb0(%x: tensor<8x30x70xi32>, %o: tensor<8xi32>):
    %axes = kiln.constant dense<[1, -1]> : tensor<2xi64>
    %m = kiln.reduce_max %x, %axes {keepdims = false} : tensor<8x30x70xi32>, tensor<2xi64> -> tensor<8xi32>
    kiln.yield %m : tensor<8xi32>
  } -> tensor<8xi32>
  return %r : tensor<8xi32>
}
// CHECK: // nvrtc: 4 kernels for sm_90
