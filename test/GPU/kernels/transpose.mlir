// GPU kernel tests: tiled transposes, 2-D and 3-D, with tails (sizes that are
// not multiples of 32) and a fused elementwise producer and consumer.
// RUN: rm -rf %t && kiln-translate %s --kernel-test-bundle %t | FileCheck %s
// CHECK: wrote case transpose.two_d_relu (1 kernels, 1 launches)
// CHECK: wrote case transpose.three_d_swap_last (1 kernels, 1 launches)
// CHECK: wrote case transpose.three_d_reverse_f16 (1 kernels, 1 launches)
// CHECK: wrote case transpose.batch_outer_keeps_inner (1 kernels, 1 launches)

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

// The innermost dim stays in place: the template falls back to the loop.
func.func @batch_outer_keeps_inner(%a: tensor<6x9x130xf32>) -> tensor<9x6x130xf32> {
  %e = kiln.empty : tensor<9x6x130xf32>
  %r = kiln.kernel "transpose_102" transpose ins(%a : tensor<6x9x130xf32>) outs(%e : tensor<9x6x130xf32>) attributes {block_size = 256 : i64, elements_per_thread = 4 : i64, grid_size = 8 : i64} {
  ^bb0(%x: tensor<6x9x130xf32>, %o: tensor<9x6x130xf32>):
    %t = kiln.transpose %x {perm = array<i64: 1, 0, 2>} : tensor<6x9x130xf32> -> tensor<9x6x130xf32>
    kiln.yield %t : tensor<9x6x130xf32>
  } -> tensor<9x6x130xf32>
  return %r : tensor<9x6x130xf32>
}
