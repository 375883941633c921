// GPU kernel tests: bf16 pointwise chains (computed in float, stored as bf16),
// vectorised (8 x 2 bytes = 16-byte accesses) and scalar with tails.
// RUN: rm -rf %t && kiln-translate %s --kernel-test-bundle %t | FileCheck %s
// CHECK: wrote case pointwise_bf16.vectorised (1 kernels, 1 launches)
// CHECK: wrote case pointwise_bf16.broadcast_tail (1 kernels, 1 launches)

func.func @vectorised(%a: tensor<8x4096xbf16>, %b: tensor<8x4096xbf16>) -> tensor<8x4096xbf16> {
  %e = kiln.empty : tensor<8x4096xbf16>
  %r = kiln.kernel "gelu_like" pointwise ins(%a, %b : tensor<8x4096xbf16>, tensor<8x4096xbf16>) outs(%e : tensor<8x4096xbf16>) attributes {block_size = 256 : i64, grid_size = 16 : i64, elements_per_thread = 1 : i64, vector_width = 8 : i64} {
  ^bb0(%x: tensor<8x4096xbf16>, %y: tensor<8x4096xbf16>, %o: tensor<8x4096xbf16>):
    %k = kiln.constant dense<0.70710678> : tensor<bf16>
    %s = kiln.mul %x, %k : tensor<8x4096xbf16>, tensor<bf16> -> tensor<8x4096xbf16>
    %f = kiln.erf %s : tensor<8x4096xbf16> -> tensor<8x4096xbf16>
    %g = kiln.mul %f, %y : tensor<8x4096xbf16>, tensor<8x4096xbf16> -> tensor<8x4096xbf16>
    kiln.yield %g : tensor<8x4096xbf16>
  } -> tensor<8x4096xbf16>
  return %r : tensor<8x4096xbf16>
}

func.func @broadcast_tail(%a: tensor<3x4097xbf16>, %b: tensor<1x4097xbf16>) -> tensor<3x4097xbf16> {
  %e = kiln.empty : tensor<3x4097xbf16>
  %r = kiln.kernel "sub_max" pointwise ins(%a, %b : tensor<3x4097xbf16>, tensor<1x4097xbf16>) outs(%e : tensor<3x4097xbf16>) attributes {block_size = 256 : i64, grid_size = 13 : i64, elements_per_thread = 4 : i64} {
  ^bb0(%x: tensor<3x4097xbf16>, %y: tensor<1x4097xbf16>, %o: tensor<3x4097xbf16>):
    %s = kiln.sub %x, %y : tensor<3x4097xbf16>, tensor<1x4097xbf16> -> tensor<3x4097xbf16>
    %l = kiln.less %s, %y : tensor<3x4097xbf16>, tensor<1x4097xbf16> -> tensor<3x4097xi1>
    %w = kiln.where %l, %s, %x : tensor<3x4097xi1>, tensor<3x4097xbf16>, tensor<3x4097xbf16> -> tensor<3x4097xbf16>
    kiln.yield %w : tensor<3x4097xbf16>
  } -> tensor<3x4097xbf16>
  return %r : tensor<3x4097xbf16>
}
