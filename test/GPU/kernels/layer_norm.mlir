// GPU kernel tests: kiln.layer_norm as a row_reduce anchor with the residual
// and bias adds fused in front (one kernel, the row read once into
// registers), f32/f16/bf16, warp and block rows, vector widths 8, 4 and 1;
// log_softmax over the last axis on the softmax row template. Unfused
// functions go through kiln-fuse-kernels and kiln-tile-kernels.
// RUN: rm -rf %t && kiln-translate %s --kernel-test-bundle %t | FileCheck %s
// CHECK: wrote case layer_norm.f32_256x768 (1 kernels, 1 launches)
// CHECK: wrote case layer_norm.f16_1024x768 (1 kernels, 1 launches)
// CHECK: wrote case layer_norm.bf16_256x768 (1 kernels, 1 launches)
// CHECK: wrote case layer_norm.f16_64x4096 (1 kernels, 1 launches)
// CHECK: wrote case layer_norm.f16_64x1000 (1 kernels, 1 launches)
// CHECK: wrote case layer_norm.f32_200x77 (1 kernels, 1 launches)
// CHECK: wrote case layer_norm.f16_cast_f32_64x768 (1 kernels, 1 launches)
// CHECK: wrote case layer_norm.f32_2x70000_recomputed (1 kernels, 1 launches)
// CHECK: wrote case layer_norm.embedding_f16 (1 kernels, 1 launches)
// CHECK: wrote case layer_norm.log_softmax_f32_64x1000 (1 kernels, 1 launches)
// CHECK: wrote case layer_norm.log_softmax_f16_8x5000 (1 kernels, 1 launches)
// CHECK: wrote case layer_norm.swin_window_reverse_shift_f16
// CHECK: wrote case layer_norm.f16_channels_last_96 (1 kernels, 1 launches)

// BERT-base rows (256 of them; f16 below has all 1024: the bundle must stay
// under 64 MiB): one warp per row, vectors of 4, 6 per lane.
func.func @f32_256x768(%x: tensor<256x768xf32>, %b: tensor<768xf32>, %r: tensor<256x768xf32>, %g: tensor<768xf32>, %beta: tensor<768xf32>) -> tensor<256x768xf32> {
  %0 = kiln.add %x, %b : tensor<256x768xf32>, tensor<768xf32> -> tensor<256x768xf32>
  %1 = kiln.add %0, %r : tensor<256x768xf32>, tensor<256x768xf32> -> tensor<256x768xf32>
  %2 = kiln.layer_norm %1, %g, %beta {axis = -1 : i64, epsilon = 1.0e-05 : f32} : tensor<256x768xf32>, tensor<768xf32>, tensor<768xf32> -> tensor<256x768xf32>
  return %2 : tensor<256x768xf32>
}

// The same in f16 (vectors of 8); the CPU rounds the adds to f16, the GPU
// keeps them in float, hence the f16 tolerance.
func.func @f16_1024x768(%x: tensor<1024x768xf16>, %b: tensor<768xf16>, %r: tensor<1024x768xf16>, %g: tensor<768xf16>, %beta: tensor<768xf16>) -> tensor<1024x768xf16> {
  %0 = kiln.add %x, %b : tensor<1024x768xf16>, tensor<768xf16> -> tensor<1024x768xf16>
  %1 = kiln.add %0, %r : tensor<1024x768xf16>, tensor<1024x768xf16> -> tensor<1024x768xf16>
  %2 = kiln.layer_norm %1, %g, %beta {axis = -1 : i64, epsilon = 1.0e-05 : f32} : tensor<1024x768xf16>, tensor<768xf16>, tensor<768xf16> -> tensor<1024x768xf16>
  return %2 : tensor<1024x768xf16>
}

// bf16 storage, fp32 statistics.
func.func @bf16_256x768(%x: tensor<256x768xbf16>, %b: tensor<768xbf16>, %r: tensor<256x768xbf16>, %g: tensor<768xbf16>, %beta: tensor<768xbf16>) -> tensor<256x768xbf16> {
  %0 = kiln.add %x, %b : tensor<256x768xbf16>, tensor<768xbf16> -> tensor<256x768xbf16>
  %1 = kiln.add %0, %r : tensor<256x768xbf16>, tensor<256x768xbf16> -> tensor<256x768xbf16>
  %2 = kiln.layer_norm %1, %g, %beta {axis = -1 : i64, epsilon = 1.0e-05 : f32} : tensor<256x768xbf16>, tensor<768xbf16>, tensor<768xbf16> -> tensor<256x768xbf16>
  return %2 : tensor<256x768xbf16>
}

// The issue's microbenchmark row (16384x4096 f16 is 128 MiB a tensor, over
// the bundle limit; test/Target/CUDA/layer_norm.mlir emits that size): one
// block of 512 threads per row, one vector of 8 each.
func.func @f16_64x4096(%x: tensor<64x4096xf16>, %b: tensor<4096xf16>, %r: tensor<64x4096xf16>, %g: tensor<4096xf16>, %beta: tensor<4096xf16>) -> tensor<64x4096xf16> {
  %0 = kiln.add %x, %b : tensor<64x4096xf16>, tensor<4096xf16> -> tensor<64x4096xf16>
  %1 = kiln.add %0, %r : tensor<64x4096xf16>, tensor<64x4096xf16> -> tensor<64x4096xf16>
  %2 = kiln.layer_norm %1, %g, %beta {axis = -1 : i64, epsilon = 1.0e-05 : f32} : tensor<64x4096xf16>, tensor<4096xf16>, tensor<4096xf16> -> tensor<64x4096xf16>
  return %2 : tensor<64x4096xf16>
}

// Rows of 1000: 125 vectors of 8 over 32 lanes (a tail).
func.func @f16_64x1000(%x: tensor<64x1000xf16>, %b: tensor<1000xf16>, %r: tensor<64x1000xf16>, %g: tensor<1000xf16>, %beta: tensor<1000xf16>) -> tensor<64x1000xf16> {
  %0 = kiln.add %x, %b : tensor<64x1000xf16>, tensor<1000xf16> -> tensor<64x1000xf16>
  %1 = kiln.add %0, %r : tensor<64x1000xf16>, tensor<64x1000xf16> -> tensor<64x1000xf16>
  %2 = kiln.layer_norm %1, %g, %beta {axis = -1 : i64, epsilon = 1.0e-05 : f32} : tensor<64x1000xf16>, tensor<1000xf16>, tensor<1000xf16> -> tensor<64x1000xf16>
  return %2 : tensor<64x1000xf16>
}

// Rows of 77: no vectors (77 is odd), 3 elements per lane with a tail.
func.func @f32_200x77(%x: tensor<200x77xf32>, %b: tensor<77xf32>, %r: tensor<200x77xf32>, %g: tensor<77xf32>, %beta: tensor<77xf32>) -> tensor<200x77xf32> {
  %0 = kiln.add %x, %b : tensor<200x77xf32>, tensor<77xf32> -> tensor<200x77xf32>
  %1 = kiln.add %0, %r : tensor<200x77xf32>, tensor<200x77xf32> -> tensor<200x77xf32>
  %2 = kiln.layer_norm %1, %g, %beta {axis = -1 : i64, epsilon = 1.0e-05 : f32} : tensor<200x77xf32>, tensor<77xf32>, tensor<77xf32> -> tensor<200x77xf32>
  return %2 : tensor<200x77xf32>
}

// fp16 activations with fp32 LayerNorm: the casts fuse on both sides.
func.func @f16_cast_f32_64x768(%x: tensor<64x768xf16>, %r: tensor<64x768xf32>, %g: tensor<768xf32>, %beta: tensor<768xf32>) -> tensor<64x768xf16>
    attributes {kiln.test_tolerance = [1.0e-2, 1.0e-2]} {
  %0 = kiln.cast %x {to = f32} : tensor<64x768xf16> -> tensor<64x768xf32>
  %1 = kiln.add %0, %r : tensor<64x768xf32>, tensor<64x768xf32> -> tensor<64x768xf32>
  %2 = kiln.layer_norm %1, %g, %beta {axis = -1 : i64, epsilon = 1.0e-05 : f32} : tensor<64x768xf32>, tensor<768xf32>, tensor<768xf32> -> tensor<64x768xf32>
  %3 = kiln.cast %2 {to = f16} : tensor<64x768xf32> -> tensor<64x768xf16>
  return %3 : tensor<64x768xf16>
}

// Rows longer than the registers hold (18 vectors of 4 per thread): the
// prologue is recomputed in each pass; no bias, a relu epilogue.
func.func @f32_2x70000_recomputed(%x: tensor<2x70000xf32>, %r: tensor<2x70000xf32>, %g: tensor<70000xf32>) -> tensor<2x70000xf32> {
  %0 = kiln.add %x, %r : tensor<2x70000xf32>, tensor<2x70000xf32> -> tensor<2x70000xf32>
  %1 = kiln.layer_norm %0, %g {axis = 1 : i64, epsilon = 1.0e-05 : f32} : tensor<2x70000xf32>, tensor<70000xf32> -> tensor<2x70000xf32>
  %2 = kiln.relu %1 : tensor<2x70000xf32> -> tensor<2x70000xf32>
  return %2 : tensor<2x70000xf32>
}

// BERT's embedding: gathered rows plus positions, then LayerNorm; the token
// ids (i64, read per row) do not narrow the vectors of 8.
func.func @embedding_f16(%ids: tensor<4x16xi64> {kiln.test_range = [0, 49]}, %table: tensor<50x768xf16>, %pos: tensor<16x768xf16>, %g: tensor<768xf16>, %beta: tensor<768xf16>) -> tensor<4x16x768xf16> {
  %0 = kiln.gather %table, %ids {axis = 0 : i64} : tensor<50x768xf16>, tensor<4x16xi64> -> tensor<4x16x768xf16>
  %1 = kiln.add %0, %pos : tensor<4x16x768xf16>, tensor<16x768xf16> -> tensor<4x16x768xf16>
  %2 = kiln.layer_norm %1, %g, %beta {axis = -1 : i64, epsilon = 1.0e-12 : f32} : tensor<4x16x768xf16>, tensor<768xf16>, tensor<768xf16> -> tensor<4x16x768xf16>
  return %2 : tensor<4x16x768xf16>
}

func.func @log_softmax_f32_64x1000(%x: tensor<64x1000xf32>) -> tensor<64x1000xf32> {
  %0 = kiln.log_softmax %x {axis = -1 : i64} : tensor<64x1000xf32> -> tensor<64x1000xf32>
  return %0 : tensor<64x1000xf32>
}

func.func @log_softmax_f16_8x5000(%x: tensor<8x5000xf16>) -> tensor<8x5000xf16> {
  %0 = kiln.log_softmax %x {axis = 1 : i64} : tensor<8x5000xf16> -> tensor<8x5000xf16>
  return %0 : tensor<8x5000xf16>
}

// Swin's block end: the projection's bias added to the windows [B x
// windows, 16, C], which are put back in place (reshape, transpose,
// reshape: the static reshapes index by regrouped dims) and rolled back by
// 2 along H and W (slices and concats), LayerNorm over C and the residual
// add, fused into one row kernel. The bias is read as a vector under each
// of the roll's branches (declared in each).
func.func @swin_window_reverse_shift_f16(%w: tensor<8x16x16xf16>, %bias: tensor<16xf16>, %r: tensor<2x8x8x16xf16>, %g: tensor<16xf16>, %beta: tensor<16xf16>) -> tensor<2x8x8x16xf16> {
  %s6 = kiln.constant dense<[2, 2, 2, 4, 4, 16]> : tensor<6xi64>
  %s4 = kiln.constant dense<[2, 8, 8, 16]> : tensor<4xi64>
  %minus2 = kiln.constant dense<-2> : tensor<1xi64>
  %zero = kiln.constant dense<0> : tensor<1xi64>
  %end = kiln.constant dense<9223372036854775807> : tensor<1xi64>
  %one = kiln.constant dense<1> : tensor<1xi64>
  %two = kiln.constant dense<2> : tensor<1xi64>
  %wb = kiln.add %bias, %w : tensor<16xf16>, tensor<8x16x16xf16> -> tensor<8x16x16xf16>
  %0 = kiln.reshape %wb, %s6 : tensor<8x16x16xf16>, tensor<6xi64> -> tensor<2x2x2x4x4x16xf16>
  %1 = kiln.transpose %0 {perm = array<i64: 0, 1, 3, 2, 4, 5>} : tensor<2x2x2x4x4x16xf16> -> tensor<2x2x4x2x4x16xf16>
  %2 = kiln.reshape %1, %s4 : tensor<2x2x4x2x4x16xf16>, tensor<4xi64> -> tensor<2x8x8x16xf16>
  %3 = kiln.slice %2, %minus2, %end, %one, %one : tensor<2x8x8x16xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<2x2x8x16xf16>
  %4 = kiln.slice %2, %zero, %minus2, %one, %one : tensor<2x8x8x16xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<2x6x8x16xf16>
  %5 = kiln.concat %3, %4 {axis = 1 : i64} : tensor<2x2x8x16xf16>, tensor<2x6x8x16xf16> -> tensor<2x8x8x16xf16>
  %6 = kiln.slice %5, %minus2, %end, %two, %one : tensor<2x8x8x16xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<2x8x2x16xf16>
  %7 = kiln.slice %5, %zero, %minus2, %two, %one : tensor<2x8x8x16xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<2x8x6x16xf16>
  %8 = kiln.concat %6, %7 {axis = 2 : i64} : tensor<2x8x2x16xf16>, tensor<2x8x6x16xf16> -> tensor<2x8x8x16xf16>
  %9 = kiln.layer_norm %8, %g, %beta {axis = -1 : i64, epsilon = 1.0e-5 : f32} : tensor<2x8x8x16xf16>, tensor<16xf16>, tensor<16xf16> -> tensor<2x8x8x16xf16>
  %10 = kiln.add %r, %9 : tensor<2x8x8x16xf16>, tensor<2x8x8x16xf16> -> tensor<2x8x8x16xf16>
  return %10 : tensor<2x8x8x16xf16>
}

// A channels-last LayerNorm over 96 channels (ConvNeXt's and Swin's first
// stage): 12 vectors of 8 a row, 16 lanes each (the last 4 idle), 2 rows a
// warp.
func.func @f16_channels_last_96(%x: tensor<2x6x6x96xf16>, %g: tensor<96xf16>, %beta: tensor<96xf16>) -> tensor<2x6x6x96xf16> {
  %0 = kiln.layer_norm %x, %g, %beta {axis = -1 : i64, epsilon = 1.0e-06 : f32} : tensor<2x6x6x96xf16>, tensor<96xf16>, tensor<96xf16> -> tensor<2x6x6x96xf16>
  return %0 : tensor<2x6x6x96xf16>
}
