// RUN: kiln-opt %s --split-input-file | kiln-opt --split-input-file | FileCheck %s
// Round trip of the math and logic ops (KilnMathOps.td) and their inferred
// result types; the invalid cases are in math-invalid.mlir.

// CHECK-LABEL: func.func @float_unary
func.func @float_unary(%x: tensor<2x?xf32>) -> tensor<2x?xf32> {
  // CHECK: kiln.acos %{{.*}} : tensor<2x?xf32> -> tensor<2x?xf32>
  %0 = kiln.acos %x : tensor<2x?xf32> -> tensor<2x?xf32>
  // CHECK: kiln.acosh
  %1 = kiln.acosh %0 : tensor<2x?xf32> -> tensor<2x?xf32>
  // CHECK: kiln.asin
  %2 = kiln.asin %1 : tensor<2x?xf32> -> tensor<2x?xf32>
  // CHECK: kiln.asinh
  %3 = kiln.asinh %2 : tensor<2x?xf32> -> tensor<2x?xf32>
  // CHECK: kiln.atan
  %4 = kiln.atan %3 : tensor<2x?xf32> -> tensor<2x?xf32>
  // CHECK: kiln.atanh
  %5 = kiln.atanh %4 : tensor<2x?xf32> -> tensor<2x?xf32>
  // CHECK: kiln.cos
  %6 = kiln.cos %5 : tensor<2x?xf32> -> tensor<2x?xf32>
  // CHECK: kiln.cosh
  %7 = kiln.cosh %6 : tensor<2x?xf32> -> tensor<2x?xf32>
  // CHECK: kiln.sin
  %8 = kiln.sin %7 : tensor<2x?xf32> -> tensor<2x?xf32>
  // CHECK: kiln.sinh
  %9 = kiln.sinh %8 : tensor<2x?xf32> -> tensor<2x?xf32>
  // CHECK: kiln.tan
  %10 = kiln.tan %9 : tensor<2x?xf32> -> tensor<2x?xf32>
  // CHECK: kiln.ceil
  %11 = kiln.ceil %10 : tensor<2x?xf32> -> tensor<2x?xf32>
  // CHECK: kiln.floor
  %12 = kiln.floor %11 : tensor<2x?xf32> -> tensor<2x?xf32>
  // CHECK: kiln.round
  %13 = kiln.round %12 : tensor<2x?xf32> -> tensor<2x?xf32>
  // CHECK: kiln.sign
  %14 = kiln.sign %13 : tensor<2x?xf32> -> tensor<2x?xf32>
  // CHECK: kiln.softplus
  %15 = kiln.softplus %14 : tensor<2x?xf32> -> tensor<2x?xf32>
  // CHECK: kiln.softsign
  %16 = kiln.softsign %15 : tensor<2x?xf32> -> tensor<2x?xf32>
  // CHECK: kiln.hard_swish
  %17 = kiln.hard_swish %16 : tensor<2x?xf32> -> tensor<2x?xf32>
  return %17 : tensor<2x?xf32>
}

// -----

// Attributes keep ONNX's defaults when absent and print only when set.
// CHECK-LABEL: func.func @activations
func.func @activations(%x: tensor<3xf16>) -> tensor<3xf16> {
  // CHECK: kiln.elu %{{.*}} {alpha = 2.000000e+00 : f32} : tensor<3xf16> -> tensor<3xf16>
  %0 = kiln.elu %x {alpha = 2.0 : f32} : tensor<3xf16> -> tensor<3xf16>
  // CHECK: kiln.selu %{{.*}} : tensor<3xf16> -> tensor<3xf16>
  %1 = kiln.selu %0 : tensor<3xf16> -> tensor<3xf16>
  // CHECK: kiln.celu
  %2 = kiln.celu %1 {alpha = 0.5 : f32} : tensor<3xf16> -> tensor<3xf16>
  // CHECK: kiln.leaky_relu
  %3 = kiln.leaky_relu %2 : tensor<3xf16> -> tensor<3xf16>
  // CHECK: kiln.hard_sigmoid %{{.*}} {alpha = 5.000000e-01 : f32, beta = 6.000000e-01 : f32}
  %4 = kiln.hard_sigmoid %3 {alpha = 0.5 : f32, beta = 0.6 : f32} : tensor<3xf16> -> tensor<3xf16>
  // CHECK: kiln.thresholded_relu
  %5 = kiln.thresholded_relu %4 : tensor<3xf16> -> tensor<3xf16>
  // CHECK: kiln.shrink %{{.*}} {bias = 1.500000e+00 : f32, lambd = 1.500000e+00 : f32}
  %6 = kiln.shrink %5 {bias = 1.5 : f32, lambd = 1.5 : f32} : tensor<3xf16> -> tensor<3xf16>
  return %6 : tensor<3xf16>
}

// -----

// CHECK-LABEL: func.func @predicates
func.func @predicates(%x: tensor<?x4xf64>) -> (tensor<?x4xi1>, tensor<?x4xi1>) {
  // CHECK: kiln.is_nan %{{.*}} : tensor<?x4xf64> -> tensor<?x4xi1>
  %0 = kiln.is_nan %x : tensor<?x4xf64> -> tensor<?x4xi1>
  // CHECK: kiln.is_inf %{{.*}} {detect_negative = false} : tensor<?x4xf64> -> tensor<?x4xi1>
  %1 = kiln.is_inf %x {detect_negative = false} : tensor<?x4xf64> -> tensor<?x4xi1>
  return %0, %1 : tensor<?x4xi1>, tensor<?x4xi1>
}

// -----

// CHECK-LABEL: func.func @binary
func.func @binary(%a: tensor<4x1xi32>, %b: tensor<3xi32>, %p: tensor<4x1xi1>, %q: tensor<3xi1>,
                  %u: tensor<3xui16>, %f: tensor<2x3xf32>, %s: tensor<f32>) {
  // CHECK: kiln.max %{{.*}}, %{{.*}} : tensor<4x1xi32>, tensor<3xi32> -> tensor<4x3xi32>
  %0 = kiln.max %a, %b : tensor<4x1xi32>, tensor<3xi32> -> tensor<4x3xi32>
  // CHECK: kiln.min
  %1 = kiln.min %a, %b : tensor<4x1xi32>, tensor<3xi32> -> tensor<4x3xi32>
  // CHECK: kiln.mod %{{.*}}, %{{.*}} : tensor<4x1xi32>, tensor<3xi32> -> tensor<4x3xi32>
  %2 = kiln.mod %a, %b : tensor<4x1xi32>, tensor<3xi32> -> tensor<4x3xi32>
  // CHECK: kiln.mod %{{.*}}, %{{.*}} {fmod = true}
  %3 = kiln.mod %f, %s {fmod = true} : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xf32>
  // CHECK: kiln.greater_or_equal {{.*}} -> tensor<4x3xi1>
  %4 = kiln.greater_or_equal %a, %b : tensor<4x1xi32>, tensor<3xi32> -> tensor<4x3xi1>
  // CHECK: kiln.less_or_equal {{.*}} -> tensor<2x3xi1>
  %5 = kiln.less_or_equal %f, %s : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xi1>
  // CHECK: kiln.and {{.*}} -> tensor<4x3xi1>
  %6 = kiln.and %p, %q : tensor<4x1xi1>, tensor<3xi1> -> tensor<4x3xi1>
  // CHECK: kiln.or
  %7 = kiln.or %p, %q : tensor<4x1xi1>, tensor<3xi1> -> tensor<4x3xi1>
  // CHECK: kiln.xor
  %8 = kiln.xor %p, %q : tensor<4x1xi1>, tensor<3xi1> -> tensor<4x3xi1>
  // CHECK: kiln.bit_shift %{{.*}}, %{{.*}} {direction = "left"} : tensor<3xui16>, tensor<3xui16> -> tensor<3xui16>
  %9 = kiln.bit_shift %u, %u {direction = "left"} : tensor<3xui16>, tensor<3xui16> -> tensor<3xui16>
  // CHECK: kiln.prelu
  %10 = kiln.prelu %f, %s : tensor<2x3xf32>, tensor<f32> -> tensor<2x3xf32>
  // CHECK: kiln.clip %{{.*}}, %{{.*}}, %{{.*}} : tensor<2x3xf32>, tensor<f32>, tensor<f32> -> tensor<2x3xf32>
  %11 = kiln.clip %f, %s, %s : tensor<2x3xf32>, tensor<f32>, tensor<f32> -> tensor<2x3xf32>
  return
}
