// GPU kernel tests: softmax and log_softmax rows (SoftmaxRowEmitter) over the
// types, row lengths and prologues the fast path covers: unfused functions,
// through kiln-fuse-kernels and kiln-tile-kernels, with rows of 4096 (a
// block per row), 1024 and 1000 (a warp per row; 1000 leaves a tail) in
// f16, bf16 and f32; a bias and masks broadcast over heads or the batch;
// odd lengths (no vectors); a fused transpose of the outer dims and a slice
// of the row; f64; last, hand-tiled rows too long for registers (recomputed
// per pass) with a grid smaller than the rows. Softmax outputs are small
// (about 1/length), so their cases set a relative tolerance.
// RUN: rm -rf %t && kiln-translate %s --kernel-test-bundle %t | FileCheck %s
// CHECK: wrote case softmax_rows.bf16_8x4096 (1 kernels, 1 launches)
// CHECK: wrote case softmax_rows.f32_8x4096 (1 kernels, 1 launches)
// CHECK: wrote case softmax_rows.f16_32x1024 (1 kernels, 1 launches)
// CHECK: wrote case softmax_rows.f32_16x1000 (1 kernels, 1 launches)
// CHECK: wrote case softmax_rows.bf16_32x1000_bias (1 kernels, 1 launches)
// CHECK: wrote case softmax_rows.f16_causal_mask_f32_out (1 kernels, 1 launches)
// CHECK: wrote case softmax_rows.f32_16x1001_odd (1 kernels, 1 launches)
// CHECK: wrote case softmax_rows.f16_8x4097_odd (1 kernels, 1 launches)
// CHECK: wrote case softmax_rows.log_softmax_f16_8x4096 (1 kernels, 1 launches)
// CHECK: wrote case softmax_rows.f64_16x256 (1 kernels, 1 launches)
// CHECK: wrote case softmax_rows.f16_permuted_rows (1 kernels, 1 launches)
// CHECK: wrote case softmax_rows.f32_sliced_rows (1 kernels, 1 launches)
// CHECK: wrote case softmax_rows.swin_shifted_window_f16 (1 kernels, 1 launches)
// CHECK: wrote case softmax_rows.recomputed_f32_4x8192 (1 kernels, 1 launches)
// CHECK: wrote case softmax_rows.recomputed_log_softmax_bf16_4x8192 (1 kernels, 1 launches)
// CHECK: wrote case softmax_rows.f16_rows_of_64_sub_warp (1 kernels, 1 launches)
// CHECK: wrote case softmax_rows.f16_rows_of_64_whole_warp (1 kernels, 1 launches)
// CHECK: wrote case softmax_rows.f16_relative_position_gather (1 kernels, 1 launches)
// CHECK: wrote case softmax_rows.f32_pinned_width_8 (1 kernels, 1 launches)

// bf16 storage, fp32 math: vectors of 8, 2 per thread.
func.func @bf16_8x4096(%x: tensor<8x4096xbf16>) -> tensor<8x4096xbf16>
    attributes {kiln.test_tolerance = [2.0e-2, 1.0e-6]} {
  %0 = kiln.softmax %x {axis = -1 : i64} : tensor<8x4096xbf16> -> tensor<8x4096xbf16>
  return %0 : tensor<8x4096xbf16>
}

// f32: vectors of 4, 4 per thread.
func.func @f32_8x4096(%x: tensor<8x4096xf32>) -> tensor<8x4096xf32>
    attributes {kiln.test_tolerance = [1.0e-5, 1.0e-9]} {
  %0 = kiln.softmax %x {axis = -1 : i64} : tensor<8x4096xf32> -> tensor<8x4096xf32>
  return %0 : tensor<8x4096xf32>
}

// One warp per row, 4 vectors of 8 per lane.
func.func @f16_32x1024(%x: tensor<32x1024xf16>) -> tensor<32x1024xf16>
    attributes {kiln.test_tolerance = [1.0e-2, 1.0e-6]} {
  %0 = kiln.softmax %x {axis = -1 : i64} : tensor<32x1024xf16> -> tensor<32x1024xf16>
  return %0 : tensor<32x1024xf16>
}

// 250 vectors of 4 over 32 lanes: a tail.
func.func @f32_16x1000(%x: tensor<16x1000xf32>) -> tensor<16x1000xf32>
    attributes {kiln.test_tolerance = [1.0e-5, 1.0e-9]} {
  %0 = kiln.softmax %x {axis = 1 : i64} : tensor<16x1000xf32> -> tensor<16x1000xf32>
  return %0 : tensor<16x1000xf32>
}

// A bias of one row's size, read as vectors at the lane's column; 125
// vectors of 8 over 32 lanes. The CPU rounds the add to bf16.
func.func @bf16_32x1000_bias(%x: tensor<32x1000xbf16>, %b: tensor<1000xbf16>) -> tensor<32x1000xbf16>
    attributes {kiln.test_tolerance = [3.0e-2, 1.0e-6]} {
  %0 = kiln.add %x, %b : tensor<32x1000xbf16>, tensor<1000xbf16> -> tensor<32x1000xbf16>
  %1 = kiln.softmax %0 {axis = -1 : i64} : tensor<32x1000xbf16> -> tensor<32x1000xbf16>
  return %1 : tensor<32x1000xbf16>
}

// A causal-style mask [128, 128] broadcast over the batch, and an f32
// epilogue (vectors of 4: 16 bytes of f32).
func.func @f16_causal_mask_f32_out(%x: tensor<2x128x128xf16>, %m: tensor<128x128xf16> {kiln.test_range = [-8.0, 0.0]}) -> tensor<2x128x128xf32>
    attributes {kiln.test_tolerance = [1.0e-2, 1.0e-6]} {
  %0 = kiln.add %x, %m : tensor<2x128x128xf16>, tensor<128x128xf16> -> tensor<2x128x128xf16>
  %1 = kiln.softmax %0 {axis = -1 : i64} : tensor<2x128x128xf16> -> tensor<2x128x128xf16>
  %2 = kiln.cast %1 {to = f32} : tensor<2x128x128xf16> -> tensor<2x128x128xf32>
  return %2 : tensor<2x128x128xf32>
}

// Odd lengths: no vectors, one element at a time (a warp with a tail; a
// block of 512 threads with a tail).
func.func @f32_16x1001_odd(%x: tensor<16x1001xf32>) -> tensor<16x1001xf32>
    attributes {kiln.test_tolerance = [1.0e-5, 1.0e-9]} {
  %0 = kiln.softmax %x : tensor<16x1001xf32> -> tensor<16x1001xf32>
  return %0 : tensor<16x1001xf32>
}

func.func @f16_8x4097_odd(%x: tensor<8x4097xf16>) -> tensor<8x4097xf16>
    attributes {kiln.test_tolerance = [1.0e-2, 1.0e-6]} {
  %0 = kiln.softmax %x : tensor<8x4097xf16> -> tensor<8x4097xf16>
  return %0 : tensor<8x4097xf16>
}

// log_softmax keeps x in registers and writes x - max - log(sum).
func.func @log_softmax_f16_8x4096(%x: tensor<8x4096xf16>) -> tensor<8x4096xf16> {
  %0 = kiln.log_softmax %x {axis = -1 : i64} : tensor<8x4096xf16> -> tensor<8x4096xf16>
  return %0 : tensor<8x4096xf16>
}

// f64 computes in double (kiln_exp), vectors of 2.
func.func @f64_16x256(%x: tensor<16x256xf64>) -> tensor<16x256xf64> {
  %0 = kiln.softmax %x : tensor<16x256xf64> -> tensor<16x256xf64>
  return %0 : tensor<16x256xf64>
}

// A transpose of the outer dims fuses in front: the rows are still
// contiguous in the input, read as vectors at the permuted row.
func.func @f16_permuted_rows(%x: tensor<4x8x256xf16>) -> tensor<8x4x256xf16>
    attributes {kiln.test_tolerance = [1.0e-2, 1.0e-6]} {
  %0 = kiln.transpose %x {perm = array<i64: 1, 0, 2>} : tensor<4x8x256xf16> -> tensor<8x4x256xf16>
  %1 = kiln.softmax %0 : tensor<8x4x256xf16> -> tensor<8x4x256xf16>
  return %1 : tensor<8x4x256xf16>
}

// A slice of the last axis (offset 4) in front: read per element, written
// in vectors.
func.func @f32_sliced_rows(%x: tensor<16x264xf32>) -> tensor<16x256xf32>
    attributes {kiln.test_tolerance = [1.0e-5, 1.0e-9]} {
  %s = kiln.constant dense<[4]> : tensor<1xi64>
  %e = kiln.constant dense<[260]> : tensor<1xi64>
  %a = kiln.constant dense<[1]> : tensor<1xi64>
  %st = kiln.constant dense<[1]> : tensor<1xi64>
  %0 = kiln.slice %x, %s, %e, %a, %st : tensor<16x264xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<16x256xf32>
  %1 = kiln.softmax %0 : tensor<16x256xf32> -> tensor<16x256xf32>
  return %1 : tensor<16x256xf32>
}

// Swin-V2's shifted-window attention weights: scores [B x windows, heads,
// 16, 16] scaled, plus the relative position bias [1, heads, 16, 16], put
// through a reshape to [B, windows, heads, 16, 16] for the shift mask
// [1, windows, 1, 16, 16] and back, softmax in f32. The row template's
// index (dims and linear) crosses the reshapes as regrouped dims. Scores
// stay below 5 in magnitude: the evaluator rounds each op's result to f16,
// the kernel only the softmax's input, and at 8 to 16 an f16 ulp moves
// exp by 0.8%.
func.func @swin_shifted_window_f16(%s: tensor<8x2x16x16xf16>, %b: tensor<1x2x16x16xf16>, %m: tensor<1x4x1x16x16xf16> {kiln.test_range = [-2.0, 0.0]}) -> tensor<8x2x16x16xf16>
    attributes {kiln.test_tolerance = [1.0e-2, 1.0e-5]} {
  %scale = kiln.constant dense<0.5> : tensor<2x1x1xf16>
  %s5 = kiln.constant dense<[2, 4, 2, 16, 16]> : tensor<5xi64>
  %s4 = kiln.constant dense<[-1, 2, 16, 16]> : tensor<4xi64>
  %0 = kiln.mul %s, %scale : tensor<8x2x16x16xf16>, tensor<2x1x1xf16> -> tensor<8x2x16x16xf16>
  %1 = kiln.add %0, %b : tensor<8x2x16x16xf16>, tensor<1x2x16x16xf16> -> tensor<8x2x16x16xf16>
  %2 = kiln.reshape %1, %s5 : tensor<8x2x16x16xf16>, tensor<5xi64> -> tensor<2x4x2x16x16xf16>
  %3 = kiln.add %2, %m : tensor<2x4x2x16x16xf16>, tensor<1x4x1x16x16xf16> -> tensor<2x4x2x16x16xf16>
  %4 = kiln.reshape %3, %s4 : tensor<2x4x2x16x16xf16>, tensor<4xi64> -> tensor<8x2x16x16xf16>
  %5 = kiln.cast %4 {to = f32} : tensor<8x2x16x16xf16> -> tensor<8x2x16x16xf32>
  %6 = kiln.softmax %5 {axis = -1 : i64} : tensor<8x2x16x16xf32> -> tensor<8x2x16x16xf32>
  %7 = kiln.cast %6 {to = f16} : tensor<8x2x16x16xf32> -> tensor<8x2x16x16xf16>
  return %7 : tensor<8x2x16x16xf16>
}

// Rows too long for registers at this block size (128 values per thread):
// each pass reads the row again in vectors; 3 blocks for 4 rows.
func.func @recomputed_f32_4x8192(%a: tensor<4x8192xf32>) -> tensor<4x8192xf32>
    attributes {kiln.test_tolerance = [1.0e-5, 1.0e-9]} {
  %e = kiln.empty : tensor<4x8192xf32>
  %r = kiln.kernel "softmax" row_reduce ins(%a : tensor<4x8192xf32>) outs(%e : tensor<4x8192xf32>) attributes {block_size = 64 : i64, grid_size = 3 : i64, rows_per_block = 1 : i64, variant = #kiln.variant<block_rows>, vector_width = 4 : i64} {
  ^bb0(%x: tensor<4x8192xf32>, %o: tensor<4x8192xf32>):
    %s = kiln.softmax %x : tensor<4x8192xf32> -> tensor<4x8192xf32>
    kiln.yield %s : tensor<4x8192xf32>
  } -> tensor<4x8192xf32>
  return %r : tensor<4x8192xf32>
}

func.func @recomputed_log_softmax_bf16_4x8192(%a: tensor<4x8192xbf16>) -> tensor<4x8192xbf16> {
  %e = kiln.empty : tensor<4x8192xbf16>
  %r = kiln.kernel "log_softmax" row_reduce ins(%a : tensor<4x8192xbf16>) outs(%e : tensor<4x8192xbf16>) attributes {block_size = 64 : i64, grid_size = 3 : i64, rows_per_block = 1 : i64, variant = #kiln.variant<block_rows>, vector_width = 8 : i64} {
  ^bb0(%x: tensor<4x8192xbf16>, %o: tensor<4x8192xbf16>):
    %s = kiln.log_softmax %x : tensor<4x8192xbf16> -> tensor<4x8192xbf16>
    kiln.yield %s : tensor<4x8192xbf16>
  } -> tensor<4x8192xbf16>
  return %r : tensor<4x8192xbf16>
}


// Rows shorter than a warp's vectors (warpRowLanes): rows of 64 f16 in
// vectors of 8 take 8 lanes, 4 rows a warp (12 rows: 3 warps' worth).
func.func @f16_rows_of_64_sub_warp(%x: tensor<3x4x64xf16>, %b: tensor<64xf16>) -> tensor<3x4x64xf16>
    attributes {kiln.test_tolerance = [1.0e-2, 1.0e-4]} {
  %0 = kiln.add %x, %b : tensor<3x4x64xf16>, tensor<64xf16> -> tensor<3x4x64xf16>
  %1 = kiln.softmax %0 {axis = -1 : i64} : tensor<3x4x64xf16> -> tensor<3x4x64xf16>
  return %1 : tensor<3x4x64xf16>
}

// 5 rows are no multiple of the rows a warp would take: a warp per row,
// vectors of 2 keeping its lanes busy.
func.func @f16_rows_of_64_whole_warp(%x: tensor<5x64xf16>) -> tensor<5x64xf16>
    attributes {kiln.test_tolerance = [1.0e-2, 1.0e-4]} {
  %0 = kiln.softmax %x {axis = -1 : i64} : tensor<5x64xf16> -> tensor<5x64xf16>
  return %0 : tensor<5x64xf16>
}

// DeBERTa's disentangled attention: an int64 index [1, 1, 64, 128] broadcast
// over batch and heads gathers relative-position scores along the row; the
// index is read in 16-byte pieces of a vector of 8 (negative indices count
// from the end).
func.func @f16_relative_position_gather(%x: tensor<2x3x64x128xf16>, %c: tensor<2x3x64x96xf16>, %i: tensor<1x1x64x128xi64> {kiln.test_range = [-96, 95]}) -> tensor<2x3x64x128xf16>
    attributes {kiln.test_tolerance = [2.0e-2, 1.0e-5]} {
  %full = kiln.constant dense<[2, 3, 64, 128]> : tensor<4xi64>
  %ie = kiln.expand %i, %full : tensor<1x1x64x128xi64>, tensor<4xi64> -> tensor<2x3x64x128xi64>
  %g = kiln.gather_elements %c, %ie {axis = 3 : i64} : tensor<2x3x64x96xf16>, tensor<2x3x64x128xi64> -> tensor<2x3x64x128xf16>
  %0 = kiln.add %x, %g : tensor<2x3x64x128xf16>, tensor<2x3x64x128xf16> -> tensor<2x3x64x128xf16>
  %1 = kiln.softmax %0 : tensor<2x3x64x128xf16> -> tensor<2x3x64x128xf16>
  return %1 : tensor<2x3x64x128xf16>
}

// vector_width 8 set by hand on f32 rows: 32-byte vectors, loaded and
// stored in two 16-byte pieces each (kernel pointers are 16-byte aligned).
func.func @f32_pinned_width_8(%a: tensor<16x256xf32>) -> tensor<16x256xf32>
    attributes {kiln.test_tolerance = [1.0e-5, 1.0e-9]} {
  %e = kiln.empty : tensor<16x256xf32>
  %r = kiln.kernel "softmax" row_reduce ins(%a : tensor<16x256xf32>) outs(%e : tensor<16x256xf32>) attributes {block_size = 128 : i64, grid_size = 4 : i64, rows_per_block = 4 : i64, vector_width = 8 : i64} {
  ^bb0(%x: tensor<16x256xf32>, %o: tensor<16x256xf32>):
    %s = kiln.softmax %x : tensor<16x256xf32> -> tensor<16x256xf32>
    kiln.yield %s : tensor<16x256xf32>
  } -> tensor<16x256xf32>
  return %r : tensor<16x256xf32>
}
