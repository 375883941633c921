// The tiled transpose template: 32x32 shared tiles with one column of
// padding, tails guarded on both sides, block_size / 32 tile rows at a time,
// producers fused into the read and consumers into the write.
// RUN: kiln-translate %s --emit-cuda | FileCheck %s

// CHECK-LABEL: kiln.kernel "t2d"
// CHECK:       __launch_bounds__(256)
// CHECK:         // Transpose 45 x 4097 planes (1 of them) in 32x32 tiles; 4 tile rows per thread.
// CHECK-NEXT:    __shared__ float kiln_tile[32][33];
// CHECK-NEXT:    const int tx = threadIdx.x & 31, ty = threadIdx.x >> 5;
// CHECK-NEXT:    for (kiln_index_t tile = blockIdx.x; tile < 258; tile += gridDim.x) {
// CHECK:           for (int r = ty; r < 32; r += 8) {
// CHECK:             if (inInner < 45 && inOuter < 4097) {
// CHECK-NEXT:          const float x{{[0-9]+}} = in0[(inOuter * 45 + inInner)];
// CHECK-NEXT:          const float v{{[0-9]+}} = kiln_relu(x{{[0-9]+}});
// CHECK-NEXT:          kiln_tile[r][tx] = v{{[0-9]+}};
// CHECK:           __syncthreads();
// CHECK:             if (outInner < 4097 && outOuter < 45) {
// CHECK-NEXT:          const kiln_index_t o = (outOuter * 4097 + outInner);
// CHECK-NEXT:          const float v{{[0-9]+}} = kiln_exp(kiln_tile[tx][r]);
// CHECK-NEXT:          out0[o] = v{{[0-9]+}};
func.func @t2d(%a: tensor<4097x45xf32>) -> tensor<45x4097xf32> {
  %e = kiln.empty : tensor<45x4097xf32>
  %r = kiln.kernel "t2d" transpose ins(%a : tensor<4097x45xf32>) outs(%e : tensor<45x4097xf32>) attributes {block_size = 256 : i64, elements_per_thread = 4 : i64, grid_size = 100 : i64} {
  ^bb0(%x: tensor<4097x45xf32>, %o: tensor<45x4097xf32>):
    %y = kiln.relu %x : tensor<4097x45xf32> -> tensor<4097x45xf32>
    %t = kiln.transpose %y {perm = array<i64: 1, 0>} : tensor<4097x45xf32> -> tensor<45x4097xf32>
    %z = kiln.exp %t : tensor<45x4097xf32> -> tensor<45x4097xf32>
    kiln.yield %z : tensor<45x4097xf32>
  } -> tensor<45x4097xf32>
  return %r : tensor<45x4097xf32>
}

// 3-D (0, 2, 1) with block_size 128: 4 tile rows, 8 per thread; the batch
// dim indexes planes.
// CHECK-LABEL: kiln.kernel "t021"
// CHECK:       __launch_bounds__(128)
// CHECK:         // Transpose 70 x 100 planes (5 of them) in 32x32 tiles; 8 tile rows per thread.
// CHECK:           for (int r = ty; r < 32; r += 4) {
// CHECK:               const float x{{[0-9]+}} = in0[((plane * 100 + inOuter) * 70 + inInner)];
// CHECK:               const kiln_index_t o = ((plane * 70 + outOuter) * 100 + outInner);
func.func @t021(%a: tensor<5x100x70xf32>) -> tensor<5x70x100xf32> {
  %e = kiln.empty : tensor<5x70x100xf32>
  %r = kiln.kernel "t021" transpose ins(%a : tensor<5x100x70xf32>) outs(%e : tensor<5x70x100xf32>) attributes {block_size = 128 : i64, elements_per_thread = 8 : i64, grid_size = 64 : i64} {
  ^bb0(%x: tensor<5x100x70xf32>, %o: tensor<5x70x100xf32>):
    %t = kiln.transpose %x {perm = array<i64: 0, 2, 1>} : tensor<5x100x70xf32> -> tensor<5x70x100xf32>
    kiln.yield %t : tensor<5x70x100xf32>
  } -> tensor<5x70x100xf32>
  return %r : tensor<5x70x100xf32>
}

// When the innermost dim does not move, the loop template copies.
// CHECK-LABEL: kiln.kernel "t102"
// CHECK-NOT:     kiln_tile
// CHECK:         const kiln_index_t kiln_count = 7020;
// CHECK:         const float x{{[0-9]+}} = in0[(({{.*}}) * 130 + (i % 130))];
func.func @t102(%a: tensor<6x9x130xf32>) -> tensor<9x6x130xf32> {
  %e = kiln.empty : tensor<9x6x130xf32>
  %r = kiln.kernel "t102" transpose ins(%a : tensor<6x9x130xf32>) outs(%e : tensor<9x6x130xf32>) attributes {block_size = 256 : i64, elements_per_thread = 4 : i64, grid_size = 8 : i64} {
  ^bb0(%x: tensor<6x9x130xf32>, %o: tensor<9x6x130xf32>):
    %t = kiln.transpose %x {perm = array<i64: 1, 0, 2>} : tensor<6x9x130xf32> -> tensor<9x6x130xf32>
    kiln.yield %t : tensor<9x6x130xf32>
  } -> tensor<9x6x130xf32>
  return %r : tensor<9x6x130xf32>
}
// CHECK: // nvrtc: 3 kernels for sm_90
