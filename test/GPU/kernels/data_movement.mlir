// GPU kernel tests: data_movement kernels (concat, slice, gather, expand)
// and casts, through the loop template.
// RUN: rm -rf %t && kiln-translate %s --kernel-test-bundle %t | FileCheck %s
// CHECK: wrote case data_movement.concat_three (1 kernels, 1 launches)
// CHECK: wrote case data_movement.slice_steps (1 kernels, 1 launches)
// CHECK: wrote case data_movement.gather_rows (1 kernels, 1 launches)
// CHECK: wrote case data_movement.expand_add (1 kernels, 1 launches)
// CHECK: wrote case data_movement.casts (1 kernels, 1 launches)
// CHECK: wrote case data_movement.position_bucket_tiled (1 kernels, 1 launches)

func.func @concat_three(%a: tensor<7x100xf32>, %b: tensor<7x1xf32>, %c: tensor<7x3000xf32>) -> tensor<7x3101xf32> {
  %e = kiln.empty : tensor<7x3101xf32>
  %r = kiln.kernel "concat" data_movement ins(%a, %b, %c : tensor<7x100xf32>, tensor<7x1xf32>, tensor<7x3000xf32>) outs(%e : tensor<7x3101xf32>) attributes {block_size = 256 : i64, grid_size = 22 : i64, elements_per_thread = 4 : i64} {
  ^bb0(%x: tensor<7x100xf32>, %y: tensor<7x1xf32>, %z: tensor<7x3000xf32>, %o: tensor<7x3101xf32>):
    %n = kiln.neg %y : tensor<7x1xf32> -> tensor<7x1xf32>
    %t = kiln.concat %x, %n, %z {axis = -1 : i64} : tensor<7x100xf32>, tensor<7x1xf32>, tensor<7x3000xf32> -> tensor<7x3101xf32>
    kiln.yield %t : tensor<7x3101xf32>
  } -> tensor<7x3101xf32>
  return %r : tensor<7x3101xf32>
}

// rows 1, 3, 5, ... (step 2) and columns from the end backwards (step -3).
func.func @slice_steps(%a: tensor<9x4097xf32>) -> tensor<4x1366xf32> {
  %e = kiln.empty : tensor<4x1366xf32>
  %r = kiln.kernel "slice" data_movement ins(%a : tensor<9x4097xf32>) outs(%e : tensor<4x1366xf32>) attributes {block_size = 128 : i64, grid_size = 43 : i64} {
  ^bb0(%x: tensor<9x4097xf32>, %o: tensor<4x1366xf32>):
    %starts = kiln.constant dense<[1, -1]> : tensor<2xi64>
    %ends = kiln.constant dense<[8, -5000]> : tensor<2xi64>
    %axes = kiln.constant dense<[0, 1]> : tensor<2xi64>
    %steps = kiln.constant dense<[2, -3]> : tensor<2xi64>
    %s = kiln.slice %x, %starts, %ends, %axes, %steps : tensor<9x4097xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64> -> tensor<4x1366xf32>
    kiln.yield %s : tensor<4x1366xf32>
  } -> tensor<4x1366xf32>
  return %r : tensor<4x1366xf32>
}

// Embedding lookup with negative indices (they count from the back).
func.func @gather_rows(%table: tensor<50x257xf32>, %ids: tensor<3x5xi64> {kiln.test_range = [-50, 49]}) -> tensor<3x5x257xf32> {
  %e = kiln.empty : tensor<3x5x257xf32>
  %r = kiln.kernel "embedding" data_movement ins(%table, %ids : tensor<50x257xf32>, tensor<3x5xi64>) outs(%e : tensor<3x5x257xf32>) attributes {block_size = 256 : i64, grid_size = 16 : i64} {
  ^bb0(%t: tensor<50x257xf32>, %i: tensor<3x5xi64>, %o: tensor<3x5x257xf32>):
    %g = kiln.gather %t, %i {axis = 0 : i64} : tensor<50x257xf32>, tensor<3x5xi64> -> tensor<3x5x257xf32>
    kiln.yield %g : tensor<3x5x257xf32>
  } -> tensor<3x5x257xf32>
  return %r : tensor<3x5x257xf32>
}

func.func @expand_add(%a: tensor<3x1x33xf32>, %b: tensor<5x1xf32>) -> tensor<3x5x33xf32> {
  %e = kiln.empty : tensor<3x5x33xf32>
  %r = kiln.kernel "expand" data_movement ins(%a, %b : tensor<3x1x33xf32>, tensor<5x1xf32>) outs(%e : tensor<3x5x33xf32>) attributes {block_size = 64 : i64, grid_size = 8 : i64} {
  ^bb0(%x: tensor<3x1x33xf32>, %y: tensor<5x1xf32>, %o: tensor<3x5x33xf32>):
    %shape = kiln.constant dense<[3, 5, 33]> : tensor<3xi64>
    %big = kiln.expand %x, %shape : tensor<3x1x33xf32>, tensor<3xi64> -> tensor<3x5x33xf32>
    %s = kiln.add %big, %y : tensor<3x5x33xf32>, tensor<5x1xf32> -> tensor<3x5x33xf32>
    kiln.yield %s : tensor<3x5x33xf32>
  } -> tensor<3x5x33xf32>
  return %r : tensor<3x5x33xf32>
}

// f32 -> f16, f32 -> i8 (truncated and saturated), i8 -> f32 and -> bool,
// combined into one f32 output.
func.func @casts(%a: tensor<4097xf32> {kiln.test_range = [-300.0, 300.0]}) -> tensor<4097xf32> {
  %e = kiln.empty : tensor<4097xf32>
  %r = kiln.kernel "casts" pointwise ins(%a : tensor<4097xf32>) outs(%e : tensor<4097xf32>) attributes {block_size = 128 : i64, grid_size = 33 : i64} {
  ^bb0(%x: tensor<4097xf32>, %o: tensor<4097xf32>):
    %h = kiln.cast %x {to = f16} : tensor<4097xf32> -> tensor<4097xf16>
    %hf = kiln.cast %h {to = f32} : tensor<4097xf16> -> tensor<4097xf32>
    %i = kiln.cast %x {to = i8} : tensor<4097xf32> -> tensor<4097xi8>
    %doubled = kiln.add %i, %i : tensor<4097xi8>, tensor<4097xi8> -> tensor<4097xi8>
    %if = kiln.cast %doubled {to = f32} : tensor<4097xi8> -> tensor<4097xf32>
    %s = kiln.add %hf, %if : tensor<4097xf32>, tensor<4097xf32> -> tensor<4097xf32>
    kiln.yield %s : tensor<4097xf32>
  } -> tensor<4097xf32>
  return %r : tensor<4097xf32>
}

// f32 index arithmetic before an f16 gather, as kiln-convert-precision
// leaves T5's relative-position bucket (bidirectional half: 16 buckets,
// max_exact 8, max_distance 128): the bucket of each distance in 1..127
// selects a row of an f16 table. log(n / 8) / log(16) * 8 is an integer at
// n = 16, 32 and 64; with log(16) as an f16 constant those distances fell
// one bucket low (the encoder's output then missed onnxruntime by 0.18).
func.func @position_bucket_tiled(%n: tensor<4096xi64> {kiln.test_range = [1, 127]}, %table: tensor<16x6xf16>) -> tensor<4096x6xf16> {
  %exact = kiln.constant dense<8> : tensor<i64>
  %last = kiln.constant dense<15> : tensor<i64>
  %eight = kiln.constant dense<8.0> : tensor<f32>
  %log16 = kiln.constant dense<2.77258873> : tensor<f32>
  %small = kiln.less %n, %exact : tensor<4096xi64>, tensor<i64> -> tensor<4096xi1>
  %f = kiln.cast %n {to = f32} : tensor<4096xi64> -> tensor<4096xf32>
  %ratio = kiln.div %f, %eight : tensor<4096xf32>, tensor<f32> -> tensor<4096xf32>
  %log = kiln.log %ratio : tensor<4096xf32> -> tensor<4096xf32>
  %fraction = kiln.div %log, %log16 : tensor<4096xf32>, tensor<f32> -> tensor<4096xf32>
  %scaled = kiln.mul %fraction, %eight : tensor<4096xf32>, tensor<f32> -> tensor<4096xf32>
  %offset = kiln.cast %scaled {to = i64} : tensor<4096xf32> -> tensor<4096xi64>
  %large = kiln.add %offset, %exact : tensor<4096xi64>, tensor<i64> -> tensor<4096xi64>
  %clamped = kiln.min %large, %last : tensor<4096xi64>, tensor<i64> -> tensor<4096xi64>
  %bucket = kiln.where %small, %n, %clamped : tensor<4096xi1>, tensor<4096xi64>, tensor<4096xi64> -> tensor<4096xi64>
  %rows = kiln.gather %table, %bucket : tensor<16x6xf16>, tensor<4096xi64> -> tensor<4096x6xf16>
  return %rows : tensor<4096x6xf16>
}
