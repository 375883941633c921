// The flash attention kernel: f16/bf16 kiln.attention with head sizes it
// tiles (d a multiple of 16, dv of 8, both <= 128) on tensor cores; a block
// of 4 warps per 64 query rows, key/value tiles of 64 in shared memory.
// kiln-translate compiles every kernel with NVRTC.
// RUN: kiln-opt %s --kiln-fuse-kernels --kiln-tile-kernels | kiln-translate --emit-cuda | FileCheck %s

// Odd sizes: 77 query rows (2 tiles per head), 300 keys (5 tiles, the last
// one predicated); the [2, 1, 1, 300] padding mask is read at (batch, key).
// CHECK-LABEL: void __launch_bounds__(128) kiln_attention_
// CHECK:         __align__(16) __shared__ unsigned short kiln_k[4608];
// CHECK:         __align__(16) __shared__ unsigned short kiln_v[3072];
// CHECK:         for (kiln_index_t tile = blockIdx.x; tile < 8; tile += gridDim.x) {
// CHECK:           const kiln_index_t b = tile / 2;
// CHECK:           kiln_flash_copy16(&kiln_k[r * 72 + col], k + (valid ? key : 0) * 64 + col, valid);
// CHECK:           kiln_flash_commit();
// CHECK:           qa[ks][3] = row1 < 77 ? *reinterpret_cast<const unsigned *>(q + row1 * 64 + col + 8) : 0u;
// CHECK:           for (int t = 0; t < 5; ++t) {
// CHECK:             kiln_flash_mma(s[j], qa[ks],
// CHECK:             float score = s[j][c] * 0.125f;
// CHECK:             = __half2float(in3[((b / 2) * 300 + maskKey)]);
// CHECK:             if (key >= 300) score = (-__int_as_float(0x7f800000));
// CHECK:             alpha[r] = expf(m[r] - base[r]);
// CHECK:             kiln_flash_mma(o[e], pa, ve[0] | ((unsigned)ve[48] << 16), ve[384] | ((unsigned)ve[432] << 16));
// CHECK:           __half *out = out0 + b * 3080;
// CHECK:           if (row1 < 77) *reinterpret_cast<unsigned *>(out + row1 * 40 + col) = kiln_flash_pack(o[e][2] / l[1], o[e][3] / l[1]);
func.func @flash_f16_odd(%q: tensor<2x2x77x64xf16>, %k: tensor<2x2x300x64xf16>, %v: tensor<2x2x300x40xf16>, %m: tensor<2x1x1x300xf16>) -> tensor<2x2x77x40xf16> {
  %0 = kiln.attention %q, %k, %v, %m {scale = 0.125 : f32} : tensor<2x2x77x64xf16>, tensor<2x2x300x64xf16>, tensor<2x2x300x40xf16>, tensor<2x1x1x300xf16> -> tensor<2x2x77x40xf16>
  return %0 : tensor<2x2x77x40xf16>
}

// bf16, head size 128, no mask, keys a multiple of the tile (no key
// predicate).
// CHECK:       asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
// CHECK-LABEL: void __launch_bounds__(128) kiln_attention_
// CHECK:         __align__(16) __shared__ unsigned short kiln_k[8704];
// CHECK:         const __nv_bfloat16 *k = in1 + ((b * 256) * 128);
// CHECK:         unsigned qa[8][4];
// CHECK:         float o[16][4];
// CHECK-NOT:     if (key >= 256)
// CHECK:         __nv_bfloat16 *out = out0 + b * 16384;
func.func @flash_bf16_head_128(%q: tensor<3x128x128xbf16>, %k: tensor<3x256x128xbf16>, %v: tensor<3x256x128xbf16>) -> tensor<3x128x128xbf16> {
  %0 = kiln.attention %q, %k, %v {scale = 0.0883883461 : f32} : tensor<3x128x128xbf16>, tensor<3x256x128xbf16>, tensor<3x256x128xbf16> -> tensor<3x128x128xbf16>
  return %0 : tensor<3x128x128xbf16>
}

