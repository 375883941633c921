// GPU kernel tests of kiln.gelu: each function is a decomposed GELU as
// exporters write it (BERT's erf form, GPT-2's tanh form) behind a bias add;
// kiln-translate recognises it, so the fused pointwise kernel (bias + gelu)
// is checked against the CPU evaluator on the decomposed ops. f32 and f16,
// rows of 4097 (tails).
// RUN: rm -rf %t && kiln-translate %s --kernel-test-bundle %t | FileCheck %s
// CHECK: wrote case gelu.erf_f32 (1 kernels, 1 launches)
// CHECK: wrote case gelu.tanh_f32 (1 kernels, 1 launches)
// CHECK: wrote case gelu.erf_f16 (1 kernels, 1 launches)
// CHECK: wrote case gelu.tanh_f16 (1 kernels, 1 launches)

func.func @erf_f32(%a: tensor<8x4097xf32> {kiln.test_range = [-5.0, 5.0]}, %b: tensor<4097xf32>) -> tensor<8x4097xf32> {
  %sqrt2 = kiln.constant dense<1.41421354> : tensor<f32>
  %one = kiln.constant dense<1.0> : tensor<f32>
  %half = kiln.constant dense<0.5> : tensor<f32>
  %x = kiln.add %a, %b : tensor<8x4097xf32>, tensor<4097xf32> -> tensor<8x4097xf32>
  %0 = kiln.div %x, %sqrt2 : tensor<8x4097xf32>, tensor<f32> -> tensor<8x4097xf32>
  %1 = kiln.erf %0 : tensor<8x4097xf32> -> tensor<8x4097xf32>
  %2 = kiln.add %1, %one : tensor<8x4097xf32>, tensor<f32> -> tensor<8x4097xf32>
  %3 = kiln.mul %x, %2 : tensor<8x4097xf32>, tensor<8x4097xf32> -> tensor<8x4097xf32>
  %4 = kiln.mul %3, %half : tensor<8x4097xf32>, tensor<f32> -> tensor<8x4097xf32>
  return %4 : tensor<8x4097xf32>
}

func.func @tanh_f32(%a: tensor<8x4097xf32> {kiln.test_range = [-5.0, 5.0]}, %b: tensor<4097xf32>) -> tensor<8x4097xf32> {
  %half = kiln.constant dense<0.5> : tensor<f32>
  %three = kiln.constant dense<3.0> : tensor<f32>
  %c = kiln.constant dense<4.471500e-02> : tensor<f32>
  %s = kiln.constant dense<0.797884583> : tensor<f32>
  %one = kiln.constant dense<1.0> : tensor<f32>
  %x = kiln.add %a, %b : tensor<8x4097xf32>, tensor<4097xf32> -> tensor<8x4097xf32>
  %0 = kiln.mul %x, %half : tensor<8x4097xf32>, tensor<f32> -> tensor<8x4097xf32>
  %1 = kiln.pow %x, %three : tensor<8x4097xf32>, tensor<f32> -> tensor<8x4097xf32>
  %2 = kiln.mul %1, %c : tensor<8x4097xf32>, tensor<f32> -> tensor<8x4097xf32>
  %3 = kiln.add %x, %2 : tensor<8x4097xf32>, tensor<8x4097xf32> -> tensor<8x4097xf32>
  %4 = kiln.mul %3, %s : tensor<8x4097xf32>, tensor<f32> -> tensor<8x4097xf32>
  %5 = kiln.tanh %4 : tensor<8x4097xf32> -> tensor<8x4097xf32>
  %6 = kiln.add %5, %one : tensor<8x4097xf32>, tensor<f32> -> tensor<8x4097xf32>
  %7 = kiln.mul %0, %6 : tensor<8x4097xf32>, tensor<8x4097xf32> -> tensor<8x4097xf32>
  return %7 : tensor<8x4097xf32>
}

// The reference rounds every decomposed op to f16; the kernel computes the
// GELU in float and rounds once.
func.func @erf_f16(%a: tensor<8x4097xf16> {kiln.test_range = [-5.0, 5.0]}, %b: tensor<4097xf16>) -> tensor<8x4097xf16>
    attributes {kiln.test_tolerance = [1.0e-2, 5.0e-3]} {
  %rsqrt2 = kiln.constant dense<0.707106769> : tensor<f16>
  %one = kiln.constant dense<1.0> : tensor<f16>
  %half = kiln.constant dense<0.5> : tensor<f16>
  %x = kiln.add %a, %b : tensor<8x4097xf16>, tensor<4097xf16> -> tensor<8x4097xf16>
  %0 = kiln.mul %x, %rsqrt2 : tensor<8x4097xf16>, tensor<f16> -> tensor<8x4097xf16>
  %1 = kiln.erf %0 : tensor<8x4097xf16> -> tensor<8x4097xf16>
  %2 = kiln.add %one, %1 : tensor<f16>, tensor<8x4097xf16> -> tensor<8x4097xf16>
  %3 = kiln.mul %half, %2 : tensor<f16>, tensor<8x4097xf16> -> tensor<8x4097xf16>
  %4 = kiln.mul %x, %3 : tensor<8x4097xf16>, tensor<8x4097xf16> -> tensor<8x4097xf16>
  return %4 : tensor<8x4097xf16>
}

func.func @tanh_f16(%a: tensor<8x4097xf16> {kiln.test_range = [-5.0, 5.0]}, %b: tensor<4097xf16>) -> tensor<8x4097xf16>
    attributes {kiln.test_tolerance = [1.0e-2, 5.0e-3]} {
  %half = kiln.constant dense<0.5> : tensor<f16>
  %c = kiln.constant dense<4.471500e-02> : tensor<f16>
  %s = kiln.constant dense<0.797884583> : tensor<f16>
  %one = kiln.constant dense<1.0> : tensor<f16>
  %x = kiln.add %a, %b : tensor<8x4097xf16>, tensor<4097xf16> -> tensor<8x4097xf16>
  %sq = kiln.mul %x, %x : tensor<8x4097xf16>, tensor<8x4097xf16> -> tensor<8x4097xf16>
  %1 = kiln.mul %sq, %x : tensor<8x4097xf16>, tensor<8x4097xf16> -> tensor<8x4097xf16>
  %2 = kiln.mul %1, %c : tensor<8x4097xf16>, tensor<f16> -> tensor<8x4097xf16>
  %3 = kiln.add %x, %2 : tensor<8x4097xf16>, tensor<8x4097xf16> -> tensor<8x4097xf16>
  %4 = kiln.mul %3, %s : tensor<8x4097xf16>, tensor<f16> -> tensor<8x4097xf16>
  %5 = kiln.tanh %4 : tensor<8x4097xf16> -> tensor<8x4097xf16>
  %6 = kiln.add %5, %one : tensor<8x4097xf16>, tensor<f16> -> tensor<8x4097xf16>
  %7 = kiln.mul %x, %6 : tensor<8x4097xf16>, tensor<8x4097xf16> -> tensor<8x4097xf16>
  %8 = kiln.mul %7, %half : tensor<8x4097xf16>, tensor<f16> -> tensor<8x4097xf16>
  return %8 : tensor<8x4097xf16>
}
