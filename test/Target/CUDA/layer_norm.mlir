// LayerNorm as a row_reduce anchor (NVRTC compiles every kernel): the residual
// and bias adds are read once per row in 16-byte vectors and held in
// registers, mean and variance are two fp32 passes over them, and the affine
// map and epilogue write vectors. log_softmax uses the softmax row template
// (softmax.mlir), which shares this one's row loop.
// RUN: kiln-opt %s --split-input-file --kiln-fuse-kernels --kiln-tile-kernels | kiln-translate --emit-cuda | FileCheck %s

// BERT-base: rows of 768 f16, one warp each, 3 vectors of 8 per lane.
// CHECK-LABEL: kiln.kernel "add_add_layer_norm_0"
// CHECK:       __launch_bounds__(128)
// CHECK:         // 1024 rows of 768 elements; one warp per row, 4 rows per block; 3 vectors of 8 per thread, held in registers.
// CHECK:           float xs[24];
// CHECK:           #pragma unroll
// CHECK-NEXT:      for (int k = 0; k < 3; ++k) {
// CHECK:             const kiln_vec<__half, 8> [[X:vin[0-9]+]] = reinterpret_cast<const kiln_vec<__half, 8>*>(in0)[row * 96 + [[V:vcol[0-9]+]]];
// CHECK:             const kiln_vec<__half, 8> [[B:vin[0-9]+]] = reinterpret_cast<const kiln_vec<__half, 8>*>(in1)[[[V]]];
// CHECK:             const kiln_vec<__half, 8> [[R:vin[0-9]+]] = reinterpret_cast<const kiln_vec<__half, 8>*>(in2)[row * 96 + [[V]]];
// CHECK:             xs[k * 8 + 0] = v{{[0-9]+}};
// CHECK-NEXT:        sum += v{{[0-9]+}};
// CHECK:           const float mean = kiln_warp_allreduce(sum, kiln_sum_op()) / 768.0f;
// CHECK:             const float d{{[0-9]+}} = xs[k * 8 + 0] - mean;
// CHECK:           const float inv = 1.0f / kiln_sqrt(kiln_warp_allreduce(squares, kiln_sum_op()) / 768.0f + 9.99999975e-06f);
// CHECK:             const float y{{[0-9]+}} = (xs[k * 8 + 0] - mean) * inv * x{{[0-9]+}} + x{{[0-9]+}};
// CHECK:             reinterpret_cast<kiln_vec<__half, 8>*>(out0)[row * 96 + vcol{{[0-9]+}}] = vout{{[0-9]+}};
// CHECK-NOT:     kiln_partials
func.func @add_add_layer_norm(%x: tensor<8x128x768xf16>, %b: tensor<768xf16>, %r: tensor<8x128x768xf16>, %g: tensor<768xf16>, %beta: tensor<768xf16>) -> tensor<8x128x768xf16> {
  %0 = kiln.add %x, %b : tensor<8x128x768xf16>, tensor<768xf16> -> tensor<8x128x768xf16>
  %1 = kiln.add %0, %r : tensor<8x128x768xf16>, tensor<8x128x768xf16> -> tensor<8x128x768xf16>
  %2 = kiln.layer_norm %1, %g, %beta {axis = -1 : i64, epsilon = 1.0e-05 : f32} : tensor<8x128x768xf16>, tensor<768xf16>, tensor<768xf16> -> tensor<8x128x768xf16>
  return %2 : tensor<8x128x768xf16>
}

// -----

// The issue's microbenchmark: 16384 rows of 4096 f16, a block of 512 threads
// per row, one vector of 8 each; partial sums through shared memory.
// CHECK-LABEL: kiln.kernel "add_layer_norm_0"
// CHECK:       __launch_bounds__(512)
// CHECK:         // 16384 rows of 4096 elements; one block per row; 1 vector of 8 per thread, held in registers.
// CHECK-NEXT:    __shared__ float kiln_partials[32];
// CHECK-NEXT:    for (kiln_index_t row = blockIdx.x; row < 16384; row += gridDim.x) {
// CHECK:           const kiln_index_t vcol{{[0-9]+}} = threadIdx.x + k * 512;
// CHECK-NOT:       if (vcol
// CHECK:           const float mean = kiln_block_allreduce(sum, kiln_sum_op(), kiln_partials) / 4096.0f;
func.func @add_layer_norm_16384x4096(%x: tensor<16384x4096xf16>, %r: tensor<16384x4096xf16>, %g: tensor<4096xf16>, %beta: tensor<4096xf16>) -> tensor<16384x4096xf16> {
  %0 = kiln.add %x, %r : tensor<16384x4096xf16>, tensor<16384x4096xf16> -> tensor<16384x4096xf16>
  %1 = kiln.layer_norm %0, %g, %beta {axis = -1 : i64, epsilon = 1.0e-05 : f32} : tensor<16384x4096xf16>, tensor<4096xf16>, tensor<4096xf16> -> tensor<16384x4096xf16>
  return %1 : tensor<16384x4096xf16>
}

// -----

// Rows of 77 bf16: no vectors, a tail guard, scalar loads and stores; a
// cast epilogue writes f32.
// CHECK-LABEL: kiln.kernel "layer_norm_cast_0"
// CHECK:         // 6 rows of 77 elements; one warp per row, 4 rows per block; 3 elements per thread, held in registers.
// CHECK:           if (vcol{{[0-9]+}} < 77) {
// CHECK:             const float x{{[0-9]+}} = __bfloat162float(in0[at{{[0-9]+}}]);
// CHECK:             const float [[C:v[0-9]+]] = kiln_round_bf16(y{{[0-9]+}});
// CHECK-NEXT:        out0[at{{[0-9]+}}] = [[C]];
func.func @layer_norm_77(%x: tensor<6x77xbf16>, %g: tensor<77xbf16>) -> tensor<6x77xf32> {
  %0 = kiln.layer_norm %x, %g : tensor<6x77xbf16>, tensor<77xbf16> -> tensor<6x77xbf16>
  %1 = kiln.cast %0 {to = f32} : tensor<6x77xbf16> -> tensor<6x77xf32>
  return %1 : tensor<6x77xf32>
}

// -----

// Rows too long for registers: the prologue is recomputed in each pass.
// CHECK-LABEL: kiln.kernel "add_layer_norm_0"
// CHECK:         // 2 rows of 70000 elements; one block per row; 18 vectors of 4 per thread, recomputed per pass.
// CHECK-NOT:       xs[
// CHECK:           const float mean =
// CHECK:             reinterpret_cast<const kiln_vec<float, 4>*>(in0)
// CHECK:           const float inv =
// CHECK:             reinterpret_cast<const kiln_vec<float, 4>*>(in0)
func.func @add_layer_norm_recomputed(%x: tensor<2x70000xf32>, %r: tensor<2x70000xf32>, %g: tensor<70000xf32>) -> tensor<2x70000xf32> {
  %0 = kiln.add %x, %r : tensor<2x70000xf32>, tensor<2x70000xf32> -> tensor<2x70000xf32>
  %1 = kiln.layer_norm %0, %g : tensor<2x70000xf32>, tensor<70000xf32> -> tensor<2x70000xf32>
  return %1 : tensor<2x70000xf32>
}

// -----

// A hand-tiled pointwise kernel still gets the elemental form: two serial
// passes per element (what the template replaces).
// CHECK-LABEL: kiln.kernel "layer_norm_elemental"
// CHECK:         mean{{[0-9]+}} /= 64.0f;
// CHECK:         var{{[0-9]+}} /= 64.0f;
func.func @layer_norm_elemental(%a: tensor<4x64xf32>, %s: tensor<64xf32>) -> tensor<4x64xf32> {
  %e = kiln.empty : tensor<4x64xf32>
  %r = kiln.kernel "layer_norm_elemental" pointwise ins(%a, %s : tensor<4x64xf32>, tensor<64xf32>) outs(%e : tensor<4x64xf32>) attributes {block_size = 256 : i64, grid_size = 1 : i64} {
  ^bb0(%x: tensor<4x64xf32>, %g: tensor<64xf32>, %o: tensor<4x64xf32>):
    %n = kiln.layer_norm %x, %g : tensor<4x64xf32>, tensor<64xf32> -> tensor<4x64xf32>
    kiln.yield %n : tensor<4x64xf32>
  } -> tensor<4x64xf32>
  return %r : tensor<4x64xf32>
}

// -----

// log_softmax over the last axis: the row held in registers (vectors of 4),
// max and sum of exponentials over them, x - max - log(sum) written.
// CHECK-LABEL: kiln.kernel "log_softmax_0"
// CHECK:         // 64 rows of 1000 elements; one warp per row, 4 rows per block; 8 vectors of 4 per thread, held in registers.
// CHECK:           rowMax = kiln_warp_allreduce(rowMax, kiln_max_op());
// CHECK:             sum += exp2f((xs[k * 4 + 0] - rowMax) * 1.44269502f);
// CHECK:           sum = kiln_warp_allreduce(sum, kiln_sum_op());
// CHECK-NEXT:      const float logSum = kiln_log(sum);
// CHECK:             const float y{{[0-9]+}} = xs[k * 4 + 0] - rowMax - logSum;
// CHECK:             reinterpret_cast<kiln_vec<float, 4>*>(out0)[row * 250 + vcol{{[0-9]+}}] = vout{{[0-9]+}};
func.func @log_softmax(%x: tensor<64x1000xf32>) -> tensor<64x1000xf32> {
  %0 = kiln.log_softmax %x {axis = -1 : i64} : tensor<64x1000xf32> -> tensor<64x1000xf32>
  return %0 : tensor<64x1000xf32>
}
