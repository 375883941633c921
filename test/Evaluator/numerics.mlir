// Numerics of the evaluator through kiln-interpret: f16 rounding per op,
// Cast saturation, NaN-propagating ReduceMax, stable Softmax, MatMul, Gemm.
// RUN: %{make_tensor} %t/h.npy float16 4 1,2048,0.1,60000
// RUN: %{make_tensor} %t/f.npy float32 2x3 -2.9,1000,nan,1000,-1e30,0.5
// RUN: %{make_tensor} %t/m.npy float32 3x2 1,2,3,4,5,6
// RUN: kiln-interpret %s --print-values --inputs %t/h.npy,%t/f.npy,%t/m.npy | FileCheck %s
// 1 + 2^-11 ties to 1; 2048 + 1 ties to 2048; 60000 + 60000 overflows.
// CHECK:      output 0 'half_sum': float16[4]
// CHECK-NEXT:   values: [1, 2048, 0.0999755859, inf]
// CHECK-NEXT: output 1 'int8': int8[2x3]
// CHECK-NEXT:   values: [-2, 127, 0, 127, -128, 0]
// CHECK-NEXT: output 2 'row_max': float32[2x1]
// CHECK-NEXT:   values: [nan, 1000]
// A NaN poisons its whole softmax row; e^1000 must not overflow.
// CHECK-NEXT: output 3 'softmax': float32[2x3]
// CHECK-NEXT:   values: [nan, nan, nan, 1, 0, 0]
// CHECK-NEXT: output 4 'mean': float32[3]
// CHECK-NEXT:   values: [1.5, 3.5, 5.5]
// [[1,2],[3,4],[5,6]]^T x [[1,2],[3,4],[5,6]] = [[35,44],[44,56]], + 0.5 * 2
// CHECK-NEXT: output 5 'gemm': float32[2x2]
// CHECK-NEXT:   values: [36, 45, 45, 57]
// CHECK-NEXT: output 6 'matmul': float32[3x3]
// CHECK-NEXT:   values: [5, 11, 17, 11, 25, 39, 17, 39, 61]

func.func @main(%h: tensor<4xf16>, %f: tensor<2x3xf32>, %m: tensor<3x2xf32>)
    -> (tensor<4xf16>, tensor<2x3xi8>, tensor<2x1xf32>, tensor<2x3xf32>, tensor<3xf32>, tensor<2x2xf32>, tensor<3x3xf32>)
    attributes {kiln.output_names = ["half_sum", "int8", "row_max", "softmax", "mean", "gemm", "matmul"]} {
  %tiny = kiln.constant dense<[4.882810e-04, 1.0, 0.0, 60000.0]> : tensor<4xf16>
  %hs = kiln.add %h, %tiny : tensor<4xf16>, tensor<4xf16> -> tensor<4xf16>
  %i8 = kiln.cast %f {to = i8} : tensor<2x3xf32> -> tensor<2x3xi8>
  %axis = kiln.constant dense<[1]> : tensor<1xi64>
  %max = kiln.reduce_max %f, %axis : tensor<2x3xf32>, tensor<1xi64> -> tensor<2x1xf32>
  %sm = kiln.softmax %f {axis = 1 : i64} : tensor<2x3xf32> -> tensor<2x3xf32>
  %mean = kiln.reduce_mean %m, %axis {keepdims = false} : tensor<3x2xf32>, tensor<1xi64> -> tensor<3xf32>
  %bias = kiln.constant dense<2.0> : tensor<f32>
  %g = kiln.gemm %m, %m, %bias {beta = 0.5 : f32, trans_a = true} : tensor<3x2xf32>, tensor<3x2xf32>, tensor<f32> -> tensor<2x2xf32>
  %mt = kiln.transpose %m {perm = array<i64: 1, 0>} : tensor<3x2xf32> -> tensor<2x3xf32>
  %mm = kiln.matmul %m, %mt : tensor<3x2xf32>, tensor<2x3xf32> -> tensor<3x3xf32>
  return %hs, %i8, %max, %sm, %mean, %g, %mm : tensor<4xf16>, tensor<2x3xi8>, tensor<2x1xf32>, tensor<2x3xf32>, tensor<3xf32>, tensor<2x2xf32>, tensor<3x3xf32>
}
