// GPU kernel tests: data movement that keeps the innermost dim's runs, read
// and written by 16-byte vectors (kiln-tile-kernels' innermostRunOfMovement;
// the loop template's path vectors): Swin's head split (bias add, then a
// transpose keeping d last), its window partition (pad of H and W, then a
// transpose keeping C last), the shifted windows' roll (slices and concats
// of H and W) before the partition, a channel slice, and a patch embedding's
// im2col (a cast and a transpose keeping the patch's columns last); and two
// concats of computed pieces along channels (the patch merge, a fire
// module) that stay element by element.
// RUN: rm -rf %t && kiln-translate %s --kernel-test-bundle %t | FileCheck %s
// CHECK: wrote case movement_vectors.head_split_tiled (1 kernels, 1 launches)
// CHECK: wrote case movement_vectors.head_split_large_tiled (1 kernels, 1 launches)
// CHECK: wrote case movement_vectors.window_partition_pad_tiled (1 kernels, 1 launches)
// CHECK: wrote case movement_vectors.roll_pad_partition_tiled (1 kernels, 1 launches)
// CHECK: wrote case movement_vectors.patch_merge_tiled (1 kernels, 1 launches)
// CHECK: wrote case movement_vectors.channel_slice_relu_tiled (1 kernels, 1 launches)
// CHECK: wrote case movement_vectors.patch_im2col_tiled (1 kernels, 1 launches)
// CHECK: wrote case movement_vectors.odd_rows_transpose_tiled (1 kernels, 1 launches)
// CHECK: wrote case movement_vectors.fire_concat_tiled (1 kernels, 1 launches)
// CHECK: wrote case movement_vectors.channel_shuffle_tiled (1 kernels, 1 launches)
// CHECK: wrote case movement_vectors.gated_halves_tiled (1 kernels, 1 launches)
// CHECK: wrote case movement_vectors.stat_unsqueeze_tiled (1 kernels, 1 launches)
// CHECK: wrote case movement_vectors.row_view_tiled (1 kernels, 1 launches)
// CHECK: wrote case movement_vectors.batch_norm_cw_tiled (1 kernels, 1 launches)

// [windows, tokens, 3 * heads * d] + bias -> [3, windows, heads, tokens, d].
func.func @head_split_tiled(%x: tensor<32x16x96xf16>, %b: tensor<96xf16>) -> tensor<3x32x2x16x16xf16> {
  %a = kiln.add %x, %b : tensor<32x16x96xf16>, tensor<96xf16> -> tensor<32x16x96xf16>
  %shape = kiln.constant dense<[32, 16, 3, 2, 16]> : tensor<5xi64>
  %r = kiln.reshape %a, %shape : tensor<32x16x96xf16>, tensor<5xi64> -> tensor<32x16x3x2x16xf16>
  %t = kiln.transpose %r {perm = array<i64: 2, 0, 3, 1, 4>} : tensor<32x16x3x2x16xf16> -> tensor<3x32x2x16x16xf16>
  return %t : tensor<3x32x2x16x16xf16>
}

// The same at 1.6M elements: 4 vectors a thread (elements_per_thread).
func.func @head_split_large_tiled(%x: tensor<256x64x96xf16>, %b: tensor<96xf16>) -> tensor<3x256x2x64x16xf16> {
  %a = kiln.add %x, %b : tensor<256x64x96xf16>, tensor<96xf16> -> tensor<256x64x96xf16>
  %shape = kiln.constant dense<[256, 64, 3, 2, 16]> : tensor<5xi64>
  %r = kiln.reshape %a, %shape : tensor<256x64x96xf16>, tensor<5xi64> -> tensor<256x64x3x2x16xf16>
  %t = kiln.transpose %r {perm = array<i64: 2, 0, 3, 1, 4>} : tensor<256x64x3x2x16xf16> -> tensor<3x256x2x64x16xf16>
  return %t : tensor<3x256x2x64x16xf16>
}

// [B, 14, 14, C] padded to [B, 16, 16, C], then 4x4 windows of 4x4 pixels.
func.func @window_partition_pad_tiled(%x: tensor<2x14x14x32xf16>) -> tensor<2x4x4x4x4x32xf16> {
  %pads = kiln.constant dense<[0, 0, 0, 0, 0, 2, 2, 0]> : tensor<8xi64>
  %p = kiln.pad %x, %pads {mode = "constant"} : tensor<2x14x14x32xf16>, tensor<8xi64> -> tensor<2x16x16x32xf16>
  %shape = kiln.constant dense<[2, 4, 4, 4, 4, 32]> : tensor<6xi64>
  %r = kiln.reshape %p, %shape : tensor<2x16x16x32xf16>, tensor<6xi64> -> tensor<2x4x4x4x4x32xf16>
  %t = kiln.transpose %r {perm = array<i64: 0, 1, 3, 2, 4, 5>} : tensor<2x4x4x4x4x32xf16> -> tensor<2x4x4x4x4x32xf16>
  return %t : tensor<2x4x4x4x4x32xf16>
}

// torch.roll(x, (-2, -2), (1, 2)) as slices and concats, padded, partitioned.
func.func @roll_pad_partition_tiled(%x: tensor<2x14x14x32xf16>) -> tensor<2x4x4x4x4x32xf16> {
  %zero = kiln.constant dense<0> : tensor<1xi64>
  %two = kiln.constant dense<2> : tensor<1xi64>
  %end = kiln.constant dense<14> : tensor<1xi64>
  %h = kiln.constant dense<1> : tensor<1xi64>
  %w = kiln.constant dense<2> : tensor<1xi64>
  %one = kiln.constant dense<1> : tensor<1xi64>
  %h0 = kiln.slice %x, %two, %end, %h, %one : tensor<2x14x14x32xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<2x12x14x32xf16>
  %h1 = kiln.slice %x, %zero, %two, %h, %one : tensor<2x14x14x32xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<2x2x14x32xf16>
  %rh = kiln.concat %h0, %h1 {axis = 1 : i64} : tensor<2x12x14x32xf16>, tensor<2x2x14x32xf16> -> tensor<2x14x14x32xf16>
  %w0 = kiln.slice %rh, %two, %end, %w, %one : tensor<2x14x14x32xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<2x14x12x32xf16>
  %w1 = kiln.slice %rh, %zero, %two, %w, %one : tensor<2x14x14x32xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<2x14x2x32xf16>
  %rw = kiln.concat %w0, %w1 {axis = 2 : i64} : tensor<2x14x12x32xf16>, tensor<2x14x2x32xf16> -> tensor<2x14x14x32xf16>
  %pads = kiln.constant dense<[0, 0, 0, 0, 0, 2, 2, 0]> : tensor<8xi64>
  %p = kiln.pad %rw, %pads {mode = "constant"} : tensor<2x14x14x32xf16>, tensor<8xi64> -> tensor<2x16x16x32xf16>
  %shape = kiln.constant dense<[2, 4, 4, 4, 4, 32]> : tensor<6xi64>
  %r = kiln.reshape %p, %shape : tensor<2x16x16x32xf16>, tensor<6xi64> -> tensor<2x4x4x4x4x32xf16>
  %t = kiln.transpose %r {perm = array<i64: 0, 1, 3, 2, 4, 5>} : tensor<2x4x4x4x4x32xf16> -> tensor<2x4x4x4x4x32xf16>
  return %t : tensor<2x4x4x4x4x32xf16>
}

// Swin's patch merge: the residual add, then x[:, 0::2, 0::2], x[:, 1::2,
// 0::2], x[:, 0::2, 1::2], x[:, 1::2, 1::2] concatenated along channels: a
// concat of computed pieces along the innermost dim, which stays element by
// element (a warp's vectors would span several pieces, each lane choosing
// its own: 2.5x slower on the H100).
func.func @patch_merge_tiled(%x: tensor<2x16x16x32xf16>, %y: tensor<2x16x16x32xf16>) -> tensor<2x8x8x128xf16> {
  %a = kiln.add %x, %y : tensor<2x16x16x32xf16>, tensor<2x16x16x32xf16> -> tensor<2x16x16x32xf16>
  %s00 = kiln.constant dense<[0, 0]> : tensor<2xi64>
  %s10 = kiln.constant dense<[1, 0]> : tensor<2xi64>
  %s01 = kiln.constant dense<[0, 1]> : tensor<2xi64>
  %s11 = kiln.constant dense<[1, 1]> : tensor<2xi64>
  %ends = kiln.constant dense<[16, 16]> : tensor<2xi64>
  %axes = kiln.constant dense<[1, 2]> : tensor<2xi64>
  %steps = kiln.constant dense<[2, 2]> : tensor<2xi64>
  %x0 = kiln.slice %a, %s00, %ends, %axes, %steps : tensor<2x16x16x32xf16>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64> -> tensor<2x8x8x32xf16>
  %x1 = kiln.slice %a, %s10, %ends, %axes, %steps : tensor<2x16x16x32xf16>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64> -> tensor<2x8x8x32xf16>
  %x2 = kiln.slice %a, %s01, %ends, %axes, %steps : tensor<2x16x16x32xf16>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64> -> tensor<2x8x8x32xf16>
  %x3 = kiln.slice %a, %s11, %ends, %axes, %steps : tensor<2x16x16x32xf16>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64> -> tensor<2x8x8x32xf16>
  %c = kiln.concat %x0, %x1, %x2, %x3 {axis = 3 : i64} : tensor<2x8x8x32xf16>, tensor<2x8x8x32xf16>, tensor<2x8x8x32xf16>, tensor<2x8x8x32xf16> -> tensor<2x8x8x128xf16>
  return %c : tensor<2x8x8x128xf16>
}

// Channels [512, 1024) of [1, 7, 7, 2048], through a relu.
func.func @channel_slice_relu_tiled(%x: tensor<1x7x7x2048xf16>) -> tensor<1x7x7x512xf16> {
  %start = kiln.constant dense<512> : tensor<1xi64>
  %end = kiln.constant dense<1024> : tensor<1xi64>
  %axis = kiln.constant dense<3> : tensor<1xi64>
  %one = kiln.constant dense<1> : tensor<1xi64>
  %s = kiln.slice %x, %start, %end, %axis, %one : tensor<1x7x7x2048xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<1x7x7x512xf16>
  %r = kiln.relu %s : tensor<1x7x7x512xf16> -> tensor<1x7x7x512xf16>
  return %r : tensor<1x7x7x512xf16>
}

// A 4x4 patch embedding's im2col of an f32 image into f16 rows: runs of 4
// columns (vectors of 4 f32 read, 4 f16 written).
func.func @patch_im2col_tiled(%x: tensor<2x3x64x64xf32>) -> tensor<2x16x16x3x4x4xf16> {
  %shape = kiln.constant dense<[2, 3, 16, 4, 16, 4]> : tensor<6xi64>
  %r = kiln.reshape %x, %shape : tensor<2x3x64x64xf32>, tensor<6xi64> -> tensor<2x3x16x4x16x4xf32>
  %t = kiln.transpose %r {perm = array<i64: 0, 2, 4, 1, 3, 5>} : tensor<2x3x16x4x16x4xf32> -> tensor<2x16x16x3x4x4xf32>
  %c = kiln.cast %t {to = f16} : tensor<2x16x16x3x4x4xf32> -> tensor<2x16x16x3x4x4xf16>
  return %c : tensor<2x16x16x3x4x4xf16>
}

// An innermost dim of 3 keeps no vector: element by element, as before.
func.func @odd_rows_transpose_tiled(%x: tensor<5x7x3xf16>, %y: tensor<7x5x3xf16>) -> tensor<7x5x3xf16> {
  %t = kiln.transpose %x {perm = array<i64: 1, 0, 2>} : tensor<5x7x3xf16> -> tensor<7x5x3xf16>
  %a = kiln.add %t, %y : tensor<7x5x3xf16>, tensor<7x5x3xf16> -> tensor<7x5x3xf16>
  return %a : tensor<7x5x3xf16>
}

// SqueezeNet's fire module: the relus of two expand convs concatenated
// along channels (pieces of 64, not kernel inputs: element by element, as
// the patch merge).
func.func @fire_concat_tiled(%a: tensor<2x15x15x64xf16>, %b: tensor<2x15x15x64xf16>) -> tensor<2x15x15x128xf16> {
  %ra = kiln.relu %a : tensor<2x15x15x64xf16> -> tensor<2x15x15x64xf16>
  %rb = kiln.relu %b : tensor<2x15x15x64xf16> -> tensor<2x15x15x64xf16>
  %c = kiln.concat %ra, %rb {axis = 3 : i64} : tensor<2x15x15x64xf16>, tensor<2x15x15x64xf16> -> tensor<2x15x15x128xf16>
  return %c : tensor<2x15x15x128xf16>
}

// ShuffleNet-V2's split, concat and channel shuffle on [N, C, H, W]: halves
// of dim 1 concatenated, viewed as [N, 2, C/2, H, W], dims 1 and 2 swapped.
func.func @channel_shuffle_tiled(%x: tensor<2x48x8x8xf16>, %y: tensor<2x24x8x8xf16>) -> tensor<2x24x2x8x8xf16> {
  %zero = kiln.constant dense<0> : tensor<1xi64>
  %half = kiln.constant dense<24> : tensor<1xi64>
  %axis = kiln.constant dense<1> : tensor<1xi64>
  %one = kiln.constant dense<1> : tensor<1xi64>
  %s = kiln.slice %x, %zero, %half, %axis, %one : tensor<2x48x8x8xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<2x24x8x8xf16>
  %c = kiln.concat %s, %y {axis = 1 : i64} : tensor<2x24x8x8xf16>, tensor<2x24x8x8xf16> -> tensor<2x48x8x8xf16>
  %shape = kiln.constant dense<[2, 2, 24, 8, 8]> : tensor<5xi64>
  %r = kiln.reshape %c, %shape : tensor<2x48x8x8xf16>, tensor<5xi64> -> tensor<2x2x24x8x8xf16>
  %t = kiln.transpose %r {perm = array<i64: 0, 2, 1, 3, 4>} : tensor<2x2x24x8x8xf16> -> tensor<2x24x2x8x8xf16>
  return %t : tensor<2x24x2x8x8xf16>
}

// A gated activation (T5's gated GELU): gelu of the first half of the
// innermost dim times the second half.
func.func @gated_halves_tiled(%x: tensor<2x16x512xf16>) -> tensor<2x16x256xf16> {
  %zero = kiln.constant dense<0> : tensor<1xi64>
  %half = kiln.constant dense<256> : tensor<1xi64>
  %end = kiln.constant dense<512> : tensor<1xi64>
  %axis = kiln.constant dense<2> : tensor<1xi64>
  %one = kiln.constant dense<1> : tensor<1xi64>
  %a = kiln.slice %x, %zero, %half, %axis, %one : tensor<2x16x512xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<2x16x256xf16>
  %b = kiln.slice %x, %half, %end, %axis, %one : tensor<2x16x512xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<2x16x256xf16>
  %g = kiln.gelu %a : tensor<2x16x256xf16> -> tensor<2x16x256xf16>
  %m = kiln.mul %g, %b : tensor<2x16x256xf16>, tensor<2x16x256xf16> -> tensor<2x16x256xf16>
  return %m : tensor<2x16x256xf16>
}

// Found by a review of the path vectors, each reading wrong elements then:
// a per-token statistic [B, N] unsqueezed to [B, N, 1] and subtracted from
// [B, N, C] (a decomposed layer norm's centring): a view to a row statistic,
// whose lanes share one element, so no path vector (and no vectors: the
// view's innermost dim is 1).
func.func @stat_unsqueeze_tiled(%x: tensor<4x8x16xf32>, %m: tensor<4x8xf32>) -> tensor<4x8x16xf32> {
  %axes = kiln.constant dense<2> : tensor<1xi64>
  %u = kiln.unsqueeze %m, %axes : tensor<4x8xf32>, tensor<1xi64> -> tensor<4x8x1xf32>
  %d = kiln.sub %x, %u : tensor<4x8x16xf32>, tensor<4x8x1xf32> -> tensor<4x8x16xf32>
  return %d : tensor<4x8x16xf32>
}

// The same through a reshape, after an elementwise op.
func.func @row_view_tiled(%x: tensor<4x8xf32>, %y: tensor<32x8xf32>) -> tensor<32x8xf32> {
  %n = kiln.neg %x : tensor<4x8xf32> -> tensor<4x8xf32>
  %shape = kiln.constant dense<[32, 1]> : tensor<2xi64>
  %r = kiln.reshape %n, %shape : tensor<4x8xf32>, tensor<2xi64> -> tensor<32x1xf32>
  %a = kiln.add %y, %r : tensor<32x8xf32>, tensor<32x1xf32> -> tensor<32x8xf32>
  return %a : tensor<32x8xf32>
}

// NCHW batch_norm with C == W: [C] looks like a broadcast keeping the
// innermost dim (width 4), but the parameters are read at the channel (dim
// 1): scalar loads, not path vectors.
func.func @batch_norm_cw_tiled(%x: tensor<1x8x4x8xf32>, %s: tensor<8xf32>, %b: tensor<8xf32>, %m: tensor<8xf32>, %v: tensor<8xf32>) -> tensor<1x8x4x8xf32> {
  %e = kiln.exp %v : tensor<8xf32> -> tensor<8xf32>
  %r = kiln.batch_norm %x, %s, %b, %m, %e : tensor<1x8x4x8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32>, tensor<8xf32> -> tensor<1x8x4x8xf32>
  return %r : tensor<1x8x4x8xf32>
}
