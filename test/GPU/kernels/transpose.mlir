// GPU kernel tests: tiled transposes, 2-D and 3-D, with tails (sizes that are
// not multiples of 32) and a fused elementwise producer and consumer; short
// output rows (a row per thread through shared memory) with partial blocks
// and a grid-stride loop. Transposes and casts are exact (zero tolerance).
// RUN: rm -rf %t && kiln-translate %s --kernel-test-bundle %t | FileCheck %s
// CHECK: wrote case transpose.two_d_relu (1 kernels, 1 launches)
// CHECK: wrote case transpose.three_d_swap_last (1 kernels, 1 launches)
// CHECK: wrote case transpose.three_d_reverse_f16 (1 kernels, 1 launches)
// CHECK: wrote case transpose.batch_outer_keeps_inner (1 kernels, 1 launches)
// CHECK: wrote case transpose.nchw_to_nhwc_c3_cast_f16 (1 kernels, 1 launches)
// CHECK: wrote case transpose.short_rows_6_relu_grid_stride (1 kernels, 1 launches)
// CHECK: wrote case transpose.nhwc_to_nchw_c64_cast_f32 (1 kernels, 1 launches)
// CHECK: wrote case transpose.transpose_relu_transpose (1 kernels, 1 launches)

func.func @two_d_relu(%a: tensor<4097x45xf32>) -> tensor<45x4097xf32> {
  %e = kiln.empty : tensor<45x4097xf32>
  %r = kiln.kernel "relu_transpose" transpose ins(%a : tensor<4097x45xf32>) outs(%e : tensor<45x4097xf32>) attributes {block_size = 256 : i64, elements_per_thread = 4 : i64, grid_size = 100 : i64} {
  ^bb0(%x: tensor<4097x45xf32>, %o: tensor<45x4097xf32>):
    %y = kiln.relu %x : tensor<4097x45xf32> -> tensor<4097x45xf32>
    %t = kiln.transpose %y {perm = array<i64: 1, 0>} : tensor<4097x45xf32> -> tensor<45x4097xf32>
    %z = kiln.exp %t : tensor<45x4097xf32> -> tensor<45x4097xf32>
    kiln.yield %z : tensor<45x4097xf32>
  } -> tensor<45x4097xf32>
  return %r : tensor<45x4097xf32>
}

func.func @three_d_swap_last(%a: tensor<5x100x70xf32>) -> tensor<5x70x100xf32> {
  %e = kiln.empty : tensor<5x70x100xf32>
  %r = kiln.kernel "transpose_021" transpose ins(%a : tensor<5x100x70xf32>) outs(%e : tensor<5x70x100xf32>) attributes {block_size = 128 : i64, elements_per_thread = 8 : i64, grid_size = 64 : i64} {
  ^bb0(%x: tensor<5x100x70xf32>, %o: tensor<5x70x100xf32>):
    %t = kiln.transpose %x {perm = array<i64: 0, 2, 1>} : tensor<5x100x70xf32> -> tensor<5x70x100xf32>
    kiln.yield %t : tensor<5x70x100xf32>
  } -> tensor<5x70x100xf32>
  return %r : tensor<5x70x100xf32>
}

func.func @three_d_reverse_f16(%a: tensor<33x7x65xf16>) -> tensor<65x7x33xf16> {
  %e = kiln.empty : tensor<65x7x33xf16>
  %r = kiln.kernel "transpose_210" transpose ins(%a : tensor<33x7x65xf16>) outs(%e : tensor<65x7x33xf16>) attributes {block_size = 256 : i64, elements_per_thread = 4 : i64, grid_size = 30 : i64} {
  ^bb0(%x: tensor<33x7x65xf16>, %o: tensor<65x7x33xf16>):
    %t = kiln.transpose %x {perm = array<i64: 2, 1, 0>} : tensor<33x7x65xf16> -> tensor<65x7x33xf16>
    kiln.yield %t : tensor<65x7x33xf16>
  } -> tensor<65x7x33xf16>
  return %r : tensor<65x7x33xf16>
}

// The innermost dim stays in place: data movement, the loop template.
func.func @batch_outer_keeps_inner(%a: tensor<6x9x130xf32>) -> tensor<9x6x130xf32> {
  %e = kiln.empty : tensor<9x6x130xf32>
  %r = kiln.kernel "transpose_102" data_movement ins(%a : tensor<6x9x130xf32>) outs(%e : tensor<9x6x130xf32>) attributes {block_size = 256 : i64, elements_per_thread = 4 : i64, grid_size = 8 : i64} {
  ^bb0(%x: tensor<6x9x130xf32>, %o: tensor<9x6x130xf32>):
    %t = kiln.transpose %x {perm = array<i64: 1, 0, 2>} : tensor<6x9x130xf32> -> tensor<9x6x130xf32>
    kiln.yield %t : tensor<9x6x130xf32>
  } -> tensor<9x6x130xf32>
  return %r : tensor<9x6x130xf32>
}

// The ResNet stem's input: fp32 NCHW -> fp16 NHWC with 3 channels (fused
// and tiled by kiln-translate): short rows, 3 x 1221 rows, the last block
// partial.
func.func @nchw_to_nhwc_c3_cast_f16(%a: tensor<3x3x37x33xf32>) -> tensor<3x37x33x3xf16>
    attributes {kiln.test_tolerance = [0.0, 0.0]} {
  %c = kiln.cast %a {to = f16} : tensor<3x3x37x33xf32> -> tensor<3x3x37x33xf16>
  %t = kiln.transpose %c {perm = array<i64: 0, 2, 3, 1>} : tensor<3x3x37x33xf16> -> tensor<3x37x33x3xf16>
  return %t : tensor<3x37x33x3xf16>
}

// Rows of 6 (the short_rows variant, parked at stride 7) with a relu on the
// write; 4 blocks of 64 rows cover the 2 x 41 x 29 rows in a grid-stride
// loop.
func.func @short_rows_6_relu_grid_stride(%a: tensor<2x6x41x29xf32>) -> tensor<2x41x29x6xf32>
    attributes {kiln.test_tolerance = [0.0, 0.0]} {
  %e = kiln.empty : tensor<2x41x29x6xf32>
  %r = kiln.kernel "rows_of_6" transpose ins(%a : tensor<2x6x41x29xf32>) outs(%e : tensor<2x41x29x6xf32>) attributes {block_size = 64 : i64, elements_per_thread = 16 : i64, grid_size = 4 : i64, variant = #kiln.variant<short_rows>} {
  ^bb0(%x: tensor<2x6x41x29xf32>, %o: tensor<2x41x29x6xf32>):
    %t = kiln.transpose %x {perm = array<i64: 0, 2, 3, 1>} : tensor<2x6x41x29xf32> -> tensor<2x41x29x6xf32>
    %y = kiln.relu %t : tensor<2x41x29x6xf32> -> tensor<2x41x29x6xf32>
    kiln.yield %y : tensor<2x41x29x6xf32>
  } -> tensor<2x41x29x6xf32>
  return %r : tensor<2x41x29x6xf32>
}

// The stem's output back to fp32 NCHW: 64 channels innermost in the input,
// a long output row, so the 32x32 tiles (fused and tiled by kiln-translate).
func.func @nhwc_to_nchw_c64_cast_f32(%a: tensor<2x9x11x64xf16>) -> tensor<2x64x9x11xf32>
    attributes {kiln.test_tolerance = [0.0, 0.0]} {
  %c = kiln.cast %a {to = f32} : tensor<2x9x11x64xf16> -> tensor<2x9x11x64xf32>
  %t = kiln.transpose %c {perm = array<i64: 0, 3, 1, 2>} : tensor<2x9x11x64xf32> -> tensor<2x64x9x11xf32>
  return %t : tensor<2x64x9x11xf32>
}

// Issue 14's first repro (fused and tiled by kiln-translate): a transpose
// that keeps the innermost dim and a relu, read elementally by the 32x32
// tiles of the transpose that moves it; 40 x 33 planes, so both tails.
func.func @transpose_relu_transpose(%a: tensor<5x33x40xf32>) -> tensor<40x5x33xf32>
    attributes {kiln.test_tolerance = [0.0, 0.0]} {
  %0 = kiln.transpose %a {perm = array<i64: 1, 0, 2>} : tensor<5x33x40xf32> -> tensor<33x5x40xf32>
  %1 = kiln.relu %0 : tensor<33x5x40xf32> -> tensor<33x5x40xf32>
  %2 = kiln.transpose %1 {perm = array<i64: 2, 1, 0>} : tensor<33x5x40xf32> -> tensor<40x5x33xf32>
  return %2 : tensor<40x5x33xf32>
}
