// GPU kernel tests of kiln.attention with run-time extents (issue 18): each
// function is a BERT self-attention block with ranged batch and seq
// (`kiln.dim_ranges`), q, k and v split into heads by a Reshape and
// Transposes (k as k^T, [0, 2, 3, 1], as the dynamo exporter writes it) and
// the context merged back by a Transpose and a Reshape. The attention kernel
// reads q, k and v through those views and writes the merged layout, with
// strides that are expressions of seq (a batch index steps seq * 256
// elements): one kernel, no transposes. Each function runs at every shape of
// its `kiln.test_shapes`, one case each, with the same cubin: seq 77 (not a
// multiple of the flash kernel's tiles of 64 rows and keys) and seq 16 (less
// than one tile), against the CPU evaluator on the decomposed ops at that
// shape. f16 takes the flash kernel, f32 the query-row kernel; f16_merged
// reads q, k and v as slices of one [batch, seq, 768] projection, and
// f16_bert_base as BERT-base's layers do: 12 heads of 64 out of the merged
// [batch, seq, 2304] projection, the mask [batch, 1, 1, seq].
// RUN: rm -rf %t && kiln-translate %s --kernel-test-bundle %t | FileCheck %s
// CHECK: wrote case attention_ranged.f16_heads.batch2_seq77 (1 kernels, 1 launches)
// CHECK: wrote case attention_ranged.f16_heads.batch1_seq16 (1 kernels, 1 launches)
// CHECK: wrote case attention_ranged.f16_heads.batch3_seq130 (1 kernels, 1 launches)
// CHECK: wrote case attention_ranged.f32_heads.batch2_seq77 (1 kernels, 1 launches)
// CHECK: wrote case attention_ranged.f32_heads.batch1_seq16 (1 kernels, 1 launches)
// CHECK: wrote case attention_ranged.f16_merged.batch2_seq77 (1 kernels, 1 launches)
// CHECK: wrote case attention_ranged.f16_merged.batch1_seq16 (1 kernels, 1 launches)
// CHECK: wrote case attention_ranged.f16_bert_base.batch1_seq16 (1 kernels, 1 launches)
// CHECK: wrote case attention_ranged.f16_bert_base.batch2_seq77 (1 kernels, 1 launches)
// The launches take batch and seq after the buffers, with the grid for that
// shape.
// RUN: grep '^launch' %t/attention_ranged.f16_heads.batch2_seq77/manifest.txt | FileCheck %s --check-prefix=LAUNCH77
// LAUNCH77: launch kiln_attention_{{[0-9a-f]+}} {{[0-9]+}} 128 0 0 1 2 3 5 dims 2 77
// RUN: grep '^launch' %t/attention_ranged.f16_heads.batch1_seq16/manifest.txt | FileCheck %s --check-prefix=LAUNCH16
// LAUNCH16: launch kiln_attention_{{[0-9a-f]+}} {{[0-9]+}} 128 0 0 1 2 3 5 dims 1 16

func.func @f16_heads(%q: tensor<?x?x256xf16> {kiln.dim_names = ["batch", "seq", ""]}, %k: tensor<?x?x256xf16> {kiln.dim_names = ["batch", "seq", ""]}, %v: tensor<?x?x256xf16> {kiln.dim_names = ["batch", "seq", ""]}, %mask: tensor<?x1x1x?xf16> {kiln.dim_names = ["batch", "", "", "seq"], kiln.test_range = [-4.0, 0.0]}) -> tensor<?x?x256xf16>
    attributes {kiln.dim_ranges = {batch = array<i64: 1, 4, 4>, seq = array<i64: 16, 256, 256>},
                kiln.test_shapes = [{batch = 2 : i64, seq = 77 : i64}, {batch = 1 : i64, seq = 16 : i64}, {batch = 3 : i64, seq = 130 : i64}]} {
  %heads = kiln.constant dense<[0, 0, 4, 64]> : tensor<4xi64>
  %merge = kiln.constant dense<[0, 0, 256]> : tensor<3xi64>
  %scale = kiln.constant dense<0.125> : tensor<f16>
  %qr = kiln.reshape %q, %heads : tensor<?x?x256xf16>, tensor<4xi64> -> tensor<?x?x4x64xf16>
  %kr = kiln.reshape %k, %heads : tensor<?x?x256xf16>, tensor<4xi64> -> tensor<?x?x4x64xf16>
  %vr = kiln.reshape %v, %heads : tensor<?x?x256xf16>, tensor<4xi64> -> tensor<?x?x4x64xf16>
  %qt = kiln.transpose %qr {perm = array<i64: 0, 2, 1, 3>} : tensor<?x?x4x64xf16> -> tensor<?x4x?x64xf16>
  %kt = kiln.transpose %kr {perm = array<i64: 0, 2, 3, 1>} : tensor<?x?x4x64xf16> -> tensor<?x4x64x?xf16>
  %vt = kiln.transpose %vr {perm = array<i64: 0, 2, 1, 3>} : tensor<?x?x4x64xf16> -> tensor<?x4x?x64xf16>
  %0 = kiln.matmul %qt, %kt : tensor<?x4x?x64xf16>, tensor<?x4x64x?xf16> -> tensor<?x4x?x?xf16>
  %1 = kiln.mul %0, %scale : tensor<?x4x?x?xf16>, tensor<f16> -> tensor<?x4x?x?xf16>
  %2 = kiln.add %1, %mask : tensor<?x4x?x?xf16>, tensor<?x1x1x?xf16> -> tensor<?x4x?x?xf16>
  %3 = kiln.softmax %2 : tensor<?x4x?x?xf16> -> tensor<?x4x?x?xf16>
  %4 = kiln.matmul %3, %vt : tensor<?x4x?x?xf16>, tensor<?x4x?x64xf16> -> tensor<?x4x?x64xf16>
  %5 = kiln.transpose %4 {perm = array<i64: 0, 2, 1, 3>} : tensor<?x4x?x64xf16> -> tensor<?x?x4x64xf16>
  %6 = kiln.reshape %5, %merge : tensor<?x?x4x64xf16>, tensor<3xi64> -> tensor<?x?x256xf16>
  return %6 : tensor<?x?x256xf16>
}

func.func @f32_heads(%q: tensor<?x?x64xf32> {kiln.dim_names = ["batch", "seq", ""]}, %k: tensor<?x?x64xf32> {kiln.dim_names = ["batch", "seq", ""]}, %v: tensor<?x?x64xf32> {kiln.dim_names = ["batch", "seq", ""]}, %mask: tensor<?x1x1x?xf32> {kiln.dim_names = ["batch", "", "", "seq"], kiln.test_range = [-4.0, 0.0]}) -> tensor<?x?x64xf32>
    attributes {kiln.dim_ranges = {batch = array<i64: 1, 4, 4>, seq = array<i64: 16, 256, 256>},
                kiln.test_shapes = [{batch = 2 : i64, seq = 77 : i64}, {batch = 1 : i64, seq = 16 : i64}]} {
  %heads = kiln.constant dense<[0, 0, 2, 32]> : tensor<4xi64>
  %merge = kiln.constant dense<[0, 0, 64]> : tensor<3xi64>
  %scale = kiln.constant dense<0.17677669> : tensor<f32>
  %qr = kiln.reshape %q, %heads : tensor<?x?x64xf32>, tensor<4xi64> -> tensor<?x?x2x32xf32>
  %kr = kiln.reshape %k, %heads : tensor<?x?x64xf32>, tensor<4xi64> -> tensor<?x?x2x32xf32>
  %vr = kiln.reshape %v, %heads : tensor<?x?x64xf32>, tensor<4xi64> -> tensor<?x?x2x32xf32>
  %qt = kiln.transpose %qr {perm = array<i64: 0, 2, 1, 3>} : tensor<?x?x2x32xf32> -> tensor<?x2x?x32xf32>
  %kt = kiln.transpose %kr {perm = array<i64: 0, 2, 3, 1>} : tensor<?x?x2x32xf32> -> tensor<?x2x32x?xf32>
  %vt = kiln.transpose %vr {perm = array<i64: 0, 2, 1, 3>} : tensor<?x?x2x32xf32> -> tensor<?x2x?x32xf32>
  %0 = kiln.matmul %qt, %kt : tensor<?x2x?x32xf32>, tensor<?x2x32x?xf32> -> tensor<?x2x?x?xf32>
  %1 = kiln.mul %0, %scale : tensor<?x2x?x?xf32>, tensor<f32> -> tensor<?x2x?x?xf32>
  %2 = kiln.add %1, %mask : tensor<?x2x?x?xf32>, tensor<?x1x1x?xf32> -> tensor<?x2x?x?xf32>
  %3 = kiln.softmax %2 : tensor<?x2x?x?xf32> -> tensor<?x2x?x?xf32>
  %4 = kiln.matmul %3, %vt : tensor<?x2x?x?xf32>, tensor<?x2x?x32xf32> -> tensor<?x2x?x32xf32>
  %5 = kiln.transpose %4 {perm = array<i64: 0, 2, 1, 3>} : tensor<?x2x?x32xf32> -> tensor<?x?x2x32xf32>
  %6 = kiln.reshape %5, %merge : tensor<?x?x2x32xf32>, tensor<3xi64> -> tensor<?x?x64xf32>
  return %6 : tensor<?x?x64xf32>
}

func.func @f16_merged(%x: tensor<?x?x768xf16> {kiln.dim_names = ["batch", "seq", ""]}, %mask: tensor<?x1x1x?xf16> {kiln.dim_names = ["batch", "", "", "seq"], kiln.test_range = [-4.0, 0.0]}) -> tensor<?x?x256xf16>
    attributes {kiln.dim_ranges = {batch = array<i64: 1, 4, 4>, seq = array<i64: 16, 256, 256>},
                kiln.test_shapes = [{batch = 2 : i64, seq = 77 : i64}, {batch = 1 : i64, seq = 16 : i64}]} {
  %axes = kiln.constant dense<2> : tensor<1xi64>
  %steps = kiln.constant dense<1> : tensor<1xi64>
  %s0 = kiln.constant dense<0> : tensor<1xi64>
  %s1 = kiln.constant dense<256> : tensor<1xi64>
  %s2 = kiln.constant dense<512> : tensor<1xi64>
  %s3 = kiln.constant dense<768> : tensor<1xi64>
  %heads = kiln.constant dense<[0, 0, 4, 64]> : tensor<4xi64>
  %merge = kiln.constant dense<[0, 0, 256]> : tensor<3xi64>
  %scale = kiln.constant dense<0.125> : tensor<f16>
  %qs = kiln.slice %x, %s0, %s1, %axes, %steps : tensor<?x?x768xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<?x?x256xf16>
  %ks = kiln.slice %x, %s1, %s2, %axes, %steps : tensor<?x?x768xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<?x?x256xf16>
  %vs = kiln.slice %x, %s2, %s3, %axes, %steps : tensor<?x?x768xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<?x?x256xf16>
  %qr = kiln.reshape %qs, %heads : tensor<?x?x256xf16>, tensor<4xi64> -> tensor<?x?x4x64xf16>
  %kr = kiln.reshape %ks, %heads : tensor<?x?x256xf16>, tensor<4xi64> -> tensor<?x?x4x64xf16>
  %vr = kiln.reshape %vs, %heads : tensor<?x?x256xf16>, tensor<4xi64> -> tensor<?x?x4x64xf16>
  %qt = kiln.transpose %qr {perm = array<i64: 0, 2, 1, 3>} : tensor<?x?x4x64xf16> -> tensor<?x4x?x64xf16>
  %kt = kiln.transpose %kr {perm = array<i64: 0, 2, 3, 1>} : tensor<?x?x4x64xf16> -> tensor<?x4x64x?xf16>
  %vt = kiln.transpose %vr {perm = array<i64: 0, 2, 1, 3>} : tensor<?x?x4x64xf16> -> tensor<?x4x?x64xf16>
  %0 = kiln.matmul %qt, %kt : tensor<?x4x?x64xf16>, tensor<?x4x64x?xf16> -> tensor<?x4x?x?xf16>
  %1 = kiln.mul %0, %scale : tensor<?x4x?x?xf16>, tensor<f16> -> tensor<?x4x?x?xf16>
  %2 = kiln.add %1, %mask : tensor<?x4x?x?xf16>, tensor<?x1x1x?xf16> -> tensor<?x4x?x?xf16>
  %3 = kiln.softmax %2 : tensor<?x4x?x?xf16> -> tensor<?x4x?x?xf16>
  %4 = kiln.matmul %3, %vt : tensor<?x4x?x?xf16>, tensor<?x4x?x64xf16> -> tensor<?x4x?x64xf16>
  %5 = kiln.transpose %4 {perm = array<i64: 0, 2, 1, 3>} : tensor<?x4x?x64xf16> -> tensor<?x?x4x64xf16>
  %6 = kiln.reshape %5, %merge : tensor<?x?x4x64xf16>, tensor<3xi64> -> tensor<?x?x256xf16>
  return %6 : tensor<?x?x256xf16>
}

func.func @f16_bert_base(%x: tensor<?x?x2304xf16> {kiln.dim_names = ["batch", "seq", ""]}, %mask: tensor<?x1x1x?xf16> {kiln.dim_names = ["batch", "", "", "seq"], kiln.test_range = [-4.0, 0.0]}) -> tensor<?x?x768xf16>
    attributes {kiln.dim_ranges = {batch = array<i64: 1, 32, 32>, seq = array<i64: 16, 512, 512>},
                kiln.test_shapes = [{batch = 1 : i64, seq = 16 : i64}, {batch = 2 : i64, seq = 77 : i64}]} {
  %axes = kiln.constant dense<2> : tensor<1xi64>
  %steps = kiln.constant dense<1> : tensor<1xi64>
  %s0 = kiln.constant dense<0> : tensor<1xi64>
  %s1 = kiln.constant dense<768> : tensor<1xi64>
  %s2 = kiln.constant dense<1536> : tensor<1xi64>
  %s3 = kiln.constant dense<2304> : tensor<1xi64>
  %heads = kiln.constant dense<[0, 0, 12, 64]> : tensor<4xi64>
  %merge = kiln.constant dense<[0, 0, 768]> : tensor<3xi64>
  %scale = kiln.constant dense<0.125> : tensor<f16>
  %qs = kiln.slice %x, %s0, %s1, %axes, %steps : tensor<?x?x2304xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<?x?x768xf16>
  %ks = kiln.slice %x, %s1, %s2, %axes, %steps : tensor<?x?x2304xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<?x?x768xf16>
  %vs = kiln.slice %x, %s2, %s3, %axes, %steps : tensor<?x?x2304xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<?x?x768xf16>
  %qr = kiln.reshape %qs, %heads : tensor<?x?x768xf16>, tensor<4xi64> -> tensor<?x?x12x64xf16>
  %kr = kiln.reshape %ks, %heads : tensor<?x?x768xf16>, tensor<4xi64> -> tensor<?x?x12x64xf16>
  %vr = kiln.reshape %vs, %heads : tensor<?x?x768xf16>, tensor<4xi64> -> tensor<?x?x12x64xf16>
  %qt = kiln.transpose %qr {perm = array<i64: 0, 2, 1, 3>} : tensor<?x?x12x64xf16> -> tensor<?x12x?x64xf16>
  %kt = kiln.transpose %kr {perm = array<i64: 0, 2, 3, 1>} : tensor<?x?x12x64xf16> -> tensor<?x12x64x?xf16>
  %vt = kiln.transpose %vr {perm = array<i64: 0, 2, 1, 3>} : tensor<?x?x12x64xf16> -> tensor<?x12x?x64xf16>
  %0 = kiln.matmul %qt, %kt : tensor<?x12x?x64xf16>, tensor<?x12x64x?xf16> -> tensor<?x12x?x?xf16>
  %1 = kiln.mul %0, %scale : tensor<?x12x?x?xf16>, tensor<f16> -> tensor<?x12x?x?xf16>
  %2 = kiln.add %1, %mask : tensor<?x12x?x?xf16>, tensor<?x1x1x?xf16> -> tensor<?x12x?x?xf16>
  %3 = kiln.softmax %2 : tensor<?x12x?x?xf16> -> tensor<?x12x?x?xf16>
  %4 = kiln.matmul %3, %vt : tensor<?x12x?x?xf16>, tensor<?x12x?x64xf16> -> tensor<?x12x?x64xf16>
  %5 = kiln.transpose %4 {perm = array<i64: 0, 2, 1, 3>} : tensor<?x12x?x64xf16> -> tensor<?x?x12x64xf16>
  %6 = kiln.reshape %5, %merge : tensor<?x?x12x64xf16>, tensor<3xi64> -> tensor<?x?x768xf16>
  return %6 : tensor<?x?x768xf16>
}
