// RUN: kiln-opt %s --split-input-file --kiln-fuse-kernels --kiln-tile-kernels | FileCheck %s

// Same-shape f32 operands: 16-byte vectors of 4; one vector per thread
// while that grid fits its cap of 64 blocks per SM (132 SMs x 64 x 256
// threads x 4 = 8650752 elements: a million take 1024 blocks), 4 past it
// (16.8 M: 4096 blocks).
// CHECK-LABEL: func.func @vectorised_f32
// CHECK: kiln.kernel "add_0" pointwise {{.*}} attributes {block_size = 256 : i64, elements_per_thread = 1 : i64, grid_size = 1024 : i64, variant = #kiln.variant<loop>, vector_width = 4 : i64}
// CHECK: kiln.kernel "add_1" pointwise {{.*}} attributes {block_size = 256 : i64, elements_per_thread = 4 : i64, grid_size = 4096 : i64, variant = #kiln.variant<loop>, vector_width = 4 : i64}
func.func @vectorised_f32(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>, %c: tensor<4096x4096xf32>, %d: tensor<4096x4096xf32>) -> (tensor<1024x1024xf32>, tensor<4096x4096xf32>) {
  %0 = kiln.add %a, %b : tensor<1024x1024xf32>, tensor<1024x1024xf32> -> tensor<1024x1024xf32>
  %1 = kiln.add %c, %d : tensor<4096x4096xf32>, tensor<4096x4096xf32> -> tensor<4096x4096xf32>
  return %0, %1 : tensor<1024x1024xf32>, tensor<4096x4096xf32>
}

// -----

// f16: vectors of 8. Only the element count matters: 2x4097 f32 elements
// are 2048 vectors of 4 and a tail of 2 (the grid covers the vectors), a cast
// from f32 to f16 takes the narrower vector of both (4), and an output of 3
// elements gets vectors of 2.
// CHECK-LABEL: func.func @vector_width_by_dtype_and_tail
// CHECK: kiln.kernel "exp_0" pointwise {{.*}} vector_width = 8 : i64
// CHECK: kiln.kernel "exp_1" pointwise {{.*}} grid_size = 9 : i64, variant = #kiln.variant<loop>, vector_width = 4 : i64
// CHECK: kiln.kernel "cast_2" pointwise {{.*}} vector_width = 4 : i64
// CHECK: kiln.kernel "neg_3" pointwise {{.*}} vector_width = 2 : i64
func.func @vector_width_by_dtype_and_tail(%a: tensor<4x64xf16>, %b: tensor<2x4097xf32>, %c: tensor<64xf32>, %d: tensor<3xf16>) -> (tensor<4x64xf16>, tensor<2x4097xf32>, tensor<64xf16>, tensor<3xf16>) {
  %0 = kiln.exp %a : tensor<4x64xf16> -> tensor<4x64xf16>
  %1 = kiln.exp %b : tensor<2x4097xf32> -> tensor<2x4097xf32>
  %2 = kiln.cast %c {to = f16} : tensor<64xf32> -> tensor<64xf16>
  %3 = kiln.neg %d : tensor<3xf16> -> tensor<3xf16>
  return %0, %1, %2, %3 : tensor<4x64xf16>, tensor<2x4097xf32>, tensor<64xf16>, tensor<3xf16>
}

// -----

// A row broadcast (a bias) keeps vectors that divide the row; a scalar keeps
// them; so does a column broadcast (a statistic per row, [4, 1]: one element
// per vector, since 4 divides the rows of 64).
// CHECK-LABEL: func.func @broadcast_vectors
// CHECK: kiln.kernel "add_0" pointwise {{.*}} vector_width = 4 : i64
// CHECK: kiln.kernel "mul_1" pointwise {{.*}} vector_width = 4 : i64
// CHECK: kiln.kernel "add_2" pointwise {{.*}} vector_width = 2 : i64
// CHECK: kiln.kernel "add_3" pointwise {{.*}} vector_width = 4 : i64
func.func @broadcast_vectors(%a: tensor<4x64xf32>, %b: tensor<64xf32>, %s: tensor<f32>, %c: tensor<4x6xf32>, %r: tensor<6xf32>, %col: tensor<4x1xf32>) -> (tensor<4x64xf32>, tensor<4x64xf32>, tensor<4x6xf32>, tensor<4x64xf32>) {
  %0 = kiln.add %a, %b : tensor<4x64xf32>, tensor<64xf32> -> tensor<4x64xf32>
  %1 = kiln.mul %a, %s : tensor<4x64xf32>, tensor<f32> -> tensor<4x64xf32>
  %2 = kiln.add %c, %r : tensor<4x6xf32>, tensor<6xf32> -> tensor<4x6xf32>
  %3 = kiln.add %a, %col : tensor<4x64xf32>, tensor<4x1xf32> -> tensor<4x64xf32>
  return %0, %1, %2, %3 : tensor<4x64xf32>, tensor<4x64xf32>, tensor<4x6xf32>, tensor<4x64xf32>
}

// -----

// Rows of <= 1024 elements: a warp per row, 4 rows per block; longer rows: a
// block per row, for softmax with about 32 values per thread (128 to 1024
// threads). Softmax rows are read in 16-byte vectors when their length
// allows; a row of fewer vectors than a warp has lanes takes part of a warp
// (rows of 64 f16: 8 vectors of 8, 8 lanes, 16 rows a block of 4 warps).
// CHECK-LABEL: func.func @row_strategies
// CHECK: kiln.kernel "softmax_0" row_reduce {{.*}} attributes {block_size = 128 : i64, grid_size = 25 : i64, rows_per_block = 4 : i64, variant = #kiln.variant<warp_rows>, vector_width = 4 : i64}
// CHECK: kiln.kernel "softmax_1" row_reduce {{.*}} attributes {block_size = 256 : i64, grid_size = 3 : i64, rows_per_block = 1 : i64, variant = #kiln.variant<block_rows>, vector_width = 1 : i64}
// CHECK: kiln.kernel "softmax_2" row_reduce {{.*}} attributes {block_size = 1024 : i64, grid_size = 2 : i64, rows_per_block = 1 : i64, variant = #kiln.variant<block_rows>, vector_width = 1 : i64}
// CHECK: kiln.kernel "softmax_3" row_reduce {{.*}} attributes {block_size = 128 : i64, grid_size = 4096 : i64, rows_per_block = 1 : i64, variant = #kiln.variant<block_rows>, vector_width = 8 : i64}
// CHECK: kiln.kernel "log_softmax_4" row_reduce {{.*}} attributes {block_size = 128 : i64, grid_size = 1 : i64, rows_per_block = 16 : i64, variant = #kiln.variant<warp_rows>, vector_width = 8 : i64}
func.func @row_strategies(%a: tensor<100x128xf32>, %b: tensor<3x4097xf32>, %c: tensor<2x50257xf32>, %d: tensor<4096x4096xf16>, %e: tensor<16x64xf16>) -> (tensor<100x128xf32>, tensor<3x4097xf32>, tensor<2x50257xf32>, tensor<4096x4096xf16>, tensor<16x64xf16>) {
  %0 = kiln.softmax %a : tensor<100x128xf32> -> tensor<100x128xf32>
  %1 = kiln.softmax %b : tensor<3x4097xf32> -> tensor<3x4097xf32>
  %2 = kiln.softmax %c : tensor<2x50257xf32> -> tensor<2x50257xf32>
  %3 = kiln.softmax %d : tensor<4096x4096xf16> -> tensor<4096x4096xf16>
  %4 = kiln.log_softmax %e : tensor<16x64xf16> -> tensor<16x64xf16>
  return %0, %1, %2, %3, %4 : tensor<100x128xf32>, tensor<3x4097xf32>, tensor<2x50257xf32>, tensor<4096x4096xf16>, tensor<16x64xf16>
}

// -----

// A reduction over two trailing dims reduces rows of 12*64 = 768 elements.
// CHECK-LABEL: func.func @two_trailing_axes
// CHECK: kiln.kernel "reduce_sum_0" row_reduce {{.*}} grid_size = 2 : i64, rows_per_block = 4 : i64, variant = #kiln.variant<warp_rows>
func.func @two_trailing_axes(%a: tensor<8x12x64xf32>) -> tensor<8xf32> {
  %axes = kiln.constant dense<[1, 2]> : tensor<2xi64>
  %0 = kiln.reduce_sum %a, %axes {keepdims = false} : tensor<8x12x64xf32>, tensor<2xi64> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Transposes: one 32x32 tile per block, batched over the other dims.
// CHECK-LABEL: func.func @transpose_tiles
// CHECK: kiln.kernel "transpose_0" transpose {{.*}} attributes {block_size = 256 : i64, elements_per_thread = 4 : i64, grid_size = 18 : i64, variant = #kiln.variant<tiles>}
func.func @transpose_tiles(%a: tensor<3x33x65xf32>) -> tensor<3x65x33xf32> {
  %0 = kiln.transpose %a {perm = array<i64: 0, 2, 1>} : tensor<3x33x65xf32> -> tensor<3x65x33xf32>
  return %0 : tensor<3x65x33xf32>
}

// -----

// Attributes already present are kept (tests pin geometry this way).
// CHECK-LABEL: func.func @pinned
// CHECK: block_size = 64 : i64, {{.*}}grid_size = 1 : i64, variant = #kiln.variant<loop>, vector_width = 1 : i64
func.func @pinned(%a: tensor<64xf32>) -> tensor<64xf32> {
  %e = kiln.empty : tensor<64xf32>
  %r = kiln.kernel "k" pointwise ins(%a : tensor<64xf32>) outs(%e : tensor<64xf32>) attributes {block_size = 64 : i64, vector_width = 1 : i64} {
  ^bb0(%x: tensor<64xf32>, %o: tensor<64xf32>):
    %0 = kiln.exp %x : tensor<64xf32> -> tensor<64xf32>
    kiln.yield %0 : tensor<64xf32>
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}

// -----

// LayerNorm rows read in 16-byte vectors where the row length allows: f16
// rows of 768 (8 per vector, a warp per row), f32 rows of 4096 (4, a block
// per row), f16 rows of 1000 (8) and f16 rows of 77 (none); axis -2 makes
// rows of 12*64.
// CHECK-LABEL: func.func @layer_norm_vectors
// CHECK: kiln.kernel "layer_norm_0" row_reduce {{.*}} attributes {block_size = 128 : i64, grid_size = 256 : i64, rows_per_block = 4 : i64, variant = #kiln.variant<warp_rows>, vector_width = 8 : i64}
// CHECK: kiln.kernel "layer_norm_1" row_reduce {{.*}} attributes {block_size = 512 : i64, grid_size = 16 : i64, rows_per_block = 1 : i64, variant = #kiln.variant<block_rows>, vector_width = 4 : i64}
// CHECK: kiln.kernel "layer_norm_2" row_reduce {{.*}} rows_per_block = 4 : i64, variant = #kiln.variant<warp_rows>, vector_width = 8 : i64}
// CHECK: kiln.kernel "layer_norm_3" row_reduce {{.*}} rows_per_block = 4 : i64, variant = #kiln.variant<warp_rows>, vector_width = 1 : i64}
// CHECK: kiln.kernel "layer_norm_4" row_reduce {{.*}} grid_size = 2 : i64, rows_per_block = 4 : i64, variant = #kiln.variant<warp_rows>, vector_width = 4 : i64}
func.func @layer_norm_vectors(%a: tensor<1024x768xf16>, %ga: tensor<768xf16>, %b: tensor<16x4096xf32>, %gb: tensor<4096xf32>, %c: tensor<3x1000xf16>, %gc: tensor<1000xf16>, %d: tensor<5x77xf16>, %gd: tensor<77xf16>, %e: tensor<8x12x64xf32>, %ge: tensor<12x64xf32>) -> (tensor<1024x768xf16>, tensor<16x4096xf32>, tensor<3x1000xf16>, tensor<5x77xf16>, tensor<8x12x64xf32>) {
  %0 = kiln.layer_norm %a, %ga : tensor<1024x768xf16>, tensor<768xf16> -> tensor<1024x768xf16>
  %1 = kiln.layer_norm %b, %gb : tensor<16x4096xf32>, tensor<4096xf32> -> tensor<16x4096xf32>
  %2 = kiln.layer_norm %c, %gc : tensor<3x1000xf16>, tensor<1000xf16> -> tensor<3x1000xf16>
  %3 = kiln.layer_norm %d, %gd : tensor<5x77xf16>, tensor<77xf16> -> tensor<5x77xf16>
  %4 = kiln.layer_norm %e, %ge {axis = -2 : i64} : tensor<8x12x64xf32>, tensor<12x64xf32> -> tensor<8x12x64xf32>
  return %0, %1, %2, %3, %4 : tensor<1024x768xf16>, tensor<16x4096xf32>, tensor<3x1000xf16>, tensor<5x77xf16>, tensor<8x12x64xf32>
}

// -----

// Loads that would hold more than 128 registers per thread: the loop
// template issues every vector load of a step before computing, so 9 f32
// inputs of 16.8 M elements (past the one-vector grid's cap) get 2 vectors
// per thread (9 x 4 x 2 = 72 registers) instead of 4 (144), and 40 inputs
// get vectors of 2 (80) instead of 4 (160).
// CHECK-LABEL: func.func @many_inputs_narrower_steps
// CHECK: kiln.kernel "add_add_add_etc_0" pointwise {{.*}} elements_per_thread = 2 : i64, {{.*}} vector_width = 4 : i64
func.func @many_inputs_narrower_steps(%a0: tensor<4096x4096xf32>, %a1: tensor<4096x4096xf32>, %a2: tensor<4096x4096xf32>, %a3: tensor<4096x4096xf32>, %a4: tensor<4096x4096xf32>, %a5: tensor<4096x4096xf32>, %a6: tensor<4096x4096xf32>, %a7: tensor<4096x4096xf32>, %a8: tensor<4096x4096xf32>) -> tensor<4096x4096xf32> {
  %1 = kiln.add %a0, %a1 : tensor<4096x4096xf32>, tensor<4096x4096xf32> -> tensor<4096x4096xf32>
  %2 = kiln.add %1, %a2 : tensor<4096x4096xf32>, tensor<4096x4096xf32> -> tensor<4096x4096xf32>
  %3 = kiln.add %2, %a3 : tensor<4096x4096xf32>, tensor<4096x4096xf32> -> tensor<4096x4096xf32>
  %4 = kiln.add %3, %a4 : tensor<4096x4096xf32>, tensor<4096x4096xf32> -> tensor<4096x4096xf32>
  %5 = kiln.add %4, %a5 : tensor<4096x4096xf32>, tensor<4096x4096xf32> -> tensor<4096x4096xf32>
  %6 = kiln.add %5, %a6 : tensor<4096x4096xf32>, tensor<4096x4096xf32> -> tensor<4096x4096xf32>
  %7 = kiln.add %6, %a7 : tensor<4096x4096xf32>, tensor<4096x4096xf32> -> tensor<4096x4096xf32>
  %8 = kiln.add %7, %a8 : tensor<4096x4096xf32>, tensor<4096x4096xf32> -> tensor<4096x4096xf32>
  return %8 : tensor<4096x4096xf32>
}

// -----

// CHECK-LABEL: func.func @many_inputs_narrower_vectors
// CHECK: kiln.kernel "add_add_add_etc_0" pointwise {{.*}} elements_per_thread = 1 : i64, {{.*}} vector_width = 2 : i64
func.func @many_inputs_narrower_vectors(%a0: tensor<64xf32>, %a1: tensor<64xf32>, %a2: tensor<64xf32>, %a3: tensor<64xf32>, %a4: tensor<64xf32>, %a5: tensor<64xf32>, %a6: tensor<64xf32>, %a7: tensor<64xf32>, %a8: tensor<64xf32>, %a9: tensor<64xf32>, %a10: tensor<64xf32>, %a11: tensor<64xf32>, %a12: tensor<64xf32>, %a13: tensor<64xf32>, %a14: tensor<64xf32>, %a15: tensor<64xf32>, %a16: tensor<64xf32>, %a17: tensor<64xf32>, %a18: tensor<64xf32>, %a19: tensor<64xf32>, %a20: tensor<64xf32>, %a21: tensor<64xf32>, %a22: tensor<64xf32>, %a23: tensor<64xf32>, %a24: tensor<64xf32>, %a25: tensor<64xf32>, %a26: tensor<64xf32>, %a27: tensor<64xf32>, %a28: tensor<64xf32>, %a29: tensor<64xf32>, %a30: tensor<64xf32>, %a31: tensor<64xf32>, %a32: tensor<64xf32>, %a33: tensor<64xf32>, %a34: tensor<64xf32>, %a35: tensor<64xf32>, %a36: tensor<64xf32>, %a37: tensor<64xf32>, %a38: tensor<64xf32>, %a39: tensor<64xf32>) -> tensor<64xf32> {
  %1 = kiln.add %a0, %a1 : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  %2 = kiln.add %1, %a2 : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  %3 = kiln.add %2, %a3 : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  %4 = kiln.add %3, %a4 : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  %5 = kiln.add %4, %a5 : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  %6 = kiln.add %5, %a6 : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  %7 = kiln.add %6, %a7 : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  %8 = kiln.add %7, %a8 : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  %9 = kiln.add %8, %a9 : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  %10 = kiln.add %9, %a10 : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  %11 = kiln.add %10, %a11 : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  %12 = kiln.add %11, %a12 : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  %13 = kiln.add %12, %a13 : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  %14 = kiln.add %13, %a14 : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  %15 = kiln.add %14, %a15 : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  %16 = kiln.add %15, %a16 : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  %17 = kiln.add %16, %a17 : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  %18 = kiln.add %17, %a18 : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  %19 = kiln.add %18, %a19 : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  %20 = kiln.add %19, %a20 : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  %21 = kiln.add %20, %a21 : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  %22 = kiln.add %21, %a22 : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  %23 = kiln.add %22, %a23 : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  %24 = kiln.add %23, %a24 : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  %25 = kiln.add %24, %a25 : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  %26 = kiln.add %25, %a26 : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  %27 = kiln.add %26, %a27 : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  %28 = kiln.add %27, %a28 : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  %29 = kiln.add %28, %a29 : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  %30 = kiln.add %29, %a30 : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  %31 = kiln.add %30, %a31 : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  %32 = kiln.add %31, %a32 : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  %33 = kiln.add %32, %a33 : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  %34 = kiln.add %33, %a34 : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  %35 = kiln.add %34, %a35 : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  %36 = kiln.add %35, %a36 : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  %37 = kiln.add %36, %a37 : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  %38 = kiln.add %37, %a38 : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  %39 = kiln.add %38, %a39 : tensor<64xf32>, tensor<64xf32> -> tensor<64xf32>
  return %39 : tensor<64xf32>
}

// -----

// Template variants, chosen at tiling from checked preconditions
// (KernelConfiguration.h) and recorded as `variant`. A transpose whose
// output rows are short (<= 16 elements) and whose input's innermost dim
// becomes the output's second-innermost (NCHW -> NHWC, C = 3): short rows,
// one output row per thread, a block per 256 rows (520 rows: 3 blocks).
// CHECK-LABEL: func.func @transpose_short_rows
// CHECK: kiln.kernel "transpose_0" transpose {{.*}} attributes {block_size = 256 : i64, grid_size = 3 : i64, variant = #kiln.variant<short_rows>}
func.func @transpose_short_rows(%a: tensor<4x3x10x13xf32>) -> tensor<4x10x13x3xf32> {
  %0 = kiln.transpose %a {perm = array<i64: 0, 2, 3, 1>} : tensor<4x3x10x13xf32> -> tensor<4x10x13x3xf32>
  return %0 : tensor<4x10x13x3xf32>
}

// -----

// Short rows whose neighbours are not neighbours in the input (the input's
// innermost dim goes outermost) would read with a stride: the fallback,
// 32x32 tiles.
// CHECK-LABEL: func.func @transpose_short_rows_strided
// CHECK: kiln.kernel "transpose_0" transpose {{.*}} variant = #kiln.variant<tiles>
func.func @transpose_short_rows_strided(%a: tensor<5x3x40xf32>) -> tensor<40x5x3xf32> {
  %0 = kiln.transpose %a {perm = array<i64: 2, 0, 1>} : tensor<5x3x40xf32> -> tensor<40x5x3xf32>
  return %0 : tensor<40x5x3xf32>
}

// -----

// Rows of 16 f64 staged at stride 17 by 256 threads need 34816 bytes of
// shared memory, more than the short-row template's 32 KiB: tiles.
// CHECK-LABEL: func.func @transpose_short_rows_too_large
// CHECK: kiln.kernel "transpose_0" transpose {{.*}} variant = #kiln.variant<tiles>
func.func @transpose_short_rows_too_large(%a: tensor<16x40xf64>) -> tensor<40x16xf64> {
  %0 = kiln.transpose %a {perm = array<i64: 1, 0>} : tensor<16x40xf64> -> tensor<40x16xf64>
  return %0 : tensor<40x16xf64>
}

// -----

// Attention: f16 with head sizes multiples of 16 (d) and 8 (dv), q/k/v
// kernel inputs: the flash kernel, one key group of 128 threads for 5 key
// tiles; f32, or f16 with d = 40: the query-row kernel.
// CHECK-LABEL: func.func @attention_flash
// CHECK: kiln.kernel "attention_0" attention {{.*}} attributes {block_size = 128 : i64, grid_size = 308 : i64, variant = #kiln.variant<flash>}
func.func @attention_flash(%q: tensor<2x2x77x64xf16>, %k: tensor<2x2x300x64xf16>, %v: tensor<2x2x300x40xf16>) -> tensor<2x2x77x40xf16> {
  %0 = kiln.attention %q, %k, %v {scale = 0.125 : f32} : tensor<2x2x77x64xf16>, tensor<2x2x300x64xf16>, tensor<2x2x300x40xf16> -> tensor<2x2x77x40xf16>
  return %0 : tensor<2x2x77x40xf16>
}

// -----

// Two key groups (256 threads) where a query tile visits 8 key tiles or
// more and the two-group blocks of all query tiles fit on the
// multiprocessors at once (3 groups each): GPT-2 bs1 s1024's 12 x 16 query
// tiles of up to 16 key tiles.
// CHECK-LABEL: func.func @attention_flash_key_groups
// CHECK: kiln.kernel "attention_0" attention {{.*}} attributes {block_size = 256 : i64, grid_size = 8448 : i64, variant = #kiln.variant<flash>}
func.func @attention_flash_key_groups(%q: tensor<1x12x1024x64xf16>, %k: tensor<1x12x1024x64xf16>, %v: tensor<1x12x1024x64xf16>) -> tensor<1x12x1024x64xf16> {
  %0 = kiln.attention %q, %k, %v {scale = 0.125 : f32} : tensor<1x12x1024x64xf16>, tensor<1x12x1024x64xf16>, tensor<1x12x1024x64xf16> -> tensor<1x12x1024x64xf16>
  return %0 : tensor<1x12x1024x64xf16>
}

// -----

// One group: 8 x 12 x 4 query tiles of 8 key tiles would take 768 groups,
// more than 3 x 132 at once (ViT-like: the two-group blocks ran in waves).
// CHECK-LABEL: func.func @attention_flash_many_query_tiles
// CHECK: kiln.kernel "attention_0" attention {{.*}} attributes {block_size = 128 : i64
func.func @attention_flash_many_query_tiles(%q: tensor<8x12x256x64xf16>, %k: tensor<8x12x512x64xf16>, %v: tensor<8x12x512x64xf16>) -> tensor<8x12x256x64xf16> {
  %0 = kiln.attention %q, %k, %v {scale = 0.125 : f32} : tensor<8x12x256x64xf16>, tensor<8x12x512x64xf16>, tensor<8x12x512x64xf16> -> tensor<8x12x256x64xf16>
  return %0 : tensor<8x12x256x64xf16>
}

// -----

// One group: head size 128's two K and V tiles (2 x 34816 bytes) do not fit
// 48 KiB.
// CHECK-LABEL: func.func @attention_flash_head_128
// CHECK: kiln.kernel "attention_0" attention {{.*}} attributes {block_size = 128 : i64
func.func @attention_flash_head_128(%q: tensor<1x2x1024x128xf16>, %k: tensor<1x2x1024x128xf16>, %v: tensor<1x2x1024x128xf16>) -> tensor<1x2x1024x128xf16> {
  %0 = kiln.attention %q, %k, %v {scale = 0.125 : f32} : tensor<1x2x1024x128xf16>, tensor<1x2x1024x128xf16>, tensor<1x2x1024x128xf16> -> tensor<1x2x1024x128xf16>
  return %0 : tensor<1x2x1024x128xf16>
}

// -----

// CHECK-LABEL: func.func @attention_query_rows_f32
// CHECK: kiln.kernel "attention_0" attention {{.*}} variant = #kiln.variant<query_rows>
func.func @attention_query_rows_f32(%q: tensor<2x77x64xf32>, %k: tensor<2x300x64xf32>, %v: tensor<2x300x64xf32>) -> tensor<2x77x64xf32> {
  %0 = kiln.attention %q, %k, %v {scale = 0.125 : f32} : tensor<2x77x64xf32>, tensor<2x300x64xf32>, tensor<2x300x64xf32> -> tensor<2x77x64xf32>
  return %0 : tensor<2x77x64xf32>
}

// -----

// CHECK-LABEL: func.func @attention_query_rows_head_40
// CHECK: kiln.kernel "attention_0" attention {{.*}} variant = #kiln.variant<query_rows>
func.func @attention_query_rows_head_40(%q: tensor<2x77x40xf16>, %k: tensor<2x300x40xf16>, %v: tensor<2x300x40xf16>) -> tensor<2x77x40xf16> {
  %0 = kiln.attention %q, %k, %v {scale = 0.125 : f32} : tensor<2x77x40xf16>, tensor<2x300x40xf16>, tensor<2x300x40xf16> -> tensor<2x77x40xf16>
  return %0 : tensor<2x77x40xf16>
}

// -----

// A pointwise kernel that is one channels-last pool of floats: the pool
// template, an output pixel x 16 bytes of channels per thread (64 f16
// channels: vectors of 8; 2 * 11 * 10 * 8 = 1760 units, 7 blocks); with 3
// channels no vector of two fits and the loop template runs it.
// CHECK-LABEL: func.func @channels_last_pool
// CHECK: kiln.kernel "max_pool_0" pointwise {{.*}} attributes {block_size = 256 : i64, elements_per_thread = 1 : i64, grid_size = 7 : i64, variant = #kiln.variant<channels_last_pool>, vector_width = 8 : i64}
// CHECK: kiln.kernel "max_pool_1" pointwise {{.*}} variant = #kiln.variant<loop>, vector_width = 1 : i64}
func.func @channels_last_pool(%x: tensor<2x21x19x64xf16>, %y: tensor<2x21x19x3xf16>) -> (tensor<2x11x10x64xf16>, tensor<2x11x10x3xf16>) {
  %m = kiln.max_pool %x {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, layout = "NHWC", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<2x21x19x64xf16> -> tensor<2x11x10x64xf16>
  %n = kiln.max_pool %y {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, layout = "NHWC", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<2x21x19x3xf16> -> tensor<2x11x10x3xf16>
  return %m, %n : tensor<2x11x10x64xf16>, tensor<2x11x10x3xf16>
}

// -----

// A row statistic broadcast along the innermost dims (Swin-V2's division by
// the L2 norms, an f32 [.., 1] under f16 [.., 32]) is one element per
// vector: vectors of 8 f16 (the f32 statistic does not narrow them); rows of
// 12 take vectors of 4, which stay within a row.
// CHECK-LABEL: func.func @row_statistic
// CHECK: kiln.kernel "sqrt_clip_expand_etc_0" pointwise {{.*}} vector_width = 8 : i64
// CHECK: kiln.kernel "sub_exp_1" pointwise {{.*}} vector_width = 4 : i64
func.func @row_statistic(%x: tensor<4x3x16x32xf16>, %n: tensor<4x3x16x1xf32>, %y: tensor<6x12xf16>, %s: tensor<6x1xf16>) -> (tensor<4x3x16x32xf16>, tensor<6x12xf16>) {
  %eps = kiln.constant dense<1.0e-12> : tensor<f32>
  %inf = kiln.constant dense<0x7F800000> : tensor<f32>
  %shape = kiln.constant dense<[4, 3, 16, 32]> : tensor<4xi64>
  %r = kiln.sqrt %n : tensor<4x3x16x1xf32> -> tensor<4x3x16x1xf32>
  %c = kiln.clip %r, %eps, %inf : tensor<4x3x16x1xf32>, tensor<f32>, tensor<f32> -> tensor<4x3x16x1xf32>
  %e = kiln.expand %c, %shape : tensor<4x3x16x1xf32>, tensor<4xi64> -> tensor<4x3x16x32xf32>
  %w = kiln.cast %x {to = f32} : tensor<4x3x16x32xf16> -> tensor<4x3x16x32xf32>
  %d = kiln.div %w, %e : tensor<4x3x16x32xf32>, tensor<4x3x16x32xf32> -> tensor<4x3x16x32xf32>
  %h = kiln.cast %d {to = f16} : tensor<4x3x16x32xf32> -> tensor<4x3x16x32xf16>
  %m = kiln.sub %y, %s : tensor<6x12xf16>, tensor<6x1xf16> -> tensor<6x12xf16>
  %x2 = kiln.exp %m : tensor<6x12xf16> -> tensor<6x12xf16>
  return %h, %x2 : tensor<4x3x16x32xf16>, tensor<6x12xf16>
}

// -----

// Data movement that keeps the innermost dim's runs takes vectors that
// divide every innermost dim on the way: Swin's head split (bias add, then
// d = 16 kept last) 8; a channel slice from 24 of rows of 64 f16 vectors of
// 8 (24 = 8 x 3); a pad of the innermost dim, a transpose moving it, and a
// slice of it from 3 none.
// CHECK-LABEL: func.func @movement_runs
// CHECK: kiln.kernel "add_transpose_0" data_movement {{.*}} vector_width = 8 : i64
// CHECK: kiln.kernel "slice_1" data_movement {{.*}} vector_width = 8 : i64
// CHECK: kiln.kernel "pad_2" data_movement {{.*}} vector_width = 1 : i64
// CHECK: kiln.kernel "transpose_3" transpose
// CHECK: kiln.kernel "slice_4" data_movement {{.*}} vector_width = 1 : i64
func.func @movement_runs(%x: tensor<32x16x96xf16>, %b: tensor<96xf16>, %y: tensor<4x64xf16>) -> (tensor<3x32x2x16x16xf16>, tensor<4x32xf16>, tensor<4x66xf16>, tensor<64x4xf16>, tensor<4x32xf16>) {
  %a = kiln.add %x, %b : tensor<32x16x96xf16>, tensor<96xf16> -> tensor<32x16x96xf16>
  %shape = kiln.constant dense<[32, 16, 3, 2, 16]> : tensor<5xi64>
  %r = kiln.reshape %a, %shape : tensor<32x16x96xf16>, tensor<5xi64> -> tensor<32x16x3x2x16xf16>
  %t = kiln.transpose %r {perm = array<i64: 2, 0, 3, 1, 4>} : tensor<32x16x3x2x16xf16> -> tensor<3x32x2x16x16xf16>
  %from24 = kiln.constant dense<24> : tensor<1xi64>
  %to56 = kiln.constant dense<56> : tensor<1xi64>
  %from3 = kiln.constant dense<3> : tensor<1xi64>
  %to35 = kiln.constant dense<35> : tensor<1xi64>
  %axis = kiln.constant dense<1> : tensor<1xi64>
  %one = kiln.constant dense<1> : tensor<1xi64>
  %s = kiln.slice %y, %from24, %to56, %axis, %one : tensor<4x64xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<4x32xf16>
  %pads = kiln.constant dense<[0, 1, 0, 1]> : tensor<4xi64>
  %p = kiln.pad %y, %pads {mode = "constant"} : tensor<4x64xf16>, tensor<4xi64> -> tensor<4x66xf16>
  %yt = kiln.transpose %y {perm = array<i64: 1, 0>} : tensor<4x64xf16> -> tensor<64x4xf16>
  %s3 = kiln.slice %y, %from3, %to35, %axis, %one : tensor<4x64xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<4x32xf16>
  return %t, %s, %p, %yt, %s3 : tensor<3x32x2x16x16xf16>, tensor<4x32xf16>, tensor<4x66xf16>, tensor<64x4xf16>, tensor<4x32xf16>
}
