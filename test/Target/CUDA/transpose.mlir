// The transpose templates: 32x32 shared tiles with one column of padding,
// tails guarded on both sides, block_size / 32 tile rows at a time, producers
// fused into the read and consumers into the write; the short_rows variant
// (output rows of at most 16 elements, the input's innermost dim
// second-innermost in the output) goes a row per thread through shared
// memory instead.
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

// A transpose that keeps the innermost dim is data movement (the transpose
// kind needs one that moves it): the loop template copies.
// CHECK-LABEL: kiln.kernel "t102"
// CHECK-NOT:     kiln_tile
// CHECK:         const kiln_index_t kiln_count = 7020;
// CHECK:         const float x{{[0-9]+}} = in0[(({{.*}}) * 130 + (i % 130))];
func.func @t102(%a: tensor<6x9x130xf32>) -> tensor<9x6x130xf32> {
  %e = kiln.empty : tensor<9x6x130xf32>
  %r = kiln.kernel "t102" data_movement ins(%a : tensor<6x9x130xf32>) outs(%e : tensor<9x6x130xf32>) attributes {block_size = 256 : i64, elements_per_thread = 4 : i64, grid_size = 8 : i64} {
  ^bb0(%x: tensor<6x9x130xf32>, %o: tensor<9x6x130xf32>):
    %t = kiln.transpose %x {perm = array<i64: 1, 0, 2>} : tensor<6x9x130xf32> -> tensor<9x6x130xf32>
    kiln.yield %t : tensor<9x6x130xf32>
  } -> tensor<9x6x130xf32>
  return %r : tensor<9x6x130xf32>
}

// NCHW -> NHWC with 3 channels and a cast (the ResNet stem's input): short
// output rows, so a thread takes one pixel's 3 channels, reading each along
// the input's innermost dim (W), parks them in shared memory (stride 3,
// already odd) and the block writes its 256 x 3 contiguous outputs.
// CHECK-LABEL: kiln.kernel "nchw_to_nhwc"
// CHECK:       __launch_bounds__(256)
// CHECK:         // Transpose into 520 output rows of 3: 256 rows per block, a row per thread read along the input's innermost dim, parked in shared memory at an odd stride (3), then written contiguously.
// CHECK-NEXT:    __shared__ float kiln_rows[768];
// CHECK-NEXT:    for (kiln_index_t rowBlock = blockIdx.x; rowBlock < 3; rowBlock += gridDim.x) {
// CHECK:           const kiln_index_t row = rowBlock * 256 + threadIdx.x;
// CHECK-NEXT:      if (row < 520) {
// CHECK-NEXT:        const float x[[X0:[0-9]+]] = in0[((((row / 130) * 3) * 10 + ((row / 13) % 10)) * 13 + (row % 13))];
// CHECK-NEXT:        const float v[[V0:[0-9]+]] = kiln_round_f16(x[[X0]]);
// CHECK-NEXT:        kiln_rows[threadIdx.x * 3 + 0] = v[[V0]];
// CHECK:             const float x{{[0-9]+}} = in0[((((row / 130) * 3 + 2) * 10 + ((row / 13) % 10)) * 13 + (row % 13))];
// CHECK:             kiln_rows[threadIdx.x * 3 + 2] = v{{[0-9]+}};
// CHECK:           __syncthreads();
// CHECK:           for (int e = threadIdx.x; e < 768; e += 256) {
// CHECK-NEXT:        const kiln_index_t o = rowBlock * 768 + e;
// CHECK-NEXT:        if (o < 1560) {
// CHECK-NEXT:          out0[o] = __float2half_rn(kiln_rows[e]);
func.func @nchw_to_nhwc(%a: tensor<4x3x10x13xf32>) -> tensor<4x10x13x3xf16> {
  %e = kiln.empty : tensor<4x10x13x3xf16>
  %r = kiln.kernel "nchw_to_nhwc" transpose ins(%a : tensor<4x3x10x13xf32>) outs(%e : tensor<4x10x13x3xf16>) attributes {block_size = 256 : i64, elements_per_thread = 4 : i64, grid_size = 100 : i64, variant = #kiln.variant<short_rows>} {
  ^bb0(%x: tensor<4x3x10x13xf32>, %o: tensor<4x10x13x3xf16>):
    %c = kiln.cast %x {to = f16} : tensor<4x3x10x13xf32> -> tensor<4x3x10x13xf16>
    %t = kiln.transpose %c {perm = array<i64: 0, 2, 3, 1>} : tensor<4x3x10x13xf16> -> tensor<4x10x13x3xf16>
    kiln.yield %t : tensor<4x10x13x3xf16>
  } -> tensor<4x10x13x3xf16>
  return %r : tensor<4x10x13x3xf16>
}

// An even row (4) is parked at stride 5, so that a warp's parking stores hit
// distinct banks; the consumer is computed on the write.
// CHECK-LABEL: kiln.kernel "rows_of_4"
// CHECK:         __shared__ float kiln_rows[640];
// CHECK:             kiln_rows[threadIdx.x * 5 + 3] = x{{[0-9]+}};
// CHECK:           for (int e = threadIdx.x; e < 512; e += 128) {
// CHECK:             const float v{{[0-9]+}} = kiln_relu(kiln_rows[(e / 4) * 5 + e % 4]);
func.func @rows_of_4(%a: tensor<4x300xf32>) -> tensor<300x4xf32> {
  %e = kiln.empty : tensor<300x4xf32>
  %r = kiln.kernel "rows_of_4" transpose ins(%a : tensor<4x300xf32>) outs(%e : tensor<300x4xf32>) attributes {block_size = 128 : i64, elements_per_thread = 8 : i64, grid_size = 10 : i64, variant = #kiln.variant<short_rows>} {
  ^bb0(%x: tensor<4x300xf32>, %o: tensor<300x4xf32>):
    %t = kiln.transpose %x {perm = array<i64: 1, 0>} : tensor<4x300xf32> -> tensor<300x4xf32>
    %z = kiln.relu %t : tensor<300x4xf32> -> tensor<300x4xf32>
    kiln.yield %z : tensor<300x4xf32>
  } -> tensor<300x4xf32>
  return %r : tensor<300x4xf32>
}

// A kernel without a recorded variant runs the general template, the tiles
// (kiln-tile-kernels chooses them for this short output row, whose
// neighbours are not neighbours in the input: test/Transforms/tile_kernels.mlir).
// CHECK-LABEL: kiln.kernel "short_rows_strided"
// CHECK:         // Transpose 40 x 3 planes (5 of them) in 32x32 tiles; 4 tile rows per thread.
func.func @short_rows_strided(%a: tensor<5x3x40xf32>) -> tensor<40x5x3xf32> {
  %e = kiln.empty : tensor<40x5x3xf32>
  %r = kiln.kernel "short_rows_strided" transpose ins(%a : tensor<5x3x40xf32>) outs(%e : tensor<40x5x3xf32>) attributes {block_size = 256 : i64, elements_per_thread = 4 : i64, grid_size = 10 : i64} {
  ^bb0(%x: tensor<5x3x40xf32>, %o: tensor<40x5x3xf32>):
    %t = kiln.transpose %x {perm = array<i64: 2, 0, 1>} : tensor<5x3x40xf32> -> tensor<40x5x3xf32>
    kiln.yield %t : tensor<40x5x3xf32>
  } -> tensor<40x5x3xf32>
  return %r : tensor<40x5x3xf32>
}

// CHECK: // nvrtc: 6 kernels for sm_90
