// The flash attention kernel: f16/bf16 kiln.attention with head sizes it
// tiles (d a multiple of 16, dv of 8, both <= 128) on tensor cores; a block
// of 4 warps per 64 query rows, key/value tiles of 64 in shared memory; two
// such key groups per block where flashKeyGroups says so (the last cases).
// kiln-translate compiles every kernel with NVRTC.
// RUN: kiln-opt %s --kiln-fuse-kernels --kiln-tile-kernels | kiln-translate --emit-cuda | FileCheck %s

// Odd sizes: 77 query rows (2 tiles per head), 300 keys (5 tiles, the last
// one predicated); the [2, 1, 1, 300] padding mask is read at (batch, key).
// It is a runtime input, so every query tile visits every key tile.
// CHECK-LABEL: void __launch_bounds__(128) kiln_attention_
// CHECK:         __align__(16) __shared__ unsigned short kiln_k[4608];
// CHECK:         __align__(16) __shared__ unsigned short kiln_v[3072];
// CHECK:         for (kiln_index_t tile = blockIdx.x; tile < 8; tile += gridDim.x) {
// CHECK:           const kiln_index_t b = tile / 2;
// CHECK-NOT:       firstTile
// CHECK:           kiln_flash_copy16(&kiln_k[r * 72 + col], k + (valid ? key : 0) * 64 + col, valid);
// CHECK:           kiln_flash_commit();
// CHECK:           qa[ks][3] = row1 < 77 ? *reinterpret_cast<const unsigned *>(q + row1 * 64 + col + 8) : 0u;
// The mask's entries are read before the wait for the key tile; K and V
// fragments come from ldmatrix (dv = 40: five n8 tiles, the last pair's
// second one unused); the softmax's exponentials are ex2 of differences
// times log2(e).
// CHECK:           for (int t = 0; t < 5; ++t) {
// CHECK:             = __half2float(in3[((b / 2) * 300 + maskKey)]);
// CHECK:             kiln_flash_wait_one();
// CHECK:             kiln_flash_ldmatrix(b, &kiln_k[j * 576 + ks * 16 + kLane]);
// CHECK-NEXT:        kiln_flash_mma(s[j], qa[ks], b[0], b[1]);
// CHECK-NEXT:        kiln_flash_mma(s[j + 1], qa[ks], b[2], b[3]);
// CHECK:             s[j][c] = key >= 300 ? (-__int_as_float(0x7f800000)) : s[j][c] * 0.125f + bias[j][c];
// CHECK:             alpha[r] = kiln_flash_exp2((m[r] - base[r]) * 1.44269502f);
// CHECK:             kiln_flash_ldmatrix_trans(b, &kiln_v[kk * 768 + e * 8 + vLane]);
// CHECK-NEXT:        kiln_flash_mma(o[e], pa, b[0], b[1]);
// CHECK-NEXT:        if (e + 1 < 5) kiln_flash_mma(o[e + 1], pa, b[2], b[3]);
// CHECK:           l[r] = 1.0f / l[r];
// CHECK:           __half *out = out0 + b * 3080;
// CHECK:           if (row1 < 77) *reinterpret_cast<unsigned *>(out + row1 * 40 + col) = kiln_flash_pack(o[e][2] * l[1], o[e][3] * l[1]);
func.func @flash_f16_odd(%q: tensor<2x2x77x64xf16>, %k: tensor<2x2x300x64xf16>, %v: tensor<2x2x300x40xf16>, %m: tensor<2x1x1x300xf16>) -> tensor<2x2x77x40xf16> {
  %0 = kiln.attention %q, %k, %v, %m {scale = 0.125 : f32} : tensor<2x2x77x64xf16>, tensor<2x2x300x64xf16>, tensor<2x2x300x40xf16>, tensor<2x1x1x300xf16> -> tensor<2x2x77x40xf16>
  return %0 : tensor<2x2x77x40xf16>
}

// bf16, head size 128, no mask, keys a multiple of the tile (no key
// predicate): scores in base 2, the scale times log2(e) (0.0883883461 *
// 1.44269504 = 0.127517432).
// CHECK:       asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
// CHECK-LABEL: void __launch_bounds__(128) kiln_attention_
// CHECK:         __align__(16) __shared__ unsigned short kiln_k[8704];
// CHECK:         const __nv_bfloat16 *k = in1 + ((b * 256) * 128);
// CHECK:         unsigned qa[8][4];
// CHECK:         float o[16][4];
// CHECK-NOT:     key >= 256
// CHECK:           s[j][c] = s[j][c] * 0.127517432f;
// CHECK:           alpha[r] = kiln_flash_exp2((m[r] - base[r]));
// CHECK:         __nv_bfloat16 *out = out0 + b * 16384;
func.func @flash_bf16_head_128(%q: tensor<3x128x128xbf16>, %k: tensor<3x256x128xbf16>, %v: tensor<3x256x128xbf16>) -> tensor<3x128x128xbf16> {
  %0 = kiln.attention %q, %k, %v {scale = 0.0883883461 : f32} : tensor<3x128x128xbf16>, tensor<3x256x128xbf16>, tensor<3x256x128xbf16> -> tensor<3x128x128xbf16>
  return %0 : tensor<3x128x128xbf16>
}


// A causal mask computed from constants (trilu of -65504, which kiln
// evaluates at compile time): query tile i visits key tiles 0 ... i only, the
// longest tiles first (the last query tile of both heads, then the one
// before, ...). Its entries are 0 or masked, so it is not read: keys above
// the diagonal of the diagonal tile get -inf instead.
// CHECK-LABEL: void __launch_bounds__(128) kiln_attention_
// CHECK:         for (kiln_index_t tile = blockIdx.x; tile < 8; tile += gridDim.x) {
// CHECK-NEXT:      const kiln_index_t b = tile % 2;
// CHECK-NEXT:      const int queryTile = 3 - (int)(tile / 2);  // The longest first, of every batch index.
// CHECK-NEXT:    // The causal mask: query tile i needs key tiles 0 ... i only.
// CHECK-NEXT:    // Its entries are 0 up to the diagonal and masked above it: not read; -inf above the diagonal of tile i.
// CHECK-NEXT:    const int firstTile = 0, lastTile = queryTile;
// CHECK:         const kiln_index_t row0 = queryTile * 64 + warp * 16 + group, row1 = row0 + 8;
// CHECK:         const kiln_index_t key = firstTile * 64 + r;
// CHECK:         for (int t = firstTile; t <= lastTile; ++t) {
// CHECK-NOT:         bias
// CHECK:           if (t < lastTile) {
// CHECK:           const bool diagonalTile = t == lastTile;
// CHECK:           s[j][c] = (diagonalTile && key > (c < 2 ? row0 : row1)) ? (-__int_as_float(0x7f800000)) : s[j][c] * 0.180336878f;
// CHECK:           if (t < lastTile) {
func.func @flash_causal_constant(%q: tensor<1x2x256x64xf16>, %k: tensor<1x2x256x64xf16>, %v: tensor<1x2x256x64xf16>) -> tensor<1x2x256x64xf16> {
  %big = kiln.constant dense<-65504.0> : tensor<1x1x256x256xf16>
  %one = kiln.constant dense<1> : tensor<i64>
  %mask = kiln.trilu %big, %one {upper = true} : tensor<1x1x256x256xf16>, tensor<i64> -> tensor<1x1x256x256xf16>
  %0 = kiln.attention %q, %k, %v, %mask {scale = 0.125 : f32} : tensor<1x2x256x64xf16>, tensor<1x2x256x64xf16>, tensor<1x2x256x64xf16>, tensor<1x1x256x256xf16> -> tensor<1x2x256x64xf16>
  return %0 : tensor<1x2x256x64xf16>
}

// The same causal mask plus 0.5 everywhere: causal bounds still, but the
// entries it keeps are not 0, so the mask is read.
// CHECK-LABEL: void __launch_bounds__(128) kiln_attention_
// CHECK:         const int firstTile = 0, lastTile = queryTile;
// CHECK:         for (int t = firstTile; t <= lastTile; ++t) {
// CHECK:           bias[j][c] =
// CHECK-NOT:       diagonalTile
// CHECK:           s[j][c] = s[j][c] * 0.125f + bias[j][c];
func.func @flash_causal_offset(%q: tensor<1x2x256x64xf16>, %k: tensor<1x2x256x64xf16>, %v: tensor<1x2x256x64xf16>) -> tensor<1x2x256x64xf16> {
  %big = kiln.constant dense<-65504.0> : tensor<1x1x256x256xf16>
  %one = kiln.constant dense<1> : tensor<i64>
  %half = kiln.constant dense<0.5> : tensor<f16>
  %causal = kiln.trilu %big, %one {upper = true} : tensor<1x1x256x256xf16>, tensor<i64> -> tensor<1x1x256x256xf16>
  %mask = kiln.add %causal, %half : tensor<1x1x256x256xf16>, tensor<f16> -> tensor<1x1x256x256xf16>
  %0 = kiln.attention %q, %k, %v, %mask {scale = 0.125 : f32} : tensor<1x2x256x64xf16>, tensor<1x2x256x64xf16>, tensor<1x2x256x64xf16>, tensor<1x1x256x256xf16> -> tensor<1x2x256x64xf16>
  return %0 : tensor<1x2x256x64xf16>
}

// A constant key mask [1, 1, 192] whose last 64 keys are -inf: both query
// tiles visit key tiles 0 and 1 of 3, from a table.
// CHECK:       static __device__ const int kiln_key_tiles{{[0-9]*}}[4] = {0, 1, 0, 1};
// CHECK-LABEL: void __launch_bounds__(128) kiln_attention_
// CHECK:         const int *tileRange = &kiln_key_tiles{{[0-9]*}}[(0 * 2 + queryTile) * 2];
// CHECK-NEXT:    const int firstTile = tileRange[0], lastTile = tileRange[1];
// CHECK:         for (int t = firstTile; t <= lastTile; ++t) {
// CHECK:           bias[j][c] =
func.func @flash_constant_key_mask(%q: tensor<2x100x64xf16>, %k: tensor<2x192x64xf16>, %v: tensor<2x192x64xf16>) -> tensor<2x100x64xf16> {
  %mask = kiln.constant dense<"0x0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC"> : tensor<1x1x192xf16>
  %0 = kiln.attention %q, %k, %v, %mask {scale = 0.125 : f32} : tensor<2x100x64xf16>, tensor<2x192x64xf16>, tensor<2x192x64xf16>, tensor<1x1x192xf16> -> tensor<2x100x64xf16>
  return %0 : tensor<2x100x64xf16>
}

// The same key mask plus -inf on query rows 120 ... 127: those rows are fully
// masked (NaN, as the decomposed softmax), so their query tile visits every
// key tile; the first still stops at key tile 1.
// CHECK:       static __device__ const int kiln_key_tiles{{[0-9]*}}[4] = {0, 1, 0, 2};
// CHECK-LABEL: void __launch_bounds__(128) kiln_attention_
// CHECK:         for (int t = firstTile; t <= lastTile; ++t) {
func.func @flash_fully_masked_rows(%q: tensor<1x1x128x64xf16>, %k: tensor<1x1x192x64xf16>, %v: tensor<1x1x192x64xf16>) -> tensor<1x1x128x64xf16> {
  %keys = kiln.constant dense<"0x0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC00FC"> : tensor<1x1x1x192xf16>
  %rows = kiln.constant dense<"0x00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000FC00FC00FC00FC00FC00FC00FC00FC"> : tensor<1x1x128x1xf16>
  %mask = kiln.add %keys, %rows : tensor<1x1x1x192xf16>, tensor<1x1x128x1xf16> -> tensor<1x1x128x192xf16>
  %0 = kiln.attention %q, %k, %v, %mask {scale = 0.125 : f32} : tensor<1x1x128x64xf16>, tensor<1x1x192x64xf16>, tensor<1x1x192x64xf16>, tensor<1x1x128x192xf16> -> tensor<1x1x128x64xf16>
  return %0 : tensor<1x1x128x64xf16>
}

// GPT-2's layout: q, k and v are slices of one merged projection [1, 128,
// 3 x 2 x 64], split into heads and transposed; the output is transposed
// back. The kernel reads the rows where they are (384 elements apart, heads
// 64 apart, k and v 128 and 256 further) and writes [b, s, h, d] (rows 128
// apart): one kernel, no copies.
// CHECK-LABEL: void __launch_bounds__(128) kiln_attention_
// CHECK:         const __half *q = in0 + (kiln_index_t)(b) * 64;
// CHECK-NEXT:    const __half *k = in0 + 128 + (kiln_index_t)(b) * 64;
// CHECK-NEXT:    const __half *v = in0 + 256 + (kiln_index_t)(b) * 64;
// CHECK:         kiln_flash_copy16(&kiln_k[r * 72 + col], k + (valid ? key : 0) * 384 + col, valid);
// CHECK:         q + row0 * 384 + col
// CHECK:         __half *out = out0 + (kiln_index_t)(b) * 64;
// CHECK:         *reinterpret_cast<unsigned *>(out + row0 * 128 + col)
func.func @flash_merged_projection(%x: tensor<1x128x384xf16>) -> tensor<1x128x2x64xf16> {
  %axes = kiln.constant dense<2> : tensor<1xi64>
  %steps = kiln.constant dense<1> : tensor<1xi64>
  %s0 = kiln.constant dense<0> : tensor<1xi64>
  %s1 = kiln.constant dense<128> : tensor<1xi64>
  %s2 = kiln.constant dense<256> : tensor<1xi64>
  %s3 = kiln.constant dense<384> : tensor<1xi64>
  %heads = kiln.constant dense<[1, 128, 2, 64]> : tensor<4xi64>
  %qs = kiln.slice %x, %s0, %s1, %axes, %steps : tensor<1x128x384xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<1x128x128xf16>
  %ks = kiln.slice %x, %s1, %s2, %axes, %steps : tensor<1x128x384xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<1x128x128xf16>
  %vs = kiln.slice %x, %s2, %s3, %axes, %steps : tensor<1x128x384xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<1x128x128xf16>
  %qr = kiln.reshape %qs, %heads : tensor<1x128x128xf16>, tensor<4xi64> -> tensor<1x128x2x64xf16>
  %kr = kiln.reshape %ks, %heads : tensor<1x128x128xf16>, tensor<4xi64> -> tensor<1x128x2x64xf16>
  %vr = kiln.reshape %vs, %heads : tensor<1x128x128xf16>, tensor<4xi64> -> tensor<1x128x2x64xf16>
  %q = kiln.transpose %qr {perm = array<i64: 0, 2, 1, 3>} : tensor<1x128x2x64xf16> -> tensor<1x2x128x64xf16>
  %k = kiln.transpose %kr {perm = array<i64: 0, 2, 1, 3>} : tensor<1x128x2x64xf16> -> tensor<1x2x128x64xf16>
  %v = kiln.transpose %vr {perm = array<i64: 0, 2, 1, 3>} : tensor<1x128x2x64xf16> -> tensor<1x2x128x64xf16>
  %o = kiln.attention %q, %k, %v {scale = 0.125 : f32} : tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16>, tensor<1x2x128x64xf16> -> tensor<1x2x128x64xf16>
  %t = kiln.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<1x2x128x64xf16> -> tensor<1x128x2x64xf16>
  return %t : tensor<1x128x2x64xf16>
}

// Two key groups (block_size 256, flashKeyGroups): 600 keys are 10 key
// tiles (the last predicated) for 8 query tiles. Both groups take the same
// query rows, key group 0 tiles 0, 2, ..., 8 and group 1 tiles 1, ..., 9,
// each group with its K tile (64 x 72) and V tile (64 x 48) in one stretch
// of kiln_tiles and waiting at its own named barrier. Then group 1 posts m,
// l and its 5 x 4 output values per thread and group 0 merges them, the
// differences of m in natural units (the mask is read) times log2(e), and
// writes the rows.
// CHECK-LABEL: void __launch_bounds__(256) kiln_attention_
// CHECK:         __align__(16) __shared__ unsigned short kiln_tiles[15360];
// CHECK:         const int lane = threadIdx.x & 31, warp = (threadIdx.x >> 5) % 4, group = lane >> 2, pair = lane & 3;
// CHECK-NEXT:    const int keyGroup = threadIdx.x / 128, groupThread = threadIdx.x % 128;
// CHECK-NEXT:    unsigned short *const kiln_k = kiln_tiles + keyGroup * 7680;
// CHECK-NEXT:    unsigned short *const kiln_v = kiln_k + 4608;
// CHECK:         for (kiln_index_t tile = blockIdx.x; tile < 8; tile += gridDim.x) {
// CHECK:           if (keyGroup < 10) {
// CHECK:             const int c = groupThread + i * 128;
// CHECK:             const kiln_index_t key = keyGroup * 64 + r;
// CHECK:           for (int t = keyGroup; t < 10; t += 2) {
// CHECK:             = __half2float(in3[((b / 2) * 600 + maskKey)]);
// CHECK:             kiln_flash_wait_one();
// CHECK-NEXT:        kiln_flash_group_sync(keyGroup + 1, 128);
// CHECK:             s[j][c] = key >= 600 ? (-__int_as_float(0x7f800000)) : s[j][c] * 0.125f + bias[j][c];
// CHECK:             if (t + 2 < 10) {
// CHECK:               const kiln_index_t key = key0 + 128 + r;
// CHECK:           __syncthreads();  // Every group is done with its tiles.
// CHECK:           if (keyGroup > 0) {
// CHECK-NEXT:        float *post = kiln_posts + (keyGroup - 1) * 3072 + groupThread;
// CHECK:           if (keyGroup == 0) {
// CHECK:               beta[r] = kiln_flash_exp2((mOther - base) * 1.44269502f);
// CHECK:               l[r] = l[r] * alpha[r] + post[(2 + r) * 128] * beta[r];
// CHECK:           __syncthreads();  // The posts are read: the next tile's copies may overwrite them.
// CHECK-NEXT:      if (keyGroup == 0) {
// CHECK:             l[r] = 1.0f / l[r];
func.func @flash_key_groups_padding(%q: tensor<2x2x77x64xf16>, %k: tensor<2x2x600x64xf16>, %v: tensor<2x2x600x40xf16>, %m: tensor<2x1x1x600xf16>) -> tensor<2x2x77x40xf16> {
  %0 = kiln.attention %q, %k, %v, %m {scale = 0.125 : f32} : tensor<2x2x77x64xf16>, tensor<2x2x600x64xf16>, tensor<2x2x600x40xf16>, tensor<2x1x1x600xf16> -> tensor<2x2x77x40xf16>
  return %0 : tensor<2x2x77x40xf16>
}

// Two key groups under a causal mask known at compile time (512 keys, 8 key
// tiles): group g starts at firstTile + g; group 1 has no tile in query
// tile 0 and copies nothing. The scores are in base 2, so the merge's
// differences are too.
// CHECK-LABEL: void __launch_bounds__(256) kiln_attention_
// CHECK:         const int firstTile = 0, lastTile = queryTile;
// CHECK:         if (firstTile + keyGroup <= lastTile) {
// CHECK:           const kiln_index_t key = (firstTile + keyGroup) * 64 + r;
// CHECK:         for (int t = firstTile + keyGroup; t <= lastTile; t += 2) {
// CHECK-NOT:         bias
// CHECK:           if (t + 2 <= lastTile) {
// CHECK:           const bool diagonalTile = t == lastTile;
// CHECK:         beta[r] = kiln_flash_exp2((mOther - base));
func.func @flash_key_groups_causal(%q: tensor<1x2x512x64xf16>, %k: tensor<1x2x512x64xf16>, %v: tensor<1x2x512x64xf16>) -> tensor<1x2x512x64xf16> {
  %big = kiln.constant dense<-65504.0> : tensor<1x1x512x512xf16>
  %one = kiln.constant dense<1> : tensor<i64>
  %mask = kiln.trilu %big, %one {upper = true} : tensor<1x1x512x512xf16>, tensor<i64> -> tensor<1x1x512x512xf16>
  %0 = kiln.attention %q, %k, %v, %mask {scale = 0.125 : f32} : tensor<1x2x512x64xf16>, tensor<1x2x512x64xf16>, tensor<1x2x512x64xf16>, tensor<1x1x512x512xf16> -> tensor<1x2x512x64xf16>
  return %0 : tensor<1x2x512x64xf16>
}
