// kiln.attention becomes an attention kernel of its own; the query-row
// kernel (variant query_rows: one block per query row, online softmax over
// key chunks) serves f32 and head sizes the flash kernel does not tile
// (flash_attention.mlir). kiln.gelu
// fuses into pointwise kernels like other unary ops. NVRTC compiles every
// kernel.
// RUN: kiln-opt %s --split-input-file --kiln-fuse-kernels --kiln-tile-kernels | FileCheck %s --check-prefix=TILED
// RUN: kiln-opt %s --kiln-fuse-kernels --kiln-tile-kernels | kiln-translate --emit-cuda | FileCheck %s

// TILED-LABEL: func.func @attention_mask
// TILED:         kiln.kernel "attention_0" attention ins({{.*}}) outs({{.*}}) attributes {block_size = 128 : i64, grid_size = 256 : i64, key_chunk = 300 : i64, variant = #kiln.variant<query_rows>}
// TILED-NEXT:    ^bb0
// TILED-NEXT:      kiln.attention

// CHECK-LABEL: void __launch_bounds__(128) kiln_attention_
// CHECK:         __shared__ float kiln_q[40];
// CHECK:         __shared__ float kiln_p[300];
// CHECK:         for (kiln_index_t row = blockIdx.x; row < 256; row += gridDim.x) {
// CHECK:           const kiln_index_t b = row / 64, i = row % 64;
// CHECK:             const float [[Q:x[0-9]+]] = __half2float(in0[
// CHECK-NEXT:        kiln_q[t] = [[Q]];
// CHECK:           for (kiln_index_t c0 = 0; c0 < 300; c0 += 300) {
// CHECK:               dot += kiln_q[t] * [[K:x[0-9]+]];
// CHECK:             float score = dot * 0.125f;
// The [2, 1, 1, 300] padding mask is read at (batch, key).
// CHECK:             = __half2float(in3[((b / 2) * 300 + key)]);
// CHECK:             const float mNew = kiln_max(m, kiln_block_allreduce(localMax, kiln_max_op(), kiln_partials));
// CHECK:             l = l * alpha + kiln_block_allreduce(localSum, kiln_sum_op(), kiln_partials);
// CHECK:               sum += kiln_p[j] * [[V:x[0-9]+]];
// CHECK:             acc[a] = acc[a] * alpha + sum;
// CHECK:           if (e < 40) out0[row * 40 + e] = __float2half_rn(acc[a] / l);
// Head size 40 (not a multiple of 16): the row kernel, in f16.
func.func @attention_mask(%q: tensor<2x2x64x40xf16>, %k: tensor<2x2x300x40xf16>, %v: tensor<2x2x300x40xf16>, %m: tensor<2x1x1x300xf16>) -> tensor<2x2x64x40xf16> {
  %0 = kiln.attention %q, %k, %v, %m {scale = 0.125 : f32} : tensor<2x2x64x40xf16>, tensor<2x2x300x40xf16>, tensor<2x2x300x40xf16>, tensor<2x1x1x300xf16> -> tensor<2x2x64x40xf16>
  return %0 : tensor<2x2x64x40xf16>
}

// -----

// More keys than one chunk of 4096.
// TILED-LABEL: func.func @attention_long
// TILED:         kiln.kernel "attention_0" attention
// CHECK-LABEL: void __launch_bounds__(128) kiln_attention_
// CHECK:         __shared__ float kiln_p[4096];
// CHECK:         for (kiln_index_t c0 = 0; c0 < 5000; c0 += 4096) {
// CHECK:           const int n = 5000 - c0 < 4096 ? (int)(5000 - c0) : 4096;
func.func @attention_long(%q: tensor<4x64xf32>, %k: tensor<5000x64xf32>, %v: tensor<5000x64xf32>) -> tensor<4x64xf32> {
  %0 = kiln.attention %q, %k, %v : tensor<4x64xf32>, tensor<5000x64xf32>, tensor<5000x64xf32> -> tensor<4x64xf32>
  return %0 : tensor<4x64xf32>
}

// -----

// The bias add fuses with the GELU into one pointwise kernel.
// TILED-LABEL: func.func @bias_gelu
// TILED:         kiln.kernel "add_gelu_0" pointwise
// TILED-NOT:     kiln.kernel
// CHECK-LABEL: void __launch_bounds__(256) kiln_pointwise_
// CHECK:         const float [[S:v[0-9]+]] = (x{{[0-9]+}} + x{{[0-9]+}});
// CHECK-NEXT:    = kiln_gelu_tanh([[S]]);
func.func @bias_gelu(%x: tensor<4x64xf32>, %b: tensor<64xf32>) -> tensor<4x64xf32> {
  %0 = kiln.add %x, %b : tensor<4x64xf32>, tensor<64xf32> -> tensor<4x64xf32>
  %1 = kiln.gelu %0 {approximate = "tanh"} : tensor<4x64xf32> -> tensor<4x64xf32>
  return %1 : tensor<4x64xf32>
}
