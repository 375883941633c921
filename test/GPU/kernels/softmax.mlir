// GPU kernel tests: softmax as a row_reduce kernel, each row read once into
// registers (SoftmaxRowEmitter): hand-tiled kernels without `vector_width`
// (one element at a time) with rows of 128 (one warp per row), 4097 and
// 50257 (one block per row), f32 and f16, with a prologue; then, through
// kiln-fuse-kernels and kiln-tile-kernels, the benchmark's rows (4096 f16,
// 16-byte vectors) and attention scores with a scale and a broadcast padding
// mask. test/GPU/runner.mlir runs these cases in the host emulation too;
// softmax_rows.mlir has the wider matrix of types, lengths and prologues.
// RUN: rm -rf %t && kiln-translate %s --kernel-test-bundle %t | FileCheck %s
// CHECK: wrote case softmax.warp_128 (1 kernels, 1 launches)
// CHECK: wrote case softmax.block_4097 (1 kernels, 1 launches)
// CHECK: wrote case softmax.block_50257 (1 kernels, 1 launches)
// CHECK: wrote case softmax.warp_f16_scaled (1 kernels, 1 launches)
// CHECK: wrote case softmax.f16_8x4096 (1 kernels, 1 launches)
// CHECK: wrote case softmax.f16_scaled_padding_mask (1 kernels, 1 launches)

func.func @warp_128(%a: tensor<4x33x128xf32>) -> tensor<4x33x128xf32> {
  %e = kiln.empty : tensor<4x33x128xf32>
  %r = kiln.kernel "softmax" row_reduce ins(%a : tensor<4x33x128xf32>) outs(%e : tensor<4x33x128xf32>) attributes {block_size = 128 : i64, grid_size = 33 : i64, rows_per_block = 4 : i64, variant = #kiln.variant<warp_rows>} {
  ^bb0(%x: tensor<4x33x128xf32>, %o: tensor<4x33x128xf32>):
    %s = kiln.softmax %x {axis = -1 : i64} : tensor<4x33x128xf32> -> tensor<4x33x128xf32>
    kiln.yield %s : tensor<4x33x128xf32>
  } -> tensor<4x33x128xf32>
  return %r : tensor<4x33x128xf32>
}

func.func @block_4097(%a: tensor<6x4097xf32>) -> tensor<6x4097xf32> {
  %e = kiln.empty : tensor<6x4097xf32>
  %r = kiln.kernel "softmax" row_reduce ins(%a : tensor<6x4097xf32>) outs(%e : tensor<6x4097xf32>) attributes {block_size = 256 : i64, grid_size = 6 : i64, rows_per_block = 1 : i64, variant = #kiln.variant<block_rows>} {
  ^bb0(%x: tensor<6x4097xf32>, %o: tensor<6x4097xf32>):
    %s = kiln.softmax %x {axis = 1 : i64} : tensor<6x4097xf32> -> tensor<6x4097xf32>
    kiln.yield %s : tensor<6x4097xf32>
  } -> tensor<6x4097xf32>
  return %r : tensor<6x4097xf32>
}

// Logits of a GPT-2-size vocabulary; grid smaller than the rows (grid-stride).
func.func @block_50257(%a: tensor<3x50257xf32>) -> tensor<3x50257xf32> {
  %e = kiln.empty : tensor<3x50257xf32>
  %r = kiln.kernel "softmax" row_reduce ins(%a : tensor<3x50257xf32>) outs(%e : tensor<3x50257xf32>) attributes {block_size = 1024 : i64, grid_size = 2 : i64, rows_per_block = 1 : i64, variant = #kiln.variant<block_rows>} {
  ^bb0(%x: tensor<3x50257xf32>, %o: tensor<3x50257xf32>):
    %s = kiln.softmax %x : tensor<3x50257xf32> -> tensor<3x50257xf32>
    kiln.yield %s : tensor<3x50257xf32>
  } -> tensor<3x50257xf32>
  return %r : tensor<3x50257xf32>
}

// Attention-style: scale + mask prologue, f16 storage, rows of 200 (tails
// in the warp loop), epilogue cast to f32; f16 tolerance since the GPU
// keeps the prologue in float.
func.func @warp_f16_scaled(%a: tensor<16x200xf16>, %m: tensor<200xf16>) -> tensor<16x200xf32>
    attributes {kiln.test_tolerance = [1.0e-2, 1.0e-3]} {
  %e = kiln.empty : tensor<16x200xf32>
  %r = kiln.kernel "scaled_softmax" row_reduce ins(%a, %m : tensor<16x200xf16>, tensor<200xf16>) outs(%e : tensor<16x200xf32>) attributes {block_size = 64 : i64, grid_size = 8 : i64, rows_per_block = 2 : i64, variant = #kiln.variant<warp_rows>} {
  ^bb0(%x: tensor<16x200xf16>, %y: tensor<200xf16>, %o: tensor<16x200xf32>):
    %k = kiln.constant dense<0.125> : tensor<f16>
    %s = kiln.mul %x, %k : tensor<16x200xf16>, tensor<f16> -> tensor<16x200xf16>
    %t = kiln.add %s, %y : tensor<16x200xf16>, tensor<200xf16> -> tensor<16x200xf16>
    %p = kiln.softmax %t : tensor<16x200xf16> -> tensor<16x200xf16>
    %c = kiln.cast %p {to = f32} : tensor<16x200xf16> -> tensor<16x200xf32>
    kiln.yield %c : tensor<16x200xf32>
  } -> tensor<16x200xf32>
  return %r : tensor<16x200xf32>
}

// The benchmark's rows (4096 f16; 8 rows, not 4096, to keep the bundle
// small): a block of 256 threads per row, 2 vectors of 8 each.
func.func @f16_8x4096(%x: tensor<8x4096xf16>) -> tensor<8x4096xf16>
    attributes {kiln.test_tolerance = [1.0e-2, 1.0e-6]} {
  %0 = kiln.softmax %x {axis = -1 : i64} : tensor<8x4096xf16> -> tensor<8x4096xf16>
  return %0 : tensor<8x4096xf16>
}

// Attention scores: scale, then a padding mask [2, 1, 1, 128] broadcast over
// heads and query rows (a vector at the row's batch); rows of 128 f16 in
// vectors of 4.
func.func @f16_scaled_padding_mask(%x: tensor<2x2x32x128xf16>, %m: tensor<2x1x1x128xf16> {kiln.test_range = [-8.0, 0.0]}) -> tensor<2x2x32x128xf16>
    attributes {kiln.test_tolerance = [1.0e-2, 1.0e-6]} {
  %k = kiln.constant dense<0.125> : tensor<f16>
  %0 = kiln.mul %x, %k : tensor<2x2x32x128xf16>, tensor<f16> -> tensor<2x2x32x128xf16>
  %1 = kiln.add %0, %m : tensor<2x2x32x128xf16>, tensor<2x1x1x128xf16> -> tensor<2x2x32x128xf16>
  %2 = kiln.softmax %1 {axis = -1 : i64} : tensor<2x2x32x128xf16> -> tensor<2x2x32x128xf16>
  return %2 : tensor<2x2x32x128xf16>
}
