// GPU kernel tests of kiln.attention: each function is the decomposed graph
// (MatMul, Mul/Div, Add, Softmax, MatMul) that exporters write; kiln-translate
// recognises it, so the attention kernel is checked against the CPU
// evaluator on the decomposed ops. Masks: [1, 1, sq, sk] and a [b, 1, 1, sk]
// padding mask; sizes 128/128/64, odd 77/300/40, sk = 2048 (one chunk) and
// sk = 5000 (two chunks of the online softmax); f32 and f16. The f16/bf16
// cases with head sizes that are multiples of 16 (f16_mask_128 and the cases
// from f16_bert_padding on) take the flash (tensor-core) kernel; the others
// the row kernel. The causal masks are computed from constants, so the flash
// kernel visits only the key tiles they leave unmasked (f16_bert_causal,
// f16_gpt2_causal: the closed form; f16_causal_masked_tail: a table whose
// fully masked rows keep every key tile). f16_gpt2_projection and
// f16_bert_projection read q/k/v as strided views of a merged projection and
// write the output as [b, s, h d] (the 2 and 5 kernels are the mask, or the
// bias adds and the mask, and the attention).
// RUN: rm -rf %t && kiln-translate %s --kernel-test-bundle %t | FileCheck %s
// CHECK: wrote case attention.f32_mask_128 (1 kernels, 1 launches)
// CHECK: wrote case attention.f32_padding_odd (1 kernels, 1 launches)
// CHECK: wrote case attention.f32_keys_2048 (1 kernels, 1 launches)
// CHECK: wrote case attention.f32_keys_5000_chunks (1 kernels, 1 launches)
// CHECK: wrote case attention.f16_mask_128 (1 kernels, 1 launches)
// CHECK: wrote case attention.f16_padding_odd (1 kernels, 1 launches)
// CHECK: wrote case attention.f32_transposed_keys (1 kernels, 1 launches)
// CHECK: wrote case attention.f16_bert_padding (2 kernels, 2 launches)
// CHECK: wrote case attention.bf16_bert_padding (2 kernels, 2 launches)
// CHECK: wrote case attention.f16_bert_causal (2 kernels, 2 launches)
// CHECK: wrote case attention.bf16_bert_causal (2 kernels, 2 launches)
// CHECK: wrote case attention.f16_flash_odd (1 kernels, 1 launches)
// CHECK: wrote case attention.bf16_flash_odd (1 kernels, 1 launches)
// CHECK: wrote case attention.f16_head_128 (1 kernels, 1 launches)
// CHECK: wrote case attention.f16_keys_2048 (1 kernels, 1 launches)
// CHECK: wrote case attention.f16_value_head_40 (1 kernels, 1 launches)
// CHECK: wrote case attention.f16_gpt2_causal (2 kernels, 2 launches)
// CHECK: wrote case attention.f16_causal_masked_tail (3 kernels, 3 launches)
// CHECK: wrote case attention.f16_gpt2_projection (2 kernels, 2 launches)
// CHECK: wrote case attention.f16_bert_projection (5 kernels, 5 launches)
// CHECK: wrote case attention.f16_causal_grid_stride (2 kernels, 2 launches)

func.func @f32_mask_128(%q: tensor<1x4x128x64xf32>, %k: tensor<1x4x128x64xf32>, %v: tensor<1x4x128x64xf32>, %mask: tensor<1x1x128x128xf32>) -> tensor<1x4x128x64xf32> {
  %scale = kiln.constant dense<0.125> : tensor<f32>
  %kt = kiln.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x128x64xf32> -> tensor<1x4x64x128xf32>
  %0 = kiln.matmul %q, %kt : tensor<1x4x128x64xf32>, tensor<1x4x64x128xf32> -> tensor<1x4x128x128xf32>
  %1 = kiln.mul %0, %scale : tensor<1x4x128x128xf32>, tensor<f32> -> tensor<1x4x128x128xf32>
  %2 = kiln.add %1, %mask : tensor<1x4x128x128xf32>, tensor<1x1x128x128xf32> -> tensor<1x4x128x128xf32>
  %3 = kiln.softmax %2 : tensor<1x4x128x128xf32> -> tensor<1x4x128x128xf32>
  %4 = kiln.matmul %3, %v : tensor<1x4x128x128xf32>, tensor<1x4x128x64xf32> -> tensor<1x4x128x64xf32>
  return %4 : tensor<1x4x128x64xf32>
}

// Division by sqrt(40), a padding mask in [-4, 0] added on the left.
func.func @f32_padding_odd(%q: tensor<2x3x77x40xf32>, %k: tensor<2x3x300x40xf32>, %v: tensor<2x3x300x40xf32>, %mask: tensor<2x1x1x300xf32> {kiln.test_range = [-4.0, 0.0]}) -> tensor<2x3x77x40xf32> {
  %root = kiln.constant dense<6.32455532> : tensor<f32>
  %kt = kiln.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x3x300x40xf32> -> tensor<2x3x40x300xf32>
  %0 = kiln.matmul %q, %kt : tensor<2x3x77x40xf32>, tensor<2x3x40x300xf32> -> tensor<2x3x77x300xf32>
  %1 = kiln.div %0, %root : tensor<2x3x77x300xf32>, tensor<f32> -> tensor<2x3x77x300xf32>
  %2 = kiln.add %mask, %1 : tensor<2x1x1x300xf32>, tensor<2x3x77x300xf32> -> tensor<2x3x77x300xf32>
  %3 = kiln.softmax %2 : tensor<2x3x77x300xf32> -> tensor<2x3x77x300xf32>
  %4 = kiln.matmul %3, %v : tensor<2x3x77x300xf32>, tensor<2x3x300x40xf32> -> tensor<2x3x77x40xf32>
  return %4 : tensor<2x3x77x40xf32>
}

func.func @f32_keys_2048(%q: tensor<1x2x64x64xf32>, %k: tensor<1x2x2048x64xf32>, %v: tensor<1x2x2048x64xf32>, %mask: tensor<1x1x64x2048xf32>) -> tensor<1x2x64x64xf32> {
  %scale = kiln.constant dense<0.125> : tensor<f32>
  %kt = kiln.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x2048x64xf32> -> tensor<1x2x64x2048xf32>
  %0 = kiln.matmul %q, %kt : tensor<1x2x64x64xf32>, tensor<1x2x64x2048xf32> -> tensor<1x2x64x2048xf32>
  %1 = kiln.mul %0, %scale : tensor<1x2x64x2048xf32>, tensor<f32> -> tensor<1x2x64x2048xf32>
  %2 = kiln.add %1, %mask : tensor<1x2x64x2048xf32>, tensor<1x1x64x2048xf32> -> tensor<1x2x64x2048xf32>
  %3 = kiln.softmax %2 : tensor<1x2x64x2048xf32> -> tensor<1x2x64x2048xf32>
  %4 = kiln.matmul %3, %v : tensor<1x2x64x2048xf32>, tensor<1x2x2048x64xf32> -> tensor<1x2x64x64xf32>
  return %4 : tensor<1x2x64x64xf32>
}

// More keys than one chunk (4096): the online softmax rescales.
func.func @f32_keys_5000_chunks(%q: tensor<1x1x16x64xf32>, %k: tensor<1x1x5000x64xf32>, %v: tensor<1x1x5000x64xf32>, %mask: tensor<1x1x1x5000xf32> {kiln.test_range = [-8.0, 0.0]}) -> tensor<1x1x16x64xf32> {
  %scale = kiln.constant dense<0.125> : tensor<f32>
  %kt = kiln.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x1x5000x64xf32> -> tensor<1x1x64x5000xf32>
  %0 = kiln.matmul %q, %kt : tensor<1x1x16x64xf32>, tensor<1x1x64x5000xf32> -> tensor<1x1x16x5000xf32>
  %1 = kiln.mul %scale, %0 : tensor<f32>, tensor<1x1x16x5000xf32> -> tensor<1x1x16x5000xf32>
  %2 = kiln.add %1, %mask : tensor<1x1x16x5000xf32>, tensor<1x1x1x5000xf32> -> tensor<1x1x16x5000xf32>
  %3 = kiln.softmax %2 : tensor<1x1x16x5000xf32> -> tensor<1x1x16x5000xf32>
  %4 = kiln.matmul %3, %v : tensor<1x1x16x5000xf32>, tensor<1x1x5000x64xf32> -> tensor<1x1x16x64xf32>
  return %4 : tensor<1x1x16x64xf32>
}

// f16 storage, fp32 scores and statistics in the kernel; the reference
// rounds every decomposed op to f16.
func.func @f16_mask_128(%q: tensor<1x4x128x64xf16>, %k: tensor<1x4x128x64xf16>, %v: tensor<1x4x128x64xf16>, %mask: tensor<1x1x128x128xf16>) -> tensor<1x4x128x64xf16>
    attributes {kiln.test_tolerance = [2.0e-2, 5.0e-3]} {
  %scale = kiln.constant dense<0.125> : tensor<f16>
  %kt = kiln.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x4x128x64xf16> -> tensor<1x4x64x128xf16>
  %0 = kiln.matmul %q, %kt : tensor<1x4x128x64xf16>, tensor<1x4x64x128xf16> -> tensor<1x4x128x128xf16>
  %1 = kiln.mul %0, %scale : tensor<1x4x128x128xf16>, tensor<f16> -> tensor<1x4x128x128xf16>
  %2 = kiln.add %1, %mask : tensor<1x4x128x128xf16>, tensor<1x1x128x128xf16> -> tensor<1x4x128x128xf16>
  %3 = kiln.softmax %2 : tensor<1x4x128x128xf16> -> tensor<1x4x128x128xf16>
  %4 = kiln.matmul %3, %v : tensor<1x4x128x128xf16>, tensor<1x4x128x64xf16> -> tensor<1x4x128x64xf16>
  return %4 : tensor<1x4x128x64xf16>
}

func.func @f16_padding_odd(%q: tensor<2x3x77x40xf16>, %k: tensor<2x3x300x40xf16>, %v: tensor<2x3x300x40xf16>, %mask: tensor<2x1x1x300xf16> {kiln.test_range = [-4.0, 0.0]}) -> tensor<2x3x77x40xf16>
    attributes {kiln.test_tolerance = [2.0e-2, 5.0e-3]} {
  %root = kiln.constant dense<6.32455532> : tensor<f16>
  %kt = kiln.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x3x300x40xf16> -> tensor<2x3x40x300xf16>
  %0 = kiln.matmul %q, %kt : tensor<2x3x77x40xf16>, tensor<2x3x40x300xf16> -> tensor<2x3x77x300xf16>
  %1 = kiln.div %0, %root : tensor<2x3x77x300xf16>, tensor<f16> -> tensor<2x3x77x300xf16>
  %2 = kiln.add %mask, %1 : tensor<2x1x1x300xf16>, tensor<2x3x77x300xf16> -> tensor<2x3x77x300xf16>
  %3 = kiln.softmax %2 : tensor<2x3x77x300xf16> -> tensor<2x3x77x300xf16>
  %4 = kiln.matmul %3, %v : tensor<2x3x77x300xf16>, tensor<2x3x300x40xf16> -> tensor<2x3x77x40xf16>
  return %4 : tensor<2x3x77x40xf16>
}

// BERT's layout: K^T = transpose([b, s, h, d], [0, 2, 3, 1]); the recogniser
// composes it into K = transpose(x, [0, 2, 1, 3]), which the attention
// kernel reads by strides (the row kernel, elementally): one kernel.
func.func @f32_transposed_keys(%q: tensor<1x2x33x16xf32>, %x: tensor<1x33x2x16xf32>, %v: tensor<1x2x33x16xf32>) -> tensor<1x2x33x16xf32> {
  %scale = kiln.constant dense<0.25> : tensor<f32>
  %kt = kiln.transpose %x {perm = array<i64: 0, 2, 3, 1>} : tensor<1x33x2x16xf32> -> tensor<1x2x16x33xf32>
  %0 = kiln.matmul %q, %kt : tensor<1x2x33x16xf32>, tensor<1x2x16x33xf32> -> tensor<1x2x33x33xf32>
  %1 = kiln.mul %0, %scale : tensor<1x2x33x33xf32>, tensor<f32> -> tensor<1x2x33x33xf32>
  %2 = kiln.softmax %1 : tensor<1x2x33x33xf32> -> tensor<1x2x33x33xf32>
  %3 = kiln.matmul %2, %v : tensor<1x2x33x33xf32>, tensor<1x2x33x16xf32> -> tensor<1x2x33x16xf32>
  return %3 : tensor<1x2x33x16xf32>
}

// The flash kernel (f16/bf16, tensor cores). BERT-base's attention at batch
// 8, sequence 128 (12 heads of 64; the other BERT-shaped cases take 2 heads
// to keep the bundle small) with a padding mask [8, 1, 1, 128] of 0 and the
// dtype's lowest value (-65504 for f16, -3.39e38 for bf16) on about a quarter
// of the keys, made from a random input.
func.func @f16_bert_padding(%q: tensor<8x12x128x64xf16>, %k: tensor<8x12x128x64xf16>, %v: tensor<8x12x128x64xf16>, %raw: tensor<8x1x1x128xf16>) -> tensor<8x12x128x64xf16>
    attributes {kiln.test_tolerance = [2.0e-2, 5.0e-3]} {
  %half = kiln.constant dense<-5.000000e-01> : tensor<f16>
  %big = kiln.constant dense<-65504.0> : tensor<f16>
  %zero = kiln.constant dense<0.0> : tensor<f16>
  %drop = kiln.less %raw, %half : tensor<8x1x1x128xf16>, tensor<f16> -> tensor<8x1x1x128xi1>
  %mask = kiln.where %drop, %big, %zero : tensor<8x1x1x128xi1>, tensor<f16>, tensor<f16> -> tensor<8x1x1x128xf16>
  %scale = kiln.constant dense<0.125> : tensor<f16>
  %kt = kiln.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<8x12x128x64xf16> -> tensor<8x12x64x128xf16>
  %0 = kiln.matmul %q, %kt : tensor<8x12x128x64xf16>, tensor<8x12x64x128xf16> -> tensor<8x12x128x128xf16>
  %1 = kiln.mul %0, %scale : tensor<8x12x128x128xf16>, tensor<f16> -> tensor<8x12x128x128xf16>
  %2 = kiln.add %1, %mask : tensor<8x12x128x128xf16>, tensor<8x1x1x128xf16> -> tensor<8x12x128x128xf16>
  %3 = kiln.softmax %2 : tensor<8x12x128x128xf16> -> tensor<8x12x128x128xf16>
  %4 = kiln.matmul %3, %v : tensor<8x12x128x128xf16>, tensor<8x12x128x64xf16> -> tensor<8x12x128x64xf16>
  return %4 : tensor<8x12x128x64xf16>
}

func.func @bf16_bert_padding(%q: tensor<8x2x128x64xbf16>, %k: tensor<8x2x128x64xbf16>, %v: tensor<8x2x128x64xbf16>, %raw: tensor<8x1x1x128xbf16>) -> tensor<8x2x128x64xbf16>
    attributes {kiln.test_tolerance = [3.0e-2, 2.0e-2]} {
  %half = kiln.constant dense<-5.000000e-01> : tensor<bf16>
  %big = kiln.constant dense<-3.38953139e+38> : tensor<bf16>
  %zero = kiln.constant dense<0.0> : tensor<bf16>
  %drop = kiln.less %raw, %half : tensor<8x1x1x128xbf16>, tensor<bf16> -> tensor<8x1x1x128xi1>
  %mask = kiln.where %drop, %big, %zero : tensor<8x1x1x128xi1>, tensor<bf16>, tensor<bf16> -> tensor<8x1x1x128xbf16>
  %scale = kiln.constant dense<0.125> : tensor<bf16>
  %kt = kiln.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<8x2x128x64xbf16> -> tensor<8x2x64x128xbf16>
  %0 = kiln.matmul %q, %kt : tensor<8x2x128x64xbf16>, tensor<8x2x64x128xbf16> -> tensor<8x2x128x128xbf16>
  %1 = kiln.mul %0, %scale : tensor<8x2x128x128xbf16>, tensor<bf16> -> tensor<8x2x128x128xbf16>
  %2 = kiln.add %1, %mask : tensor<8x2x128x128xbf16>, tensor<8x1x1x128xbf16> -> tensor<8x2x128x128xbf16>
  %3 = kiln.softmax %2 : tensor<8x2x128x128xbf16> -> tensor<8x2x128x128xbf16>
  %4 = kiln.matmul %3, %v : tensor<8x2x128x128xbf16>, tensor<8x2x128x64xbf16> -> tensor<8x2x128x64xbf16>
  return %4 : tensor<8x2x128x64xbf16>
}

// A causal mask [1, 1, 128, 128]: the lowest value above the diagonal.
func.func @f16_bert_causal(%q: tensor<8x2x128x64xf16>, %k: tensor<8x2x128x64xf16>, %v: tensor<8x2x128x64xf16>) -> tensor<8x2x128x64xf16>
    attributes {kiln.test_tolerance = [2.0e-2, 5.0e-3]} {
  %big = kiln.constant dense<-65504.0> : tensor<1x1x128x128xf16>
  %one = kiln.constant dense<1> : tensor<i64>
  %mask = kiln.trilu %big, %one {upper = true} : tensor<1x1x128x128xf16>, tensor<i64> -> tensor<1x1x128x128xf16>
  %scale = kiln.constant dense<0.125> : tensor<f16>
  %kt = kiln.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<8x2x128x64xf16> -> tensor<8x2x64x128xf16>
  %0 = kiln.matmul %q, %kt : tensor<8x2x128x64xf16>, tensor<8x2x64x128xf16> -> tensor<8x2x128x128xf16>
  %1 = kiln.mul %0, %scale : tensor<8x2x128x128xf16>, tensor<f16> -> tensor<8x2x128x128xf16>
  %2 = kiln.add %1, %mask : tensor<8x2x128x128xf16>, tensor<1x1x128x128xf16> -> tensor<8x2x128x128xf16>
  %3 = kiln.softmax %2 : tensor<8x2x128x128xf16> -> tensor<8x2x128x128xf16>
  %4 = kiln.matmul %3, %v : tensor<8x2x128x128xf16>, tensor<8x2x128x64xf16> -> tensor<8x2x128x64xf16>
  return %4 : tensor<8x2x128x64xf16>
}

func.func @bf16_bert_causal(%q: tensor<8x2x128x64xbf16>, %k: tensor<8x2x128x64xbf16>, %v: tensor<8x2x128x64xbf16>) -> tensor<8x2x128x64xbf16>
    attributes {kiln.test_tolerance = [3.0e-2, 2.0e-2]} {
  %big = kiln.constant dense<-3.38953139e+38> : tensor<1x1x128x128xbf16>
  %one = kiln.constant dense<1> : tensor<i64>
  %mask = kiln.trilu %big, %one {upper = true} : tensor<1x1x128x128xbf16>, tensor<i64> -> tensor<1x1x128x128xbf16>
  %scale = kiln.constant dense<0.125> : tensor<bf16>
  %kt = kiln.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<8x2x128x64xbf16> -> tensor<8x2x64x128xbf16>
  %0 = kiln.matmul %q, %kt : tensor<8x2x128x64xbf16>, tensor<8x2x64x128xbf16> -> tensor<8x2x128x128xbf16>
  %1 = kiln.mul %0, %scale : tensor<8x2x128x128xbf16>, tensor<bf16> -> tensor<8x2x128x128xbf16>
  %2 = kiln.add %1, %mask : tensor<8x2x128x128xbf16>, tensor<1x1x128x128xbf16> -> tensor<8x2x128x128xbf16>
  %3 = kiln.softmax %2 : tensor<8x2x128x128xbf16> -> tensor<8x2x128x128xbf16>
  %4 = kiln.matmul %3, %v : tensor<8x2x128x128xbf16>, tensor<8x2x128x64xbf16> -> tensor<8x2x128x64xbf16>
  return %4 : tensor<8x2x128x64xbf16>
}

// Query and key counts that are not multiples of the tiles (64 rows, 64 keys).
func.func @f16_flash_odd(%q: tensor<2x3x77x64xf16>, %k: tensor<2x3x300x64xf16>, %v: tensor<2x3x300x64xf16>, %mask: tensor<2x1x1x300xf16> {kiln.test_range = [-4.0, 0.0]}) -> tensor<2x3x77x64xf16>
    attributes {kiln.test_tolerance = [2.0e-2, 5.0e-3]} {
  %scale = kiln.constant dense<0.125> : tensor<f16>
  %kt = kiln.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x3x300x64xf16> -> tensor<2x3x64x300xf16>
  %0 = kiln.matmul %q, %kt : tensor<2x3x77x64xf16>, tensor<2x3x64x300xf16> -> tensor<2x3x77x300xf16>
  %1 = kiln.mul %0, %scale : tensor<2x3x77x300xf16>, tensor<f16> -> tensor<2x3x77x300xf16>
  %2 = kiln.add %1, %mask : tensor<2x3x77x300xf16>, tensor<2x1x1x300xf16> -> tensor<2x3x77x300xf16>
  %3 = kiln.softmax %2 : tensor<2x3x77x300xf16> -> tensor<2x3x77x300xf16>
  %4 = kiln.matmul %3, %v : tensor<2x3x77x300xf16>, tensor<2x3x300x64xf16> -> tensor<2x3x77x64xf16>
  return %4 : tensor<2x3x77x64xf16>
}

func.func @bf16_flash_odd(%q: tensor<2x3x77x64xbf16>, %k: tensor<2x3x300x64xbf16>, %v: tensor<2x3x300x64xbf16>, %mask: tensor<2x1x1x300xbf16> {kiln.test_range = [-4.0, 0.0]}) -> tensor<2x3x77x64xbf16>
    attributes {kiln.test_tolerance = [3.0e-2, 2.0e-2]} {
  %scale = kiln.constant dense<0.125> : tensor<bf16>
  %kt = kiln.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<2x3x300x64xbf16> -> tensor<2x3x64x300xbf16>
  %0 = kiln.matmul %q, %kt : tensor<2x3x77x64xbf16>, tensor<2x3x64x300xbf16> -> tensor<2x3x77x300xbf16>
  %1 = kiln.mul %0, %scale : tensor<2x3x77x300xbf16>, tensor<bf16> -> tensor<2x3x77x300xbf16>
  %2 = kiln.add %1, %mask : tensor<2x3x77x300xbf16>, tensor<2x1x1x300xbf16> -> tensor<2x3x77x300xbf16>
  %3 = kiln.softmax %2 : tensor<2x3x77x300xbf16> -> tensor<2x3x77x300xbf16>
  %4 = kiln.matmul %3, %v : tensor<2x3x77x300xbf16>, tensor<2x3x300x64xbf16> -> tensor<2x3x77x64xbf16>
  return %4 : tensor<2x3x77x64xbf16>
}

// Head size 128, 512 queries and keys, no mask.
func.func @f16_head_128(%q: tensor<1x2x512x128xf16>, %k: tensor<1x2x512x128xf16>, %v: tensor<1x2x512x128xf16>) -> tensor<1x2x512x128xf16>
    attributes {kiln.test_tolerance = [2.0e-2, 5.0e-3]} {
  %scale = kiln.constant dense<0.0883883461> : tensor<f16>
  %kt = kiln.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x512x128xf16> -> tensor<1x2x128x512xf16>
  %0 = kiln.matmul %q, %kt : tensor<1x2x512x128xf16>, tensor<1x2x128x512xf16> -> tensor<1x2x512x512xf16>
  %1 = kiln.mul %0, %scale : tensor<1x2x512x512xf16>, tensor<f16> -> tensor<1x2x512x512xf16>
  %3 = kiln.softmax %1 : tensor<1x2x512x512xf16> -> tensor<1x2x512x512xf16>
  %4 = kiln.matmul %3, %v : tensor<1x2x512x512xf16>, tensor<1x2x512x128xf16> -> tensor<1x2x512x128xf16>
  return %4 : tensor<1x2x512x128xf16>
}

// 2048 keys: 32 key tiles of the online softmax.
func.func @f16_keys_2048(%q: tensor<1x2x64x64xf16>, %k: tensor<1x2x2048x64xf16>, %v: tensor<1x2x2048x64xf16>, %mask: tensor<1x1x64x2048xf16>) -> tensor<1x2x64x64xf16>
    attributes {kiln.test_tolerance = [2.0e-2, 5.0e-3]} {
  %scale = kiln.constant dense<0.125> : tensor<f16>
  %kt = kiln.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x2048x64xf16> -> tensor<1x2x64x2048xf16>
  %0 = kiln.matmul %q, %kt : tensor<1x2x64x64xf16>, tensor<1x2x64x2048xf16> -> tensor<1x2x64x2048xf16>
  %1 = kiln.mul %0, %scale : tensor<1x2x64x2048xf16>, tensor<f16> -> tensor<1x2x64x2048xf16>
  %2 = kiln.add %1, %mask : tensor<1x2x64x2048xf16>, tensor<1x1x64x2048xf16> -> tensor<1x2x64x2048xf16>
  %3 = kiln.softmax %2 : tensor<1x2x64x2048xf16> -> tensor<1x2x64x2048xf16>
  %4 = kiln.matmul %3, %v : tensor<1x2x64x2048xf16>, tensor<1x2x2048x64xf16> -> tensor<1x2x64x64xf16>
  return %4 : tensor<1x2x64x64xf16>
}

// Value head size 40 (five n8 tiles) with key head size 64; 50 queries, 70 keys.
func.func @f16_value_head_40(%q: tensor<1x2x50x64xf16>, %k: tensor<1x2x70x64xf16>, %v: tensor<1x2x70x40xf16>, %mask: tensor<1x1x50x70xf16>) -> tensor<1x2x50x40xf16>
    attributes {kiln.test_tolerance = [2.0e-2, 5.0e-3]} {
  %scale = kiln.constant dense<0.125> : tensor<f16>
  %kt = kiln.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x70x64xf16> -> tensor<1x2x64x70xf16>
  %0 = kiln.matmul %q, %kt : tensor<1x2x50x64xf16>, tensor<1x2x64x70xf16> -> tensor<1x2x50x70xf16>
  %1 = kiln.mul %0, %scale : tensor<1x2x50x70xf16>, tensor<f16> -> tensor<1x2x50x70xf16>
  %2 = kiln.add %1, %mask : tensor<1x2x50x70xf16>, tensor<1x1x50x70xf16> -> tensor<1x2x50x70xf16>
  %3 = kiln.softmax %2 : tensor<1x2x50x70xf16> -> tensor<1x2x50x70xf16>
  %4 = kiln.matmul %3, %v : tensor<1x2x50x70xf16>, tensor<1x2x70x40xf16> -> tensor<1x2x50x40xf16>
  return %4 : tensor<1x2x50x40xf16>
}

// GPT-2 at sequence 1024 (2 of its 12 heads): its mask is where(causal, 0,
// float32 min), which kiln's fp16 conversion makes -65504; the flash kernel
// visits key tiles 0 ... i for query tile i.
func.func @f16_gpt2_causal(%q: tensor<1x2x1024x64xf16>, %k: tensor<1x2x1024x64xf16>, %v: tensor<1x2x1024x64xf16>) -> tensor<1x2x1024x64xf16>
    attributes {kiln.test_tolerance = [2.0e-2, 5.0e-3]} {
  %big = kiln.constant dense<-65504.0> : tensor<1x1x1024x1024xf16>
  %one = kiln.constant dense<1> : tensor<i64>
  %mask = kiln.trilu %big, %one {upper = true} : tensor<1x1x1024x1024xf16>, tensor<i64> -> tensor<1x1x1024x1024xf16>
  %scale = kiln.constant dense<0.125> : tensor<f16>
  %kt = kiln.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x1024x64xf16> -> tensor<1x2x64x1024xf16>
  %0 = kiln.matmul %q, %kt : tensor<1x2x1024x64xf16>, tensor<1x2x64x1024xf16> -> tensor<1x2x1024x1024xf16>
  %1 = kiln.mul %0, %scale : tensor<1x2x1024x1024xf16>, tensor<f16> -> tensor<1x2x1024x1024xf16>
  %2 = kiln.add %1, %mask : tensor<1x2x1024x1024xf16>, tensor<1x1x1024x1024xf16> -> tensor<1x2x1024x1024xf16>
  %3 = kiln.softmax %2 : tensor<1x2x1024x1024xf16> -> tensor<1x2x1024x1024xf16>
  %4 = kiln.matmul %3, %v : tensor<1x2x1024x1024xf16>, tensor<1x2x1024x64xf16> -> tensor<1x2x1024x64xf16>
  return %4 : tensor<1x2x1024x64xf16>
}

// A causal mask (200 rows and keys) whose last 10 query rows are -65504
// throughout: their query tiles (rows 128-191 and 192-199) keep every key
// tile and average v uniformly; the first two stop at the diagonal. Those
// rows' queries are zeroed (times %keep) so that their scores are exactly
// equal in the f16 reference and the fp32 kernel alike.
func.func @f16_causal_masked_tail(%q: tensor<1x2x200x64xf16>, %k: tensor<1x2x200x64xf16>, %v: tensor<1x2x200x64xf16>) -> tensor<1x2x200x64xf16>
    attributes {kiln.test_tolerance = [2.0e-2, 5.0e-3]} {
  %keep = kiln.constant dense<"0x003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C003C0000000000000000000000000000000000000000"> : tensor<1x1x200x1xf16>
  %tail = kiln.constant dense<"0x0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000FFFBFFFBFFFBFFFBFFFBFFFBFFFBFFFBFFFBFFFB"> : tensor<1x1x200x1xf16>
  %big = kiln.constant dense<-65504.0> : tensor<1x1x200x200xf16>
  %one = kiln.constant dense<1> : tensor<i64>
  %causal = kiln.trilu %big, %one {upper = true} : tensor<1x1x200x200xf16>, tensor<i64> -> tensor<1x1x200x200xf16>
  %mask = kiln.min %causal, %tail : tensor<1x1x200x200xf16>, tensor<1x1x200x1xf16> -> tensor<1x1x200x200xf16>
  %qk = kiln.mul %q, %keep : tensor<1x2x200x64xf16>, tensor<1x1x200x1xf16> -> tensor<1x2x200x64xf16>
  %scale = kiln.constant dense<0.125> : tensor<f16>
  %kt = kiln.transpose %k {perm = array<i64: 0, 1, 3, 2>} : tensor<1x2x200x64xf16> -> tensor<1x2x64x200xf16>
  %0 = kiln.matmul %qk, %kt : tensor<1x2x200x64xf16>, tensor<1x2x64x200xf16> -> tensor<1x2x200x200xf16>
  %1 = kiln.mul %0, %scale : tensor<1x2x200x200xf16>, tensor<f16> -> tensor<1x2x200x200xf16>
  %2 = kiln.add %1, %mask : tensor<1x2x200x200xf16>, tensor<1x1x200x200xf16> -> tensor<1x2x200x200xf16>
  %3 = kiln.softmax %2 : tensor<1x2x200x200xf16> -> tensor<1x2x200x200xf16>
  %4 = kiln.matmul %3, %v : tensor<1x2x200x200xf16>, tensor<1x2x200x64xf16> -> tensor<1x2x200x64xf16>
  return %4 : tensor<1x2x200x64xf16>
}

// GPT-2's layout: q, k and v are column slices of one merged projection
// [s, 3 h d], split into heads and transposed to [b, h, s, d]; the output is
// transposed back and merged to [b, s, h d]. The attention kernel reads the
// slices by strides and writes the [b, s, h, d] order itself: one kernel.
func.func @f16_gpt2_projection(%qkv: tensor<256x768xf16>) -> tensor<1x256x256xf16>
    attributes {kiln.test_tolerance = [2.0e-2, 5.0e-3]} {
  %big = kiln.constant dense<-65504.0> : tensor<1x1x256x256xf16>
  %one = kiln.constant dense<1> : tensor<i64>
  %mask = kiln.trilu %big, %one {upper = true} : tensor<1x1x256x256xf16>, tensor<i64> -> tensor<1x1x256x256xf16>
  %shape3 = kiln.constant dense<[1, 256, 768]> : tensor<3xi64>
  %x = kiln.reshape %qkv, %shape3 : tensor<256x768xf16>, tensor<3xi64> -> tensor<1x256x768xf16>
  %axes = kiln.constant dense<2> : tensor<1xi64>
  %steps = kiln.constant dense<1> : tensor<1xi64>
  %s0 = kiln.constant dense<0> : tensor<1xi64>
  %s1 = kiln.constant dense<256> : tensor<1xi64>
  %s2 = kiln.constant dense<512> : tensor<1xi64>
  %s3 = kiln.constant dense<768> : tensor<1xi64>
  %heads = kiln.constant dense<[1, 256, 4, 64]> : tensor<4xi64>
  %qs = kiln.slice %x, %s0, %s1, %axes, %steps : tensor<1x256x768xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<1x256x256xf16>
  %ks = kiln.slice %x, %s1, %s2, %axes, %steps : tensor<1x256x768xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<1x256x256xf16>
  %vs = kiln.slice %x, %s2, %s3, %axes, %steps : tensor<1x256x768xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<1x256x256xf16>
  %qr = kiln.reshape %qs, %heads : tensor<1x256x256xf16>, tensor<4xi64> -> tensor<1x256x4x64xf16>
  %kr = kiln.reshape %ks, %heads : tensor<1x256x256xf16>, tensor<4xi64> -> tensor<1x256x4x64xf16>
  %vr = kiln.reshape %vs, %heads : tensor<1x256x256xf16>, tensor<4xi64> -> tensor<1x256x4x64xf16>
  %q = kiln.transpose %qr {perm = array<i64: 0, 2, 1, 3>} : tensor<1x256x4x64xf16> -> tensor<1x4x256x64xf16>
  %kt = kiln.transpose %kr {perm = array<i64: 0, 2, 3, 1>} : tensor<1x256x4x64xf16> -> tensor<1x4x64x256xf16>
  %v = kiln.transpose %vr {perm = array<i64: 0, 2, 1, 3>} : tensor<1x256x4x64xf16> -> tensor<1x4x256x64xf16>
  %scale = kiln.constant dense<0.125> : tensor<f16>
  %0 = kiln.matmul %q, %kt : tensor<1x4x256x64xf16>, tensor<1x4x64x256xf16> -> tensor<1x4x256x256xf16>
  %1 = kiln.mul %0, %scale : tensor<1x4x256x256xf16>, tensor<f16> -> tensor<1x4x256x256xf16>
  %2 = kiln.add %1, %mask : tensor<1x4x256x256xf16>, tensor<1x1x256x256xf16> -> tensor<1x4x256x256xf16>
  %3 = kiln.softmax %2 : tensor<1x4x256x256xf16> -> tensor<1x4x256x256xf16>
  %4 = kiln.matmul %3, %v : tensor<1x4x256x256xf16>, tensor<1x4x256x64xf16> -> tensor<1x4x256x64xf16>
  %5 = kiln.transpose %4 {perm = array<i64: 0, 2, 1, 3>} : tensor<1x4x256x64xf16> -> tensor<1x256x4x64xf16>
  %merged = kiln.constant dense<[1, 256, 256]> : tensor<3xi64>
  %6 = kiln.reshape %5, %merged : tensor<1x256x4x64xf16>, tensor<3xi64> -> tensor<1x256x256xf16>
  return %6 : tensor<1x256x256xf16>
}

// BERT's layout: a merged projection [b s, 3 h d] whose q/k/v column slices
// get a bias each before the split into heads (the add stays a kernel of
// its own, writing [b, s, h d]; the attention kernel reads its heads by
// strides), a padding mask, and the output written as [b s, h d].
func.func @f16_bert_projection(%qkv: tensor<256x384xf16>, %bias: tensor<384xf16>, %raw: tensor<2x1x1x128xf16>) -> tensor<256x128xf16>
    attributes {kiln.test_tolerance = [2.0e-2, 5.0e-3]} {
  %axes = kiln.constant dense<1> : tensor<1xi64>
  %baxes = kiln.constant dense<0> : tensor<1xi64>
  %steps = kiln.constant dense<1> : tensor<1xi64>
  %s0 = kiln.constant dense<0> : tensor<1xi64>
  %s1 = kiln.constant dense<128> : tensor<1xi64>
  %s2 = kiln.constant dense<256> : tensor<1xi64>
  %s3 = kiln.constant dense<384> : tensor<1xi64>
  %heads = kiln.constant dense<[2, 128, 2, 64]> : tensor<4xi64>
  %qs = kiln.slice %qkv, %s0, %s1, %axes, %steps : tensor<256x384xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<256x128xf16>
  %ks = kiln.slice %qkv, %s1, %s2, %axes, %steps : tensor<256x384xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<256x128xf16>
  %vs = kiln.slice %qkv, %s2, %s3, %axes, %steps : tensor<256x384xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<256x128xf16>
  %qb = kiln.slice %bias, %s0, %s1, %baxes, %steps : tensor<384xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<128xf16>
  %kb = kiln.slice %bias, %s1, %s2, %baxes, %steps : tensor<384xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<128xf16>
  %vb = kiln.slice %bias, %s2, %s3, %baxes, %steps : tensor<384xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<128xf16>
  %qa = kiln.add %qs, %qb : tensor<256x128xf16>, tensor<128xf16> -> tensor<256x128xf16>
  %ka = kiln.add %ks, %kb : tensor<256x128xf16>, tensor<128xf16> -> tensor<256x128xf16>
  %va = kiln.add %vs, %vb : tensor<256x128xf16>, tensor<128xf16> -> tensor<256x128xf16>
  %qr = kiln.reshape %qa, %heads : tensor<256x128xf16>, tensor<4xi64> -> tensor<2x128x2x64xf16>
  %kr = kiln.reshape %ka, %heads : tensor<256x128xf16>, tensor<4xi64> -> tensor<2x128x2x64xf16>
  %vr = kiln.reshape %va, %heads : tensor<256x128xf16>, tensor<4xi64> -> tensor<2x128x2x64xf16>
  %q = kiln.transpose %qr {perm = array<i64: 0, 2, 1, 3>} : tensor<2x128x2x64xf16> -> tensor<2x2x128x64xf16>
  %kt = kiln.transpose %kr {perm = array<i64: 0, 2, 3, 1>} : tensor<2x128x2x64xf16> -> tensor<2x2x64x128xf16>
  %v = kiln.transpose %vr {perm = array<i64: 0, 2, 1, 3>} : tensor<2x128x2x64xf16> -> tensor<2x2x128x64xf16>
  %half = kiln.constant dense<-5.000000e-01> : tensor<f16>
  %big = kiln.constant dense<-65504.0> : tensor<f16>
  %zero = kiln.constant dense<0.0> : tensor<f16>
  %drop = kiln.less %raw, %half : tensor<2x1x1x128xf16>, tensor<f16> -> tensor<2x1x1x128xi1>
  %mask = kiln.where %drop, %big, %zero : tensor<2x1x1x128xi1>, tensor<f16>, tensor<f16> -> tensor<2x1x1x128xf16>
  %scale = kiln.constant dense<0.125> : tensor<f16>
  %0 = kiln.matmul %q, %kt : tensor<2x2x128x64xf16>, tensor<2x2x64x128xf16> -> tensor<2x2x128x128xf16>
  %1 = kiln.mul %0, %scale : tensor<2x2x128x128xf16>, tensor<f16> -> tensor<2x2x128x128xf16>
  %2 = kiln.add %1, %mask : tensor<2x2x128x128xf16>, tensor<2x1x1x128xf16> -> tensor<2x2x128x128xf16>
  %3 = kiln.softmax %2 : tensor<2x2x128x128xf16> -> tensor<2x2x128x128xf16>
  %4 = kiln.matmul %3, %v : tensor<2x2x128x128xf16>, tensor<2x2x128x64xf16> -> tensor<2x2x128x64xf16>
  %5 = kiln.transpose %4 {perm = array<i64: 0, 2, 1, 3>} : tensor<2x2x128x64xf16> -> tensor<2x128x2x64xf16>
  %merged = kiln.constant dense<[256, 128]> : tensor<2xi64>
  %6 = kiln.reshape %5, %merged : tensor<2x128x2x64xf16>, tensor<2xi64> -> tensor<256x128xf16>
  return %6 : tensor<256x128xf16>
}

// The flash variant with a causal mask and fewer blocks than query tiles
// (grid 5 for 3 heads x 4 tiles): each block strides over tiles ordered
// longest first with the head varying fastest, so every (head, query tile)
// is still computed once.
func.func @f16_causal_grid_stride(%q: tensor<1x3x256x64xf16>, %k: tensor<1x3x256x64xf16>, %v: tensor<1x3x256x64xf16>) -> tensor<1x3x256x64xf16>
    attributes {kiln.test_tolerance = [2.0e-2, 5.0e-3]} {
  %e = kiln.empty : tensor<1x1x256x256xf16>
  %mask = kiln.kernel "causal_mask" data_movement outs(%e : tensor<1x1x256x256xf16>) attributes {block_size = 256 : i64, elements_per_thread = 1 : i64, grid_size = 256 : i64, vector_width = 1 : i64} {
  ^bb0(%o: tensor<1x1x256x256xf16>):
    %big = kiln.constant dense<-65504.0> : tensor<1x1x256x256xf16>
    %one = kiln.constant dense<1> : tensor<i64>
    %m = kiln.trilu %big, %one {upper = true} : tensor<1x1x256x256xf16>, tensor<i64> -> tensor<1x1x256x256xf16>
    kiln.yield %m : tensor<1x1x256x256xf16>
  } -> tensor<1x1x256x256xf16>
  %out = kiln.empty : tensor<1x3x256x64xf16>
  %r = kiln.kernel "attention_strided" attention ins(%q, %k, %v, %mask : tensor<1x3x256x64xf16>, tensor<1x3x256x64xf16>, tensor<1x3x256x64xf16>, tensor<1x1x256x256xf16>) outs(%out : tensor<1x3x256x64xf16>) attributes {block_size = 128 : i64, grid_size = 5 : i64, variant = #kiln.variant<flash>} {
  ^bb0(%a: tensor<1x3x256x64xf16>, %b: tensor<1x3x256x64xf16>, %c: tensor<1x3x256x64xf16>, %d: tensor<1x1x256x256xf16>, %o: tensor<1x3x256x64xf16>):
    %0 = kiln.attention %a, %b, %c, %d {scale = 1.250000e-01 : f32} : tensor<1x3x256x64xf16>, tensor<1x3x256x64xf16>, tensor<1x3x256x64xf16>, tensor<1x1x256x256xf16> -> tensor<1x3x256x64xf16>
    kiln.yield %0 : tensor<1x3x256x64xf16>
  } -> tensor<1x3x256x64xf16>
  return %r : tensor<1x3x256x64xf16>
}
