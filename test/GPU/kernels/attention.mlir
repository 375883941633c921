// GPU kernel tests of kiln.attention: each function is the decomposed graph
// (MatMul, Mul/Div, Add, Softmax, MatMul) that exporters write; kiln-translate
// recognises it, so the attention kernel is checked against the CPU
// evaluator on the decomposed ops. Masks: [1, 1, sq, sk] and a [b, 1, 1, sk]
// padding mask; sizes 128/128/64, odd 77/300/40, sk = 2048 (one chunk) and
// sk = 5000 (two chunks of the online softmax); f32 and f16.
// RUN: rm -rf %t && kiln-translate %s --kernel-test-bundle %t | FileCheck %s
// CHECK: wrote case attention.f32_mask_128 (1 kernels, 1 launches)
// CHECK: wrote case attention.f32_padding_odd (1 kernels, 1 launches)
// CHECK: wrote case attention.f32_keys_2048 (1 kernels, 1 launches)
// CHECK: wrote case attention.f32_keys_5000_chunks (1 kernels, 1 launches)
// CHECK: wrote case attention.f16_mask_128 (1 kernels, 1 launches)
// CHECK: wrote case attention.f16_padding_odd (1 kernels, 1 launches)
// CHECK: wrote case attention.f32_transposed_keys (2 kernels, 2 launches)

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
// composes it into K = transpose(x, [0, 2, 1, 3]) (a kernel of its own).
func.func @f32_transposed_keys(%q: tensor<1x2x33x16xf32>, %x: tensor<1x33x2x16xf32>, %v: tensor<1x2x33x16xf32>) -> tensor<1x2x33x16xf32> {
  %scale = kiln.constant dense<0.25> : tensor<f32>
  %kt = kiln.transpose %x {perm = array<i64: 0, 2, 3, 1>} : tensor<1x33x2x16xf32> -> tensor<1x2x16x33xf32>
  %0 = kiln.matmul %q, %kt : tensor<1x2x33x16xf32>, tensor<1x2x16x33xf32> -> tensor<1x2x33x33xf32>
  %1 = kiln.mul %0, %scale : tensor<1x2x33x33xf32>, tensor<f32> -> tensor<1x2x33x33xf32>
  %2 = kiln.softmax %1 : tensor<1x2x33x33xf32> -> tensor<1x2x33x33xf32>
  %3 = kiln.matmul %2, %v : tensor<1x2x33x33xf32>, tensor<1x2x33x16xf32> -> tensor<1x2x33x16xf32>
  return %3 : tensor<1x2x33x16xf32>
}
