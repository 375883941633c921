// GPU kernel tests: f32 pointwise chains with broadcasting, 4097-element
// tails, scalar and vectorised loops (whole and partial steps, tails),
// hand-tiled and through the kernel pipeline.
// RUN: rm -rf %t && kiln-translate %s --kernel-test-bundle %t | FileCheck %s
// CHECK: wrote case pointwise_f32.add_relu_broadcast (1 kernels, 1 launches)
// CHECK: wrote case pointwise_f32.sigmoid_chain_scalar (1 kernels, 1 launches)
// CHECK: wrote case pointwise_f32.vectorised (1 kernels, 1 launches)
// CHECK: wrote case pointwise_f32.two_kernels (2 kernels, 2 launches)
// CHECK: wrote case pointwise_f32.vector_steps_tail (1 kernels, 1 launches)
// CHECK: wrote case pointwise_f32.cast_tail_tiled (1 kernels, 1 launches)
// CHECK: wrote case pointwise_f32.row_broadcast_tiled (1 kernels, 1 launches)

func.func @add_relu_broadcast(%a: tensor<8x4097xf32>, %b: tensor<4097xf32>) -> tensor<8x4097xf32> {
  %e = kiln.empty : tensor<8x4097xf32>
  %r = kiln.kernel "add_relu" pointwise ins(%a, %b : tensor<8x4097xf32>, tensor<4097xf32>) outs(%e : tensor<8x4097xf32>) attributes {block_size = 256 : i64, grid_size = 33 : i64, elements_per_thread = 4 : i64, vector_width = 1 : i64} {
  ^bb0(%x: tensor<8x4097xf32>, %y: tensor<4097xf32>, %o: tensor<8x4097xf32>):
    %s = kiln.add %x, %y : tensor<8x4097xf32>, tensor<4097xf32> -> tensor<8x4097xf32>
    %t = kiln.relu %s : tensor<8x4097xf32> -> tensor<8x4097xf32>
    kiln.yield %t : tensor<8x4097xf32>
  } -> tensor<8x4097xf32>
  return %r : tensor<8x4097xf32>
}

// A column broadcast (8x1), a scalar input and an in-kernel splat constant.
func.func @sigmoid_chain_scalar(%a: tensor<8x4097xf32>, %b: tensor<8x1xf32>, %s: tensor<f32>) -> tensor<8x4097xf32> {
  %e = kiln.empty : tensor<8x4097xf32>
  %r = kiln.kernel "sigmoid_chain" pointwise ins(%a, %b, %s : tensor<8x4097xf32>, tensor<8x1xf32>, tensor<f32>) outs(%e : tensor<8x4097xf32>) attributes {block_size = 128 : i64, grid_size = 7 : i64, elements_per_thread = 1 : i64} {
  ^bb0(%x: tensor<8x4097xf32>, %y: tensor<8x1xf32>, %z: tensor<f32>, %o: tensor<8x4097xf32>):
    %half = kiln.constant dense<0.5> : tensor<f32>
    %m = kiln.mul %x, %y : tensor<8x4097xf32>, tensor<8x1xf32> -> tensor<8x4097xf32>
    %d = kiln.div %m, %z : tensor<8x4097xf32>, tensor<f32> -> tensor<8x4097xf32>
    %g = kiln.sigmoid %d : tensor<8x4097xf32> -> tensor<8x4097xf32>
    %h = kiln.sub %g, %half : tensor<8x4097xf32>, tensor<f32> -> tensor<8x4097xf32>
    %t = kiln.tanh %h : tensor<8x4097xf32> -> tensor<8x4097xf32>
    %n = kiln.neg %x : tensor<8x4097xf32> -> tensor<8x4097xf32>
    %ex = kiln.exp %n : tensor<8x4097xf32> -> tensor<8x4097xf32>
    %w = kiln.add %t, %ex : tensor<8x4097xf32>, tensor<8x4097xf32> -> tensor<8x4097xf32>
    kiln.yield %w : tensor<8x4097xf32>
  } -> tensor<8x4097xf32>
  return %r : tensor<8x4097xf32>
}

// vector_width 4: 16-byte loads of the same-shape inputs, scalar read of %s.
func.func @vectorised(%a: tensor<16x4096xf32>, %b: tensor<16x4096xf32>, %s: tensor<1xf32>) -> tensor<16x4096xf32> {
  %e = kiln.empty : tensor<16x4096xf32>
  %r = kiln.kernel "fma_abs" pointwise ins(%a, %b, %s : tensor<16x4096xf32>, tensor<16x4096xf32>, tensor<1xf32>) outs(%e : tensor<16x4096xf32>) attributes {block_size = 256 : i64, grid_size = 32 : i64, elements_per_thread = 2 : i64, vector_width = 4 : i64} {
  ^bb0(%x: tensor<16x4096xf32>, %y: tensor<16x4096xf32>, %z: tensor<1xf32>, %o: tensor<16x4096xf32>):
    %m = kiln.mul %x, %z : tensor<16x4096xf32>, tensor<1xf32> -> tensor<16x4096xf32>
    %s2 = kiln.add %m, %y : tensor<16x4096xf32>, tensor<16x4096xf32> -> tensor<16x4096xf32>
    %t = kiln.abs %s2 : tensor<16x4096xf32> -> tensor<16x4096xf32>
    %q = kiln.sqrt %t : tensor<16x4096xf32> -> tensor<16x4096xf32>
    kiln.yield %q : tensor<16x4096xf32>
  } -> tensor<16x4096xf32>
  return %r : tensor<16x4096xf32>
}

// Two launches through a view outside the kernels (reshape is an alias).
func.func @two_kernels(%a: tensor<4x4097xf32>) -> tensor<4097x4xf32> {
  %e = kiln.empty : tensor<4x4097xf32>
  %r = kiln.kernel "erf" pointwise ins(%a : tensor<4x4097xf32>) outs(%e : tensor<4x4097xf32>) attributes {block_size = 256 : i64, grid_size = 65 : i64} {
  ^bb0(%x: tensor<4x4097xf32>, %o: tensor<4x4097xf32>):
    %t = kiln.erf %x : tensor<4x4097xf32> -> tensor<4x4097xf32>
    kiln.yield %t : tensor<4x4097xf32>
  } -> tensor<4x4097xf32>
  %shape = kiln.constant dense<[4097, 4]> : tensor<2xi64>
  %v = kiln.reshape %r, %shape : tensor<4x4097xf32>, tensor<2xi64> -> tensor<4097x4xf32>
  %e2 = kiln.empty : tensor<4097x4xf32>
  %r2 = kiln.kernel "reciprocal" pointwise ins(%v : tensor<4097x4xf32>) outs(%e2 : tensor<4097x4xf32>) attributes {block_size = 128 : i64, grid_size = 129 : i64} {
  ^bb0(%x: tensor<4097x4xf32>, %o: tensor<4097x4xf32>):
    %t = kiln.reciprocal %x : tensor<4097x4xf32> -> tensor<4097x4xf32>
    kiln.yield %t : tensor<4097x4xf32>
  } -> tensor<4097x4xf32>
  return %r2 : tensor<4097x4xf32>
}

// Vectors of 4, 4 per thread, over 3 blocks of 64 threads: a whole step, a
// partial step (one block's threads split between both loops, one block
// idle) and 3 elements after the last vector (4995 = 1248 * 4 + 3).
func.func @vector_steps_tail(%a: tensor<5x999xf32>, %b: tensor<5x999xf32>, %s: tensor<f32>) -> tensor<5x999xf32> {
  %e = kiln.empty : tensor<5x999xf32>
  %r = kiln.kernel "sigmoid_mix" pointwise ins(%a, %b, %s : tensor<5x999xf32>, tensor<5x999xf32>, tensor<f32>) outs(%e : tensor<5x999xf32>) attributes {block_size = 64 : i64, grid_size = 3 : i64, elements_per_thread = 4 : i64, vector_width = 4 : i64} {
  ^bb0(%x: tensor<5x999xf32>, %y: tensor<5x999xf32>, %z: tensor<f32>, %o: tensor<5x999xf32>):
    %m = kiln.mul %x, %z : tensor<5x999xf32>, tensor<f32> -> tensor<5x999xf32>
    %g = kiln.sigmoid %m : tensor<5x999xf32> -> tensor<5x999xf32>
    %w = kiln.sub %g, %y : tensor<5x999xf32>, tensor<5x999xf32> -> tensor<5x999xf32>
    kiln.yield %w : tensor<5x999xf32>
  } -> tensor<5x999xf32>
  return %r : tensor<5x999xf32>
}

// Through the kernel pipeline: f32 to f16 takes vectors of 4 (16 bytes read,
// 8 written) with a tail of 3; a row broadcast keeps the scalar loop.
func.func @cast_tail_tiled(%x: tensor<5x999xf32>, %s: tensor<f32>) -> tensor<5x999xf16> {
  %m = kiln.mul %x, %s : tensor<5x999xf32>, tensor<f32> -> tensor<5x999xf32>
  %g = kiln.sigmoid %m : tensor<5x999xf32> -> tensor<5x999xf32>
  %c = kiln.cast %g {to = f16} : tensor<5x999xf32> -> tensor<5x999xf16>
  return %c : tensor<5x999xf16>
}

func.func @row_broadcast_tiled(%x: tensor<16x1000xf32>, %b: tensor<1000xf32>) -> tensor<16x1000xf32> {
  %s = kiln.mul %x, %b : tensor<16x1000xf32>, tensor<1000xf32> -> tensor<16x1000xf32>
  %t = kiln.sigmoid %s : tensor<16x1000xf32> -> tensor<16x1000xf32>
  return %t : tensor<16x1000xf32>
}
