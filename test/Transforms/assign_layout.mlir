// RUN: kiln-opt %s --split-input-file --kiln-assign-layout | FileCheck %s

// conv -> relu -> conv runs channels-last: one transpose of the input at
// entry, one of the result at exit, the weights transposed to KRSC.
// CHECK-LABEL: func.func @conv_relu_conv
// CHECK-DAG: %[[X:.+]] = kiln.transpose %arg0 {perm = array<i64: 0, 2, 3, 1>} : tensor<2x4x6x6xf16> -> tensor<2x6x6x4xf16>
// CHECK-DAG: %[[W1:.+]] = kiln.transpose %{{.*}} {perm = array<i64: 0, 2, 3, 1>} : tensor<8x4x3x3xf16> -> tensor<8x3x3x4xf16>
// CHECK: %[[C1:.+]] = kiln.conv %[[X]], %[[W1]] {{.*}}layout = "NHWC"{{.*}} -> tensor<2x6x6x8xf16>
// CHECK: %[[R:.+]] = kiln.relu %[[C1]] : tensor<2x6x6x8xf16>
// CHECK: %[[W2:.+]] = kiln.transpose %{{.*}} {perm = array<i64: 0, 2, 3, 1>} : tensor<8x8x1x1xf16> -> tensor<8x1x1x8xf16>
// CHECK: %[[C2:.+]] = kiln.conv %[[R]], %[[W2]] {{.*}}layout = "NHWC"{{.*}} -> tensor<2x6x6x8xf16>
// CHECK: %[[Y:.+]] = kiln.transpose %[[C2]] {perm = array<i64: 0, 3, 1, 2>} : tensor<2x6x6x8xf16> -> tensor<2x8x6x6xf16>
// CHECK: return %[[Y]]
func.func @conv_relu_conv(%x: tensor<2x4x6x6xf16>) -> tensor<2x8x6x6xf16> {
  %w1 = kiln.constant dense<1.0> : tensor<8x4x3x3xf16>
  %w2 = kiln.constant dense<2.0> : tensor<8x8x1x1xf16>
  %c1 = kiln.conv %x, %w1 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<2x4x6x6xf16>, tensor<8x4x3x3xf16> -> tensor<2x8x6x6xf16>
  %r = kiln.relu %c1 : tensor<2x8x6x6xf16> -> tensor<2x8x6x6xf16>
  %c2 = kiln.conv %r, %w2 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<2x8x6x6xf16>, tensor<8x8x1x1xf16> -> tensor<2x8x6x6xf16>
  return %c2 : tensor<2x8x6x6xf16>
}

// -----

// A residual block after a stem: the add of two transposed values and the
// relu after it run channels-last; only the result is transposed back.
// CHECK-LABEL: func.func @residual
// CHECK: %[[X:.+]] = kiln.transpose %arg0 {perm = array<i64: 0, 2, 3, 1>}
// CHECK: %[[S:.+]] = kiln.conv %[[X]], {{.*}}layout = "NHWC"
// CHECK: %[[R0:.+]] = kiln.relu %[[S]] : tensor<1x3x3x8xf32>
// CHECK: %[[C1:.+]] = kiln.conv %[[R0]], {{.*}}layout = "NHWC"
// CHECK: %[[R1:.+]] = kiln.relu %[[C1]] : tensor<1x3x3x8xf32>
// CHECK: %[[C2:.+]] = kiln.conv %[[R1]], {{.*}}layout = "NHWC"
// CHECK: %[[A:.+]] = kiln.add %[[C2]], %[[R0]] : tensor<1x3x3x8xf32>, tensor<1x3x3x8xf32>
// CHECK: %[[R2:.+]] = kiln.relu %[[A]] : tensor<1x3x3x8xf32>
// CHECK-NOT: kiln.transpose
// CHECK: %[[Y:.+]] = kiln.transpose %[[R2]] {perm = array<i64: 0, 3, 1, 2>}
// CHECK-NOT: kiln.transpose
// CHECK: return %[[Y]]
func.func @residual(%x: tensor<1x4x3x3xf32>) -> tensor<1x8x3x3xf32> {
  %w0 = kiln.constant dense<0.25> : tensor<8x4x1x1xf32>
  %w1 = kiln.constant dense<1.0> : tensor<8x8x3x3xf32>
  %w2 = kiln.constant dense<0.5> : tensor<8x8x3x3xf32>
  %s = kiln.conv %x, %w0 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x3x3xf32>, tensor<8x4x1x1xf32> -> tensor<1x8x3x3xf32>
  %r0 = kiln.relu %s : tensor<1x8x3x3xf32> -> tensor<1x8x3x3xf32>
  %c1 = kiln.conv %r0, %w1 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x8x3x3xf32>, tensor<8x8x3x3xf32> -> tensor<1x8x3x3xf32>
  %r1 = kiln.relu %c1 : tensor<1x8x3x3xf32> -> tensor<1x8x3x3xf32>
  %c2 = kiln.conv %r1, %w2 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x8x3x3xf32>, tensor<8x8x3x3xf32> -> tensor<1x8x3x3xf32>
  %a = kiln.add %c2, %r0 : tensor<1x8x3x3xf32>, tensor<1x8x3x3xf32> -> tensor<1x8x3x3xf32>
  %r2 = kiln.relu %a : tensor<1x8x3x3xf32> -> tensor<1x8x3x3xf32>
  return %r2 : tensor<1x8x3x3xf32>
}

// -----

// Computed weights, grouped and dynamic convolutions stay NCHW.
// CHECK-LABEL: func.func @stays_nchw
// CHECK-NOT: kiln.transpose
// CHECK-NOT: layout
func.func @stays_nchw(%x: tensor<1x8x3x3xf32>, %w: tensor<8x8x1x1xf32>, %y: tensor<?x8x3x3xf32>) -> (tensor<1x8x3x3xf32>, tensor<1x8x3x3xf32>, tensor<?x8x3x3xf32>) {
  %d = kiln.constant dense<1.0> : tensor<8x1x1x1xf32>
  %c1 = kiln.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x8x3x3xf32>, tensor<8x8x1x1xf32> -> tensor<1x8x3x3xf32>
  %c2 = kiln.conv %x, %d {dilations = array<i64: 1, 1>, group = 8 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x8x3x3xf32>, tensor<8x1x1x1xf32> -> tensor<1x8x3x3xf32>
  %e = kiln.constant dense<1.0> : tensor<8x8x1x1xf32>
  %c3 = kiln.conv %y, %e {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<?x8x3x3xf32>, tensor<8x8x1x1xf32> -> tensor<?x8x3x3xf32>
  return %c1, %c2, %c3 : tensor<1x8x3x3xf32>, tensor<1x8x3x3xf32>, tensor<?x8x3x3xf32>
}
