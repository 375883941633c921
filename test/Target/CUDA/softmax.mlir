// Softmax and log_softmax over the last axis as row_reduce kernels (NVRTC
// compiles every kernel): each row is read once, in 16-byte vectors where its
// length allows, into registers with the fused prologue applied; the max and
// the sum of exponentials (exp2f of (x - max) * log2(e), fp32) are reduced
// across the warp or block; the results are written in vectors.
// RUN: kiln-opt %s --split-input-file --kiln-fuse-kernels --kiln-tile-kernels | kiln-translate --emit-cuda | FileCheck %s

// The benchmark: 4096 rows of 4096 f16, a block of 128 threads per row, four
// vectors of 8 per thread; partial results through shared memory; the
// exponentials replace the held values.
// CHECK-LABEL: // 4096 rows of 4096 elements; one block per row; 4 vectors of 8 per thread, held in registers.
// CHECK-NEXT:    __shared__ float kiln_partials[32];
// CHECK-NEXT:    for (kiln_index_t row = blockIdx.x; row < 4096; row += gridDim.x) {
// CHECK-NEXT:      float xs[32];
// CHECK-NEXT:      float rowMax = (-__int_as_float(0x7f800000));
// CHECK-NEXT:      #pragma unroll
// CHECK-NEXT:      for (int k = 0; k < 4; ++k) {
// CHECK-NEXT:        const kiln_index_t [[V:vcol[0-9]+]] = threadIdx.x + k * 128;
// CHECK-NOT:         if ([[V]]
// CHECK:             const kiln_vec<__half, 8> [[X:vin[0-9]+]] = reinterpret_cast<const kiln_vec<__half, 8>*>(in0)[row * 512 + [[V]]];
// CHECK-NEXT:        const float [[X0:x[0-9]+]] = __half2float([[X]].v[0]);
// CHECK-NEXT:        xs[k * 8 + 0] = [[X0]];
// CHECK-NEXT:        rowMax = kiln_max(rowMax, [[X0]]);
// CHECK:           rowMax = kiln_block_allreduce(rowMax, kiln_max_op(), kiln_partials);
// CHECK:             xs[k * 8 + 7] = exp2f((xs[k * 8 + 7] - rowMax) * 1.44269502f);
// CHECK-NEXT:        sum += xs[k * 8 + 7];
// CHECK:           sum = kiln_block_allreduce(sum, kiln_sum_op(), kiln_partials);
// CHECK-NEXT:      const float inv = 1.0f / sum;
// CHECK:             const float [[Y:y[0-9]+]] = xs[k * 8 + 0] * inv;
// CHECK:             [[OUT:vout[0-9]+]].v[0] = __float2half_rn([[Y]]);
// CHECK:             reinterpret_cast<kiln_vec<__half, 8>*>(out0)[row * 512 + vcol{{[0-9]+}}] = [[OUT]];
// CHECK-NOT:       in0[
func.func @softmax_4096x4096(%x: tensor<4096x4096xf16>) -> tensor<4096x4096xf16> {
  %0 = kiln.softmax %x {axis = -1 : i64} : tensor<4096x4096xf16> -> tensor<4096x4096xf16>
  return %0 : tensor<4096x4096xf16>
}

// -----

// Attention scores: the scale and a padding mask [2, 1, 1, 128] fuse in
// front; rows of 128 f16 get 16 vectors of 8, one per lane of half a warp
// (a warp takes 2 rows at once); the mask, broadcast over heads and query
// rows, is a vector at the row's batch.
// CHECK-LABEL: // 1024 rows of 128 elements; 16 lanes of a warp per row, 8 rows per block; 1 vector of 8 per thread, held in registers.
// CHECK:         const int lane = threadIdx.x & 15;
// CHECK-NEXT:    for (kiln_index_t row = (kiln_index_t)blockIdx.x * 8 + (threadIdx.x >> 4); row < 1024; row += (kiln_index_t)gridDim.x * 8) {
// CHECK:           const long long [[B:r[0-9]+]] = (row / 512);
// CHECK:             const kiln_vec<__half, 8> [[X:vin[0-9]+]] = reinterpret_cast<const kiln_vec<__half, 8>*>(in0)[row * 16 + [[V:vcol[0-9]+]]];
// CHECK-NEXT:        const float [[X0:x[0-9]+]] = __half2float([[X]].v[0]);
// CHECK-NEXT:        const float [[S:v[0-9]+]] = ([[X0]] * 0.125f);
// CHECK-NEXT:        const kiln_vec<__half, 8> [[M:vin[0-9]+]] = reinterpret_cast<const kiln_vec<__half, 8>*>(in1)[[[B]] * 16 + [[V]]];
// CHECK-NEXT:        const float [[M0:x[0-9]+]] = __half2float([[M]].v[0]);
// CHECK-NEXT:        const float [[P:v[0-9]+]] = ([[S]] + [[M0]]);
// CHECK-NEXT:        xs[k * 8 + 0] = [[P]];
// CHECK:           rowMax = kiln_warp_allreduce<16>(rowMax, kiln_max_op());
// CHECK:           sum = kiln_warp_allreduce<16>(sum, kiln_sum_op());
// CHECK:             reinterpret_cast<kiln_vec<__half, 8>*>(out0)[row * 16 + vcol{{[0-9]+}}] = vout{{[0-9]+}};
func.func @scaled_masked(%x: tensor<2x4x128x128xf16>, %m: tensor<2x1x1x128xf16>) -> tensor<2x4x128x128xf16> {
  %k = kiln.constant dense<0.125> : tensor<f16>
  %0 = kiln.mul %x, %k : tensor<2x4x128x128xf16>, tensor<f16> -> tensor<2x4x128x128xf16>
  %1 = kiln.add %0, %m : tensor<2x4x128x128xf16>, tensor<2x1x1x128xf16> -> tensor<2x4x128x128xf16>
  %2 = kiln.softmax %1 {axis = -1 : i64} : tensor<2x4x128x128xf16> -> tensor<2x4x128x128xf16>
  return %2 : tensor<2x4x128x128xf16>
}

// -----

// Rows of 1000 bf16 plus a bias: 125 vectors of 8 over 32 lanes (a tail
// guard); the bias is a vector at the lane's column.
// CHECK-LABEL: // 64 rows of 1000 elements; one warp per row, 4 rows per block; 4 vectors of 8 per thread, held in registers.
// CHECK:             const kiln_index_t [[V:vcol[0-9]+]] = lane + k * 32;
// CHECK-NEXT:        if ([[V]] < 125) {
// CHECK:               reinterpret_cast<const kiln_vec<__nv_bfloat16, 8>*>(in0)[row * 125 + [[V]]];
// CHECK:               reinterpret_cast<const kiln_vec<__nv_bfloat16, 8>*>(in1)[[[V]]];
// CHECK:             reinterpret_cast<kiln_vec<__nv_bfloat16, 8>*>(out0)[row * 125 + vcol{{[0-9]+}}] = vout{{[0-9]+}};
func.func @bias_1000(%x: tensor<64x1000xbf16>, %b: tensor<1000xbf16>) -> tensor<64x1000xbf16> {
  %0 = kiln.add %x, %b : tensor<64x1000xbf16>, tensor<1000xbf16> -> tensor<64x1000xbf16>
  %1 = kiln.softmax %0 {axis = 1 : i64} : tensor<64x1000xbf16> -> tensor<64x1000xbf16>
  return %1 : tensor<64x1000xbf16>
}

// -----

// Rows of 77: no vectors (77 is odd); scalar loads and stores, still one
// read of the row into registers.
// CHECK-LABEL: // 6 rows of 77 elements; one warp per row, 4 rows per block; 3 elements per thread, held in registers.
// CHECK-NOT:       kiln_vec
// CHECK:             const float [[X:x[0-9]+]] = in0[at{{[0-9]+}}];
// CHECK-NEXT:        xs[k * 1 + 0] = [[X]];
// CHECK:             out0[at{{[0-9]+}}] = y{{[0-9]+}};
// CHECK-NOT:       in0[
func.func @odd_77(%x: tensor<6x77xf32>) -> tensor<6x77xf32> {
  %0 = kiln.softmax %x : tensor<6x77xf32> -> tensor<6x77xf32>
  return %0 : tensor<6x77xf32>
}

// -----

// Rows too long for registers (100 values per thread): each pass reads the
// row again in vectors; the write pass recomputes the exponentials.
// CHECK-LABEL: // 2 rows of 100000 elements; one block per row; 25 vectors of 4 per thread, recomputed per pass.
// CHECK-NOT:       xs[
// CHECK:             reinterpret_cast<const kiln_vec<float, 4>*>(in0)[row * 25000 + vcol{{[0-9]+}}];
// CHECK:           rowMax = kiln_block_allreduce(rowMax, kiln_max_op(), kiln_partials);
// CHECK:             reinterpret_cast<const kiln_vec<float, 4>*>(in0)[row * 25000 + vcol{{[0-9]+}}];
// CHECK:           sum = kiln_block_allreduce(sum, kiln_sum_op(), kiln_partials);
// CHECK:             reinterpret_cast<const kiln_vec<float, 4>*>(in0)[row * 25000 + vcol{{[0-9]+}}];
// CHECK:             const float y{{[0-9]+}} = exp2f((x{{[0-9]+}} - rowMax) * 1.44269502f) * inv;
func.func @long_rows(%x: tensor<2x100000xf32>) -> tensor<2x100000xf32> {
  %0 = kiln.softmax %x : tensor<2x100000xf32> -> tensor<2x100000xf32>
  return %0 : tensor<2x100000xf32>
}

// -----

// Rows whose outer dims a fused transpose permutes are still contiguous: the
// input is read in vectors at the permuted row.
// CHECK-LABEL: // 32 rows of 256 elements; one warp per row, 4 rows per block; 1 vector of 8 per thread, held in registers.
// CHECK:           const long long [[R0:r[0-9]+]] = (row / 4);
// CHECK-NEXT:      const long long [[R1:r[0-9]+]] = (row % 4);
// CHECK:             reinterpret_cast<const kiln_vec<__half, 8>*>(in0)[([[R1]] * 8 + [[R0]]) * 32 + vcol{{[0-9]+}}];
func.func @permuted_rows(%x: tensor<4x8x256xf16>) -> tensor<8x4x256xf16> {
  %0 = kiln.transpose %x {perm = array<i64: 1, 0, 2>} : tensor<4x8x256xf16> -> tensor<8x4x256xf16>
  %1 = kiln.softmax %0 : tensor<8x4x256xf16> -> tensor<8x4x256xf16>
  return %1 : tensor<8x4x256xf16>
}

// -----

// A slice with an offset along the row is read per element (its elements
// are not 16-byte aligned); the output is still written in vectors.
// CHECK-LABEL: // 16 rows of 256 elements; one warp per row, 4 rows per block; 2 vectors of 4 per thread, held in registers.
// CHECK-NOT:       reinterpret_cast<const
// CHECK:             const float x{{[0-9]+}} = in0[(row * 264 + (c{{[0-9]+}} + 4))];
// CHECK:             reinterpret_cast<kiln_vec<float, 4>*>(out0)[row * 64 + vcol{{[0-9]+}}] = vout{{[0-9]+}};
func.func @sliced_rows(%x: tensor<16x264xf32>) -> tensor<16x256xf32> {
  %s = kiln.constant dense<[4]> : tensor<1xi64>
  %e = kiln.constant dense<[260]> : tensor<1xi64>
  %a = kiln.constant dense<[1]> : tensor<1xi64>
  %st = kiln.constant dense<[1]> : tensor<1xi64>
  %0 = kiln.slice %x, %s, %e, %a, %st : tensor<16x264xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<16x256xf32>
  %1 = kiln.softmax %0 : tensor<16x256xf32> -> tensor<16x256xf32>
  return %1 : tensor<16x256xf32>
}

// -----

// DeBERTa's disentangled attention: scores plus a relative-position score
// gathered along the row by an int64 index [128, 128] broadcast over batch
// and heads. The f16 rows take vectors of 8; the index, read along the row
// at the row's own query position, is 64 bytes a vector and so is read in
// four 16-byte pieces (kernel pointers are 16-byte aligned, no more), each
// once; the gathered scores are read per element.
// CHECK-LABEL: // 1024 rows of 128 elements; 16 lanes of a warp per row, 8 rows per block; 1 vector of 8 per thread, held in registers.
// CHECK:           const long long [[Q:r[0-9]+]] = (row % 128);
// CHECK:             const kiln_vec<long long, 2> [[I0:vin[0-9]+]] = reinterpret_cast<const kiln_vec<long long, 2>*>(in{{[0-9]}})[([[Q]] * 16 + [[V:vcol[0-9]+]]) * 4 + 0];
// CHECK-NEXT:        const long long {{x[0-9]+}} = (long long)[[I0]].v[0];
// CHECK-NOT:         kiln_vec<long long, 8>
// CHECK:             (long long)[[I0]].v[1];
// CHECK-NOT:         reinterpret_cast<const kiln_vec<long long, 2>*>(in{{[0-9]}})[([[Q]] * 16 + [[V]]) * 4 + 0]
// CHECK:             reinterpret_cast<const kiln_vec<long long, 2>*>(in{{[0-9]}})[([[Q]] * 16 + [[V]]) * 4 + 1];
// CHECK:             reinterpret_cast<const kiln_vec<long long, 2>*>(in{{[0-9]}})[([[Q]] * 16 + [[V]]) * 4 + 3];
// CHECK-NOT:         in{{[0-9]}}[([[Q]] * 128
// CHECK:             reinterpret_cast<kiln_vec<__half, 8>*>(out0)[row * 16 + vcol{{[0-9]+}}] = vout{{[0-9]+}};
func.func @relative_position_gather(%x: tensor<2x4x128x128xf16>, %c: tensor<2x4x128x64xf16>, %i: tensor<1x1x128x128xi64>) -> tensor<2x4x128x128xf16> {
  %full = kiln.constant dense<[2, 4, 128, 128]> : tensor<4xi64>
  %ie = kiln.expand %i, %full : tensor<1x1x128x128xi64>, tensor<4xi64> -> tensor<2x4x128x128xi64>
  %g = kiln.gather_elements %c, %ie {axis = 3 : i64} : tensor<2x4x128x64xf16>, tensor<2x4x128x128xi64> -> tensor<2x4x128x128xf16>
  %0 = kiln.add %x, %g : tensor<2x4x128x128xf16>, tensor<2x4x128x128xf16> -> tensor<2x4x128x128xf16>
  %1 = kiln.softmax %0 : tensor<2x4x128x128xf16> -> tensor<2x4x128x128xf16>
  return %1 : tensor<2x4x128x128xf16>
}

// -----

// A vector_width of 8 set by hand on f32 rows: 32-byte vectors, read and
// written in two 16-byte pieces each.
// CHECK-LABEL: // 16 rows of 256 elements; one warp per row, 4 rows per block; 1 vector of 8 per thread, held in registers.
// CHECK:             reinterpret_cast<const kiln_vec<float, 4>*>(in0)[(row * 32 + [[V:vcol[0-9]+]]) * 2 + 0];
// CHECK:             reinterpret_cast<const kiln_vec<float, 4>*>(in0)[(row * 32 + [[V]]) * 2 + 1];
// CHECK-NOT:         kiln_vec<float, 8>
// CHECK:             reinterpret_cast<kiln_vec<float, 4>*>(out0)[(row * 32 + [[W:vcol[0-9]+]]) * 2 + 0] = vout{{[0-9]+}};
// CHECK-NEXT:        kiln_vec<float, 4> [[O:vout[0-9]+]];
// CHECK:             reinterpret_cast<kiln_vec<float, 4>*>(out0)[(row * 32 + [[W]]) * 2 + 1] = [[O]];
func.func @pinned_width_f32(%a: tensor<16x256xf32>) -> tensor<16x256xf32> {
  %e = kiln.empty : tensor<16x256xf32>
  %r = kiln.kernel "softmax" row_reduce ins(%a : tensor<16x256xf32>) outs(%e : tensor<16x256xf32>) attributes {block_size = 128 : i64, grid_size = 4 : i64, rows_per_block = 4 : i64, vector_width = 8 : i64} {
  ^bb0(%x: tensor<16x256xf32>, %o: tensor<16x256xf32>):
    %s = kiln.softmax %x : tensor<16x256xf32> -> tensor<16x256xf32>
    kiln.yield %s : tensor<16x256xf32>
  } -> tensor<16x256xf32>
  return %r : tensor<16x256xf32>
}

// CHECK: // nvrtc: 9 kernels for sm_90
