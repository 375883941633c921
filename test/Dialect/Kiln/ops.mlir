// RUN: kiln-opt %s --split-input-file | kiln-opt --split-input-file | FileCheck %s
// Round trip of every kiln op: parse, print, parse again.

// CHECK-LABEL: func.func @unary
func.func @unary(%x: tensor<2x?xf32>, %b: tensor<4xi1>) -> tensor<2x?xf32> {
  // CHECK: kiln.neg %{{.*}} : tensor<2x?xf32> -> tensor<2x?xf32>
  %0 = kiln.neg %x : tensor<2x?xf32> -> tensor<2x?xf32>
  // CHECK: kiln.abs
  %1 = kiln.abs %0 : tensor<2x?xf32> -> tensor<2x?xf32>
  // CHECK: kiln.exp
  %2 = kiln.exp %1 : tensor<2x?xf32> -> tensor<2x?xf32>
  // CHECK: kiln.log
  %3 = kiln.log %2 : tensor<2x?xf32> -> tensor<2x?xf32>
  // CHECK: kiln.sqrt
  %4 = kiln.sqrt %3 : tensor<2x?xf32> -> tensor<2x?xf32>
  // CHECK: kiln.reciprocal
  %5 = kiln.reciprocal %4 : tensor<2x?xf32> -> tensor<2x?xf32>
  // CHECK: kiln.relu
  %6 = kiln.relu %5 : tensor<2x?xf32> -> tensor<2x?xf32>
  // CHECK: kiln.sigmoid
  %7 = kiln.sigmoid %6 : tensor<2x?xf32> -> tensor<2x?xf32>
  // CHECK: kiln.tanh
  %8 = kiln.tanh %7 : tensor<2x?xf32> -> tensor<2x?xf32>
  // CHECK: kiln.erf
  %9 = kiln.erf %8 : tensor<2x?xf32> -> tensor<2x?xf32>
  // CHECK: kiln.identity
  %10 = kiln.identity %9 : tensor<2x?xf32> -> tensor<2x?xf32>
  // CHECK: kiln.not %{{.*}} : tensor<4xi1> -> tensor<4xi1>
  %11 = kiln.not %b : tensor<4xi1> -> tensor<4xi1>
  return %10 : tensor<2x?xf32>
}

// -----

// CHECK-LABEL: func.func @binary
func.func @binary(%x: tensor<4x1xf32>, %y: tensor<3xf32>, %i: tensor<4x1xi64>, %c: tensor<4x3xi1>) -> tensor<4x3xf32> {
  // CHECK: kiln.add %{{.*}}, %{{.*}} : tensor<4x1xf32>, tensor<3xf32> -> tensor<4x3xf32>
  %0 = kiln.add %x, %y : tensor<4x1xf32>, tensor<3xf32> -> tensor<4x3xf32>
  // CHECK: kiln.sub
  %1 = kiln.sub %0, %y : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
  // CHECK: kiln.mul
  %2 = kiln.mul %1, %x : tensor<4x3xf32>, tensor<4x1xf32> -> tensor<4x3xf32>
  // CHECK: kiln.div
  %3 = kiln.div %2, %x : tensor<4x3xf32>, tensor<4x1xf32> -> tensor<4x3xf32>
  // CHECK: kiln.pow %{{.*}}, %{{.*}} : tensor<4x3xf32>, tensor<4x1xi64> -> tensor<4x3xf32>
  %4 = kiln.pow %3, %i : tensor<4x3xf32>, tensor<4x1xi64> -> tensor<4x3xf32>
  // CHECK: kiln.equal {{.*}} -> tensor<4x3xi1>
  %5 = kiln.equal %4, %y : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xi1>
  // CHECK: kiln.less {{.*}} -> tensor<4x3xi1>
  %6 = kiln.less %4, %y : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xi1>
  // CHECK: kiln.greater {{.*}} -> tensor<4x3xi1>
  %7 = kiln.greater %4, %y : tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xi1>
  // CHECK: kiln.where %{{.*}}, %{{.*}}, %{{.*}} : tensor<4x3xi1>, tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
  %8 = kiln.where %c, %4, %y : tensor<4x3xi1>, tensor<4x3xf32>, tensor<3xf32> -> tensor<4x3xf32>
  // CHECK: kiln.cast %{{.*}} {to = f16} : tensor<4x3xf32> -> tensor<4x3xf16>
  %9 = kiln.cast %8 {to = f16} : tensor<4x3xf32> -> tensor<4x3xf16>
  return %8 : tensor<4x3xf32>
}

// -----

// CHECK-LABEL: func.func @contraction
func.func @contraction(%a: tensor<8x?x64xf32>, %b: tensor<64x128xf32>, %m: tensor<?x64xf32>, %w: tensor<128x64xf32>, %c: tensor<128xf32>) -> tensor<?x128xf32> {
  // CHECK: kiln.matmul %{{.*}}, %{{.*}} : tensor<8x?x64xf32>, tensor<64x128xf32> -> tensor<8x?x128xf32>
  %0 = kiln.matmul %a, %b : tensor<8x?x64xf32>, tensor<64x128xf32> -> tensor<8x?x128xf32>
  // CHECK: kiln.gemm %{{.*}}, %{{.*}}, %{{.*}} {trans_b = true} : tensor<?x64xf32>, tensor<128x64xf32>, tensor<128xf32> -> tensor<?x128xf32>
  %1 = kiln.gemm %m, %w, %c {trans_b = true} : tensor<?x64xf32>, tensor<128x64xf32>, tensor<128xf32> -> tensor<?x128xf32>
  // CHECK: kiln.gemm %{{.*}}, %{{.*}} {alpha = 5.000000e-01 : f32} : tensor<?x64xf32>, tensor<64x128xf32> -> tensor<?x128xf32>
  %2 = kiln.gemm %m, %b {alpha = 0.5 : f32} : tensor<?x64xf32>, tensor<64x128xf32> -> tensor<?x128xf32>
  return %1 : tensor<?x128xf32>
}

// -----

// CHECK-LABEL: func.func @reductions
func.func @reductions(%x: tensor<2x10xf32>) -> tensor<2x1xf32> {
  %axes = kiln.constant dense<1> : tensor<1xi64>
  // CHECK: kiln.softmax %{{.*}} : tensor<2x10xf32> -> tensor<2x10xf32>
  %0 = kiln.softmax %x {axis = -1 : i64} : tensor<2x10xf32> -> tensor<2x10xf32>
  // CHECK: kiln.reduce_sum %{{.*}}, %{{.*}} : tensor<2x10xf32>, tensor<1xi64> -> tensor<2x1xf32>
  %1 = kiln.reduce_sum %0, %axes : tensor<2x10xf32>, tensor<1xi64> -> tensor<2x1xf32>
  // CHECK: kiln.reduce_mean %{{.*}}, %{{.*}} {keepdims = false} : tensor<2x10xf32>, tensor<1xi64> -> tensor<2xf32>
  %2 = kiln.reduce_mean %0, %axes {keepdims = false} : tensor<2x10xf32>, tensor<1xi64> -> tensor<2xf32>
  // CHECK: kiln.reduce_max %{{.*}} : tensor<2x10xf32> -> tensor<1x1xf32>
  %3 = kiln.reduce_max %0 : tensor<2x10xf32> -> tensor<1x1xf32>
  return %1 : tensor<2x1xf32>
}

// -----

// CHECK-LABEL: func.func @data_movement
func.func @data_movement(%x: tensor<2x?xf32>, %t: tensor<1000x64xf32>, %ids: tensor<2x7xi64>) -> tensor<?x4xf32> {
  %shape = kiln.constant dense<[-1, 4]> : tensor<2xi64>
  // CHECK: kiln.reshape %{{.*}}, %{{.*}} : tensor<2x?xf32>, tensor<2xi64> -> tensor<?x4xf32>
  %0 = kiln.reshape %x, %shape : tensor<2x?xf32>, tensor<2xi64> -> tensor<?x4xf32>
  // CHECK: kiln.transpose %{{.*}} {perm = array<i64: 1, 0>} : tensor<?x4xf32> -> tensor<4x?xf32>
  %1 = kiln.transpose %0 {perm = array<i64: 1, 0>} : tensor<?x4xf32> -> tensor<4x?xf32>
  // CHECK: kiln.concat %{{.*}}, %{{.*}} {axis = 1 : i64} : tensor<4x?xf32>, tensor<4x?xf32> -> tensor<4x?xf32>
  %2 = kiln.concat %1, %1 {axis = 1 : i64} : tensor<4x?xf32>, tensor<4x?xf32> -> tensor<4x?xf32>
  %s = kiln.constant dense<1> : tensor<1xi64>
  %e = kiln.constant dense<3> : tensor<1xi64>
  %a = kiln.constant dense<0> : tensor<1xi64>
  %st = kiln.constant dense<1> : tensor<1xi64>
  // CHECK: kiln.slice {{.*}} -> tensor<2x?xf32>
  %3 = kiln.slice %2, %s, %e, %a, %st : tensor<4x?xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<2x?xf32>
  // CHECK: kiln.gather %{{.*}}, %{{.*}} : tensor<1000x64xf32>, tensor<2x7xi64> -> tensor<2x7x64xf32>
  %4 = kiln.gather %t, %ids {axis = 0 : i64} : tensor<1000x64xf32>, tensor<2x7xi64> -> tensor<2x7x64xf32>
  // CHECK: kiln.unsqueeze {{.*}} -> tensor<1x2x7x64xf32>
  %5 = kiln.unsqueeze %4, %a : tensor<2x7x64xf32>, tensor<1xi64> -> tensor<1x2x7x64xf32>
  // CHECK: kiln.squeeze {{.*}} -> tensor<2x7x64xf32>
  %6 = kiln.squeeze %5, %a : tensor<1x2x7x64xf32>, tensor<1xi64> -> tensor<2x7x64xf32>
  // CHECK: kiln.squeeze %{{.*}} : tensor<1x3xf32> -> tensor<3xf32>
  %c3 = kiln.constant dense<1.0> : tensor<1x3xf32>
  %7 = kiln.squeeze %c3 : tensor<1x3xf32> -> tensor<3xf32>
  // CHECK: kiln.flatten %{{.*}} : tensor<2x7x64xf32> -> tensor<2x448xf32>
  %8 = kiln.flatten %6 {axis = 1 : i64} : tensor<2x7x64xf32> -> tensor<2x448xf32>
  %es = kiln.constant dense<[5, 3]> : tensor<2xi64>
  // CHECK: kiln.expand %{{.*}}, %{{.*}} : tensor<3xf32>, tensor<2xi64> -> tensor<5x3xf32>
  %9 = kiln.expand %7, %es : tensor<3xf32>, tensor<2xi64> -> tensor<5x3xf32>
  // CHECK: kiln.shape %{{.*}} : tensor<2x?xf32> -> tensor<2xi64>
  %10 = kiln.shape %x : tensor<2x?xf32> -> tensor<2xi64>
  // CHECK: kiln.shape %{{.*}} {start = 1 : i64} : tensor<2x?xf32> -> tensor<1xi64>
  %11 = kiln.shape %x {start = 1 : i64} : tensor<2x?xf32> -> tensor<1xi64>
  return %0 : tensor<?x4xf32>
}

// -----

// CHECK-LABEL: func.func @constants
func.func @constants() -> (tensor<2xi64>, tensor<2x2xf16>, tensor<3xi1>, tensor<2xui8>) {
  // CHECK: kiln.constant dense<[2, -1]> : tensor<2xi64>
  %0 = kiln.constant dense<[2, -1]> : tensor<2xi64>
  // CHECK: kiln.constant dense<1.500000e+00> : tensor<2x2xf16>
  %1 = kiln.constant dense<1.5> : tensor<2x2xf16>
  // CHECK: kiln.constant dense<[true, false, true]> : tensor<3xi1>
  %2 = kiln.constant dense<[true, false, true]> : tensor<3xi1>
  // CHECK: kiln.constant dense<[0, 255]> : tensor<2xui8>
  %3 = kiln.constant dense<[0, 255]> : tensor<2xui8>
  return %0, %1, %2, %3 : tensor<2xi64>, tensor<2x2xf16>, tensor<3xi1>, tensor<2xui8>
}
