// Kernels whose tiling attributes the CUDA templates cannot honour.
func.func @too_many_threads(%a: tensor<64xf32>) -> tensor<64xf32> {
  %e = kiln.empty : tensor<64xf32>
  %r = kiln.kernel "big_block" pointwise ins(%a : tensor<64xf32>) outs(%e : tensor<64xf32>) attributes {block_size = 2048 : i64, grid_size = 1 : i64} {
  ^bb0(%x: tensor<64xf32>, %o: tensor<64xf32>):
    kiln.yield %x : tensor<64xf32>
  } -> tensor<64xf32>
  return %r : tensor<64xf32>
}

func.func @vector_too_wide(%a: tensor<6xf32>) -> tensor<6xf32> {
  %e = kiln.empty : tensor<6xf32>
  %r = kiln.kernel "wide_vector" pointwise ins(%a : tensor<6xf32>) outs(%e : tensor<6xf32>) attributes {block_size = 32 : i64, grid_size = 1 : i64, vector_width = 8 : i64} {
  ^bb0(%x: tensor<6xf32>, %o: tensor<6xf32>):
    kiln.yield %x : tensor<6xf32>
  } -> tensor<6xf32>
  return %r : tensor<6xf32>
}

func.func @untiled(%a: tensor<6xf32>) -> tensor<6xf32> {
  %e = kiln.empty : tensor<6xf32>
  %r = kiln.kernel "untiled" pointwise ins(%a : tensor<6xf32>) outs(%e : tensor<6xf32>) {
  ^bb0(%x: tensor<6xf32>, %o: tensor<6xf32>):
    kiln.yield %x : tensor<6xf32>
  } -> tensor<6xf32>
  return %r : tensor<6xf32>
}

func.func @warp_mismatch(%a: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %e = kiln.empty : tensor<4x64xf32>
  %r = kiln.kernel "warp_rows" row_reduce ins(%a : tensor<4x64xf32>) outs(%e : tensor<4x64xf32>) attributes {block_size = 96 : i64, grid_size = 1 : i64, rows_per_block = 2 : i64} {
  ^bb0(%x: tensor<4x64xf32>, %o: tensor<4x64xf32>):
    %s = kiln.softmax %x : tensor<4x64xf32> -> tensor<4x64xf32>
    kiln.yield %s : tensor<4x64xf32>
  } -> tensor<4x64xf32>
  return %r : tensor<4x64xf32>
}
