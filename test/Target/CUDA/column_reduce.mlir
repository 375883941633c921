// The column reduction template (ColumnReduceEmitter.cpp): a sum, mean or
// max over the middle axes of an NHWC tensor, a block per (image, 32-byte
// row of vectors of channels), its threads along the pixels, partials by
// warp shuffles and then each warp's through shared memory; NVRTC compiles it (kiln-translate without --no-compile).
// RUN: kiln-translate %s --prepare --emit-cuda | FileCheck %s

// A squeeze-excite mean of [4, 28 x 28, 64] f16: vectors of 8 channels, 2
// per block row (32 bytes), 4 x 4 = 16 blocks (fewer than the SMs: 1024
// threads, 512 rows along the 784 pixels).
// CHECK-LABEL: extern "C" __global__ void __launch_bounds__(1024) kiln_pointwise_
// CHECK: // Column mean of [4, 784, 64] over its middle dim: a block per (outer, 2 vectors of 8 channels), 512 rows of threads along the length
// CHECK: __shared__ float kiln_partial[512];
// CHECK: const kiln_index_t tx = threadIdx.x % 2, ty = threadIdx.x / 2;
// CHECK: for (kiln_index_t kiln_block = blockIdx.x; kiln_block < 16; kiln_block += gridDim.x) {
// CHECK: const kiln_index_t outer = kiln_block / 4, cv = (kiln_block % 4) * 2 + tx;
// CHECK: for (kiln_index_t kiln_row = ty; kiln_row < 784; kiln_row += 512) {
// CHECK: const kiln_vec<__half, 8> vin0 = reinterpret_cast<const kiln_vec<__half, 8>*>(in0)[kiln_at];
// CHECK: acc[7] = acc[7] + {{.+}};
// Each warp's lanes 2 apart hold the same channels: shuffles from 16 down
// to 2, then the 32 warps' 2 vectors meet in the first warp.
// CHECK: acc[l] = acc[l] + __shfl_down_sync(0xffffffffu, acc[l], 16);
// CHECK: acc[l] = acc[l] + __shfl_down_sync(0xffffffffu, acc[l], 2);
// CHECK-NOT: __shfl_down_sync(0xffffffffu, acc[l], 1)
// CHECK: if (threadIdx.x % 32 < 2) {
// CHECK: kiln_partial[l * 64 + threadIdx.x / 32 * 2 + threadIdx.x % 2] = acc[l];
// CHECK: __syncthreads();
// CHECK: for (kiln_index_t p = threadIdx.x; p < 64; p += 32) {
// CHECK: acc[l] = acc[l] + kiln_partial[l * 64 + p];
// CHECK: acc[l] = acc[l] + __shfl_down_sync(0xffffffffu, acc[l], 16);
// CHECK: acc[l] = acc[l] + __shfl_down_sync(0xffffffffu, acc[l], 2);
// CHECK: if (ty == 0 && cv < 8) {
// CHECK: y.v[l] = __float2half_rn(acc[l] / 784.0f);
// CHECK: reinterpret_cast<kiln_vec<__half, 8>*>(out0)[outer * 8 + cv] = y;
func.func @se_mean(%x: tensor<4x28x28x64xf16>) -> tensor<4x1x1x64xf16> {
  %axes = kiln.constant dense<[1, 2]> : tensor<2xi64>
  %m = kiln.reduce_mean %x, %axes : tensor<4x28x28x64xf16>, tensor<2xi64> -> tensor<4x1x1x64xf16>
  return %m : tensor<4x1x1x64xf16>
}

// A max with an add + relu prologue (ResNet's head, as a max): both inputs
// loaded as vectors of 4 f32, the prologue lane by lane, kiln_max (NaN
// wins) in the loop and the tree.
// CHECK-LABEL: // Column max of [2, 49, 12] over its middle dim
// CHECK: acc[l] = (-__int_as_float(0x7f800000));
// CHECK: const kiln_vec<float, 4> vin0 = reinterpret_cast<const kiln_vec<float, 4>*>(in0)[kiln_at];
// CHECK: const kiln_vec<float, 4> vin1 = reinterpret_cast<const kiln_vec<float, 4>*>(in1)[kiln_at];
// CHECK: acc[0] = kiln_max(acc[0], {{.+}});
// CHECK: acc[l] = kiln_max(acc[l], __shfl_down_sync(0xffffffffu, acc[l], 16));
// Two warps: 4 slots, so the first warp's shuffles start at 2.
// CHECK: for (kiln_index_t p = threadIdx.x; p < 4; p += 32) {
// CHECK-NEXT: #pragma unroll
// CHECK-NEXT: acc[l] = kiln_max(acc[l], kiln_partial[l * 4 + p]);
// CHECK-NEXT: }
// CHECK-NEXT: #pragma unroll
// CHECK-NEXT: acc[l] = kiln_max(acc[l], __shfl_down_sync(0xffffffffu, acc[l], 2));
// CHECK-NEXT: }
func.func @head_max(%a: tensor<2x7x7x12xf32>, %b: tensor<2x7x7x12xf32>) -> tensor<2x12xf32> {
  %axes = kiln.constant dense<[1, 2]> : tensor<2xi64>
  %s = kiln.add %a, %b : tensor<2x7x7x12xf32>, tensor<2x7x7x12xf32> -> tensor<2x7x7x12xf32>
  %r = kiln.relu %s : tensor<2x7x7x12xf32> -> tensor<2x7x7x12xf32>
  %m = kiln.reduce_max %r, %axes {keepdims = false} : tensor<2x7x7x12xf32>, tensor<2xi64> -> tensor<2x12xf32>
  return %m : tensor<2x12xf32>
}

// A short length: 3 pixels, 2 rows of 2 vectors, a block of 4 threads (one
// partial warp): shuffles over its 4 lanes only, no shared memory.
// CHECK-LABEL: // Column mean of [8, 3, 16] over its middle dim: a block per (outer, 2 vectors of 4 channels), 2 rows of threads
// CHECK-NOT: __shared__
// CHECK: acc[l] = acc[l] + __shfl_down_sync(15u, acc[l], 2);
// CHECK-NOT: __syncthreads
// CHECK: y.v[l] = acc[l] / 3.0f;
func.func @short_mean(%x: tensor<8x1x3x16xf32>) -> tensor<8x1x1x16xf32> {
  %axes = kiln.constant dense<[1, 2]> : tensor<2xi64>
  %m = kiln.reduce_mean %x, %axes : tensor<8x1x3x16xf32>, tensor<2xi64> -> tensor<8x1x1x16xf32>
  return %m : tensor<8x1x1x16xf32>
}

// DenseNet's tail: the dense block's channel concat (pieces of 40, 24 and 8
// channels, whole vectors of 8) in the mean's prologue is loaded as one
// vector from the piece that holds it, one branch per piece; each lane
// reads its element of that vector, never the pieces element by element.
// CHECK-LABEL: // Column mean of [2, 49, 72] over its middle dim
// CHECK: const kiln_index_t kiln_at = (outer * 49 + kiln_row) * 9 + cv;
// CHECK-NEXT: const kiln_index_t [[PX:px[0-9]+]] = (kiln_at / 9);
// CHECK-NEXT: const kiln_index_t [[CV:cv[0-9]+]] = (kiln_at % 9);
// CHECK-NEXT: kiln_vec<__half, 8> vcat0;
// CHECK-NEXT: if ([[CV]] < 5) {
// CHECK-NEXT: vcat0 = reinterpret_cast<const kiln_vec<__half, 8>*>(in0)[([[PX]] * 5 + [[CV]])];
// CHECK: else if ([[CV]] < 8) {
// CHECK-NEXT: vcat0 = reinterpret_cast<const kiln_vec<__half, 8>*>(in1)[([[PX]] * 3 + ([[CV]] - 5))];
// CHECK: else {
// CHECK-NEXT: vcat0 = reinterpret_cast<const kiln_vec<__half, 8>*>(in2)[([[PX]] + ([[CV]] - 8))];
// CHECK-NOT: in0[
// CHECK: __half2float(vcat0.v[0])
// CHECK: __half2float(vcat0.v[7])
// CHECK-NOT: in0[
// CHECK: acc[7] = acc[7] + {{.+}};
func.func @concat_norm_relu_mean(%a: tensor<2x7x7x40xf16>, %b: tensor<2x7x7x24xf16>, %c: tensor<2x7x7x8xf16>, %scale: tensor<72xf32>, %shift: tensor<72xf32>) -> tensor<2x1x1x72xf16> {
  %t = kiln.concat %a, %b, %c {axis = 3 : i64} : tensor<2x7x7x40xf16>, tensor<2x7x7x24xf16>, tensor<2x7x7x8xf16> -> tensor<2x7x7x72xf16>
  %w = kiln.cast %t {to = f32} : tensor<2x7x7x72xf16> -> tensor<2x7x7x72xf32>
  %m = kiln.mul %w, %scale : tensor<2x7x7x72xf32>, tensor<72xf32> -> tensor<2x7x7x72xf32>
  %s = kiln.add %m, %shift : tensor<2x7x7x72xf32>, tensor<72xf32> -> tensor<2x7x7x72xf32>
  %h = kiln.cast %s {to = f16} : tensor<2x7x7x72xf32> -> tensor<2x7x7x72xf16>
  %r = kiln.relu %h : tensor<2x7x7x72xf16> -> tensor<2x7x7x72xf16>
  %axes = kiln.constant dense<[1, 2]> : tensor<2xi64>
  %y = kiln.reduce_mean %r, %axes : tensor<2x7x7x72xf16>, tensor<2xi64> -> tensor<2x1x1x72xf16>
  return %y : tensor<2x1x1x72xf16>
}

// f32 pieces before an f16 mean: the width (8) follows the f16 data, and 8
// f32 would be a 32-byte vector, which kernel pointers (16-byte aligned) do
// not allow; the pieces are read element by element.
// CHECK-LABEL: // Column mean of [2, 49, 64] over its middle dim
// CHECK-NOT: vcat
// CHECK: acc[7] = acc[7] + {{.+}};
func.func @concat_f32_mean_f16(%a: tensor<2x7x7x40xf32>, %b: tensor<2x7x7x24xf32>) -> tensor<2x1x1x64xf16> {
  %t = kiln.concat %a, %b {axis = 3 : i64} : tensor<2x7x7x40xf32>, tensor<2x7x7x24xf32> -> tensor<2x7x7x64xf32>
  %h = kiln.cast %t {to = f16} : tensor<2x7x7x64xf32> -> tensor<2x7x7x64xf16>
  %axes = kiln.constant dense<[1, 2]> : tensor<2xi64>
  %y = kiln.reduce_mean %h, %axes : tensor<2x7x7x64xf16>, tensor<2xi64> -> tensor<2x1x1x64xf16>
  return %y : tensor<2x1x1x64xf16>
}
