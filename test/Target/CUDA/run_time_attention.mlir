// The attention templates with run-time extents (issue 18) reading q, k and v
// through the views fused into the kernel and writing through a transpose, as
// a static kernel does (flash_attention.mlir's merged projection): the strides
// that step over seq are expressions of the kernel's dim parameter for it
// (`(kiln_dim1 * 384LL)`: a batch index steps seq rows of 384), the row
// strides stay numbers. Compiled by NVRTC.
// RUN: kiln-opt %s --split-input-file --kiln-record-dim-exprs --kiln-fuse-kernels --kiln-tile-kernels | FileCheck %s --check-prefix=TILED
// RUN: kiln-opt %s --split-input-file --kiln-record-dim-exprs --kiln-fuse-kernels --kiln-tile-kernels | kiln-translate --emit-cuda | FileCheck %s

// One attention kernel holds the slices, reshapes and transposes. Its count
// is that of whole flash tiles, (batch * 2) * (seq + 63) * 64, for the grid
// at launch.
// TILED-LABEL: func.func @flash_merged_projection
// TILED:         kiln.kernel "attention_0" attention ins(%{{.*}} : tensor<?x?x384xf16>)
// TILED-SAME:      kiln.element_count = "batch*seq*128 + batch*8064"
// TILED-SAME:      variant = #kiln.variant<flash>
// TILED-COUNT-3:   kiln.slice
// TILED-COUNT-3:   kiln.reshape
// TILED:           kiln.attention
// TILED:           kiln.transpose
// TILED-NOT:     kiln.kernel

// CHECK-LABEL: void __launch_bounds__(128) kiln_attention_
// CHECK-SAME:    (const __half* __restrict__ in0, __half* __restrict__ out0, long long kiln_dim0_value, long long kiln_dim1_value)
// CHECK:         for (kiln_index_t tile = blockIdx.x; tile < ((kiln_dim0) * 2) * (((kiln_dim1) + 63) / 64); tile += gridDim.x)
// CHECK:         const __half *q = in0 + (kiln_index_t)((b / 2)) * (kiln_dim1 * 384LL) + (kiln_index_t)((b % 2)) * 64;
// CHECK-NEXT:    const __half *k = in0 + 128 + (kiln_index_t)((b / 2)) * (kiln_dim1 * 384LL) + (kiln_index_t)((b % 2)) * 64;
// CHECK-NEXT:    const __half *v = in0 + 256 + (kiln_index_t)((b / 2)) * (kiln_dim1 * 384LL) + (kiln_index_t)((b % 2)) * 64;
// CHECK:         kiln_flash_copy16(&kiln_k[r * 72 + col], k + (valid ? key : 0) * 384 + col, valid);
// CHECK:         qa[ks][0] = row0 < (kiln_dim1) ? *reinterpret_cast<const unsigned *>(q + row0 * 384 + col) : 0u;
// CHECK:         __half *out = out0 + (kiln_index_t)((b / 2)) * (kiln_dim1 * 128LL) + (kiln_index_t)((b % 2)) * 64;
// CHECK:         if (row0 < (kiln_dim1)) *reinterpret_cast<unsigned *>(out + row0 * 128 + col)
func.func @flash_merged_projection(%x: tensor<?x?x384xf16> {kiln.dim_names = ["batch", "seq", ""]}) -> tensor<?x?x2x64xf16>
    attributes {kiln.dim_ranges = {batch = array<i64: 1, 8, 8>, seq = array<i64: 16, 512, 512>}} {
  %axes = kiln.constant dense<2> : tensor<1xi64>
  %steps = kiln.constant dense<1> : tensor<1xi64>
  %s0 = kiln.constant dense<0> : tensor<1xi64>
  %s1 = kiln.constant dense<128> : tensor<1xi64>
  %s2 = kiln.constant dense<256> : tensor<1xi64>
  %s3 = kiln.constant dense<384> : tensor<1xi64>
  %heads = kiln.constant dense<[0, 0, 2, 64]> : tensor<4xi64>
  %qs = kiln.slice %x, %s0, %s1, %axes, %steps : tensor<?x?x384xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<?x?x128xf16>
  %ks = kiln.slice %x, %s1, %s2, %axes, %steps : tensor<?x?x384xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<?x?x128xf16>
  %vs = kiln.slice %x, %s2, %s3, %axes, %steps : tensor<?x?x384xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<?x?x128xf16>
  %qr = kiln.reshape %qs, %heads : tensor<?x?x128xf16>, tensor<4xi64> -> tensor<?x?x2x64xf16>
  %kr = kiln.reshape %ks, %heads : tensor<?x?x128xf16>, tensor<4xi64> -> tensor<?x?x2x64xf16>
  %vr = kiln.reshape %vs, %heads : tensor<?x?x128xf16>, tensor<4xi64> -> tensor<?x?x2x64xf16>
  %q = kiln.transpose %qr {perm = array<i64: 0, 2, 1, 3>} : tensor<?x?x2x64xf16> -> tensor<?x2x?x64xf16>
  %k = kiln.transpose %kr {perm = array<i64: 0, 2, 1, 3>} : tensor<?x?x2x64xf16> -> tensor<?x2x?x64xf16>
  %v = kiln.transpose %vr {perm = array<i64: 0, 2, 1, 3>} : tensor<?x?x2x64xf16> -> tensor<?x2x?x64xf16>
  %o = kiln.attention %q, %k, %v {scale = 0.125 : f32} : tensor<?x2x?x64xf16>, tensor<?x2x?x64xf16>, tensor<?x2x?x64xf16> -> tensor<?x2x?x64xf16>
  %t = kiln.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<?x2x?x64xf16> -> tensor<?x?x2x64xf16>
  return %t : tensor<?x?x2x64xf16>
}

// -----

// The query-row kernel reads q, k and v elementally through the fused views
// (each index over seq by value: the views' models take seq from the dim
// parameter) and writes its row through the transpose.
// TILED-LABEL: func.func @rows_heads
// TILED:         kiln.kernel "attention_0" attention ins(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : tensor<?x?x64xf32>, tensor<?x?x64xf32>, tensor<?x?x64xf32>, tensor<?x1x1x?xf32>)
// TILED-SAME:      variant = #kiln.variant<query_rows>
// TILED:           kiln.attention
// TILED:           kiln.transpose
// TILED-NOT:     kiln.kernel

// CHECK-LABEL: void __launch_bounds__(128) kiln_attention_
// CHECK-SAME:    float* __restrict__ out0, long long kiln_dim0_value, long long kiln_dim1_value)
// CHECK:         for (kiln_index_t row = blockIdx.x; row < ((kiln_dim0) * (kiln_dim1) * 2); row += gridDim.x)
// CHECK-NEXT:      const kiln_index_t b = row / (kiln_dim1), i = row % (kiln_dim1);
// CHECK:           in0[(((b / 2) * (kiln_dim1) + i) * 64 + ((b % 2) * 32 + t))]
// CHECK:           in1[(((b / 2) * (kiln_dim1) + key) * 64 + ((b % 2) * 32 + t))]
// CHECK:           out0[(kiln_index_t)((b / 2)) * (kiln_dim1 * 64LL) + (kiln_index_t)((b % 2)) * 32 + i * 64 + e] = acc[a] / l;
func.func @rows_heads(%q: tensor<?x?x64xf32> {kiln.dim_names = ["batch", "seq", ""]}, %k: tensor<?x?x64xf32> {kiln.dim_names = ["batch", "seq", ""]}, %v: tensor<?x?x64xf32> {kiln.dim_names = ["batch", "seq", ""]}, %mask: tensor<?x1x1x?xf32> {kiln.dim_names = ["batch", "", "", "seq"]}) -> tensor<?x?x2x32xf32>
    attributes {kiln.dim_ranges = {batch = array<i64: 1, 8, 8>, seq = array<i64: 16, 512, 512>}} {
  %heads = kiln.constant dense<[0, 0, 2, 32]> : tensor<4xi64>
  %qr = kiln.reshape %q, %heads : tensor<?x?x64xf32>, tensor<4xi64> -> tensor<?x?x2x32xf32>
  %kr = kiln.reshape %k, %heads : tensor<?x?x64xf32>, tensor<4xi64> -> tensor<?x?x2x32xf32>
  %vr = kiln.reshape %v, %heads : tensor<?x?x64xf32>, tensor<4xi64> -> tensor<?x?x2x32xf32>
  %qt = kiln.transpose %qr {perm = array<i64: 0, 2, 1, 3>} : tensor<?x?x2x32xf32> -> tensor<?x2x?x32xf32>
  %kt = kiln.transpose %kr {perm = array<i64: 0, 2, 1, 3>} : tensor<?x?x2x32xf32> -> tensor<?x2x?x32xf32>
  %vt = kiln.transpose %vr {perm = array<i64: 0, 2, 1, 3>} : tensor<?x?x2x32xf32> -> tensor<?x2x?x32xf32>
  %o = kiln.attention %qt, %kt, %vt, %mask {scale = 0.17677669 : f32} : tensor<?x2x?x32xf32>, tensor<?x2x?x32xf32>, tensor<?x2x?x32xf32>, tensor<?x1x1x?xf32> -> tensor<?x2x?x32xf32>
  %t = kiln.transpose %o {perm = array<i64: 0, 2, 1, 3>} : tensor<?x2x?x32xf32> -> tensor<?x?x2x32xf32>
  return %t : tensor<?x?x2x32xf32>
}
