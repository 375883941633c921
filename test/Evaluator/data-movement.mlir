// Shape-carrying operands (Reshape shape, Slice starts/ends/axes/steps,
// Unsqueeze axes, Expand shape) are read from runtime values, not constants.
// RUN: %{make_tensor} %t/x.npy float32 2x3x4 range
// RUN: %{make_tensor} %t/shape.npy int64 2 0,-1
// RUN: %{make_tensor} %t/starts.npy int64 2 -1,1
// RUN: %{make_tensor} %t/ends.npy int64 2 -1000,100
// RUN: %{make_tensor} %t/axes.npy int64 2 0,1
// RUN: %{make_tensor} %t/steps.npy int32 2 -1,5
// RUN: %{make_tensor} %t/ids.npy int64 2x1 2,-3
// RUN: %{make_tensor} %t/expand.npy int64 3 2,1,1
// RUN: kiln-interpret %s --simplify=false --print-values --inputs %t/x.npy,%t/shape.npy,%t/starts.npy,%t/ends.npy,%t/axes.npy,%t/steps.npy,%t/ids.npy,%t/expand.npy | FileCheck %s
// CHECK:      output 0 'reshaped': float32[2x12]
// CHECK-NEXT:   values: [0, 1, 2, {{.*}}, 22, 23]
// Rows 1, 0 (start -1, step -1, end clamped to -1); columns 1, 6, 11.
// CHECK-NEXT: output 1 'sliced': float32[2x3]
// CHECK-NEXT:   values: [13, 18, 23, 1, 6, 11]
// Columns 2 and -3 (= 1) of the first 3x4 plane, transposed to 2x1x3.
// CHECK-NEXT: output 2 'gathered': float32[2x1x3]
// CHECK-NEXT:   values: [2, 6, 10, 1, 5, 9]
// CHECK-NEXT: output 3 'expanded': float32[2x2x3]
// CHECK-NEXT:   values: [13, 18, 23, 1, 6, 11, 13, 18, 23, 1, 6, 11]
// CHECK-NEXT: output 4 'joined': float32[2x6]
// CHECK-NEXT:   values: [13, 18, 23, 13, 18, 23, 1, 6, 11, 1, 6, 11]
// CHECK-NEXT: output 5 'flat': float32[6x4]

func.func @main(%x: tensor<2x3x4xf32>, %shape: tensor<2xi64>, %starts: tensor<2xi64>,
                %ends: tensor<2xi64>, %axes: tensor<2xi64>, %steps: tensor<2xi32>,
                %ids: tensor<2x1xi64>, %expand: tensor<3xi64>)
    -> (tensor<?x?xf32>, tensor<?x?xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<6x4xf32>)
    attributes {kiln.output_names = ["reshaped", "sliced", "gathered", "expanded", "joined", "flat"]} {
  %r = kiln.reshape %x, %shape : tensor<2x3x4xf32>, tensor<2xi64> -> tensor<?x?xf32>
  %s = kiln.slice %r, %starts, %ends, %axes, %steps : tensor<?x?xf32>, tensor<2xi64>, tensor<2xi64>, tensor<2xi64>, tensor<2xi32> -> tensor<?x?xf32>
  %zero = kiln.constant dense<0> : tensor<1xi64>
  %plane = kiln.gather %x, %zero {axis = 0 : i64} : tensor<2x3x4xf32>, tensor<1xi64> -> tensor<1x3x4xf32>
  %flat = kiln.squeeze %plane, %zero : tensor<1x3x4xf32>, tensor<1xi64> -> tensor<3x4xf32>
  %cols = kiln.gather %flat, %ids {axis = 1 : i64} : tensor<3x4xf32>, tensor<2x1xi64> -> tensor<*xf32>
  %t = kiln.transpose %cols {perm = array<i64: 1, 2, 0>} : tensor<*xf32> -> tensor<*xf32>
  %u = kiln.unsqueeze %s, %zero : tensor<?x?xf32>, tensor<1xi64> -> tensor<*xf32>
  %e = kiln.expand %u, %expand : tensor<*xf32>, tensor<3xi64> -> tensor<*xf32>
  %j = kiln.concat %s, %s {axis = 1 : i64} : tensor<?x?xf32>, tensor<?x?xf32> -> tensor<*xf32>
  %f = kiln.flatten %x {axis = -1 : i64} : tensor<2x3x4xf32> -> tensor<6x4xf32>
  return %r, %s, %t, %e, %j, %f : tensor<?x?xf32>, tensor<?x?xf32>, tensor<*xf32>, tensor<*xf32>, tensor<*xf32>, tensor<6x4xf32>
}
