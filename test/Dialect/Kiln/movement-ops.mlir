// RUN: kiln-opt %s --split-input-file | kiln-opt --split-input-file | FileCheck %s
// Round trip and type inference of the movement ops (KilnMovementOps.td).

// CHECK-LABEL: func.func @generators
func.func @generators(%s: tensor<f32>, %l: tensor<f32>, %shape: tensor<2xi64>, %x: tensor<4x5xi32>, %ids: tensor<3xi64>, %v: tensor<2xf32>) {
  // CHECK: kiln.range {{.*}} -> tensor<?xf32>
  %0 = kiln.range %s, %l, %s : tensor<f32>, tensor<f32>, tensor<f32> -> tensor<?xf32>
  %c1 = kiln.constant dense<1.0> : tensor<f32>
  %c5 = kiln.constant dense<5.0> : tensor<f32>
  %c2 = kiln.constant dense<2.0> : tensor<f32>
  // CHECK: kiln.range {{.*}} -> tensor<2xf32>
  %1 = kiln.range %c1, %c5, %c2 : tensor<f32>, tensor<f32>, tensor<f32> -> tensor<2xf32>
  // CHECK: kiln.constant_of_shape {{.*}} -> tensor<?x?xf32>
  %2 = kiln.constant_of_shape %shape {value = dense<1.0> : tensor<1xf32>} : tensor<2xi64> -> tensor<?x?xf32>
  // CHECK: kiln.eye_like {{.*}} -> tensor<4x5xf64>
  %3 = kiln.eye_like %x {dtype = f64, k = 1 : i64} : tensor<4x5xi32> -> tensor<4x5xf64>
  // CHECK: kiln.size {{.*}} -> tensor<i64>
  %4 = kiln.size %x : tensor<4x5xi32> -> tensor<i64>
  %d = kiln.constant dense<10.0> : tensor<f32>
  // CHECK: kiln.one_hot {{.*}} -> tensor<3x10xf32>
  %5 = kiln.one_hot %ids, %d, %v {axis = -1 : i64} : tensor<3xi64>, tensor<f32>, tensor<2xf32> -> tensor<3x10xf32>
  return
}

// -----

// CHECK-LABEL: func.func @reindexing
func.func @reindexing(%x: tensor<1x8x2x3xf32>, %v: tensor<f32>, %k: tensor<i64>, %lens: tensor<4xi64>, %y: tensor<4x4xf32>) {
  %pads = kiln.constant dense<[0, 0, 1, 2, 0, 0, 0, 1]> : tensor<8xi64>
  // CHECK: kiln.pad {{.*}} value {{.*}} -> tensor<1x8x3x6xf32>
  %0 = kiln.pad %x, %pads value %v : tensor<f32> {mode = "constant"} : tensor<1x8x2x3xf32>, tensor<8xi64> -> tensor<1x8x3x6xf32>
  %reps = kiln.constant dense<[1, 1, 2, 1]> : tensor<4xi64>
  // CHECK: kiln.tile {{.*}} -> tensor<1x8x4x3xf32>
  %1 = kiln.tile %x, %reps : tensor<1x8x2x3xf32>, tensor<4xi64> -> tensor<1x8x4x3xf32>
  // CHECK: kiln.trilu {{.*}} {upper = false}
  %2 = kiln.trilu %x, %k {upper = false} : tensor<1x8x2x3xf32>, tensor<i64> -> tensor<1x8x2x3xf32>
  // CHECK: kiln.depth_to_space {{.*}} -> tensor<1x2x4x6xf32>
  %3 = kiln.depth_to_space %x {blocksize = 2 : i64, mode = "CRD"} : tensor<1x8x2x3xf32> -> tensor<1x2x4x6xf32>
  // CHECK: kiln.space_to_depth {{.*}} -> tensor<1x8x2x3xf32>
  %4 = kiln.space_to_depth %3 {blocksize = 2 : i64} : tensor<1x2x4x6xf32> -> tensor<1x8x2x3xf32>
  // CHECK: kiln.reverse_sequence
  %5 = kiln.reverse_sequence %y, %lens {batch_axis = 1 : i64, time_axis = 0 : i64} : tensor<4x4xf32>, tensor<4xi64> -> tensor<4x4xf32>
  return
}

// -----

// CHECK-LABEL: func.func @indexed
func.func @indexed(%x: tensor<3x4xf32>, %i: tensor<3x2xi64>, %u: tensor<3x2xf32>, %d: tensor<2x2x2xf32>, %n: tensor<2x1x2xi64>) {
  // CHECK: kiln.gather_elements {{.*}} -> tensor<3x2xf32>
  %0 = kiln.gather_elements %x, %i {axis = 1 : i64} : tensor<3x4xf32>, tensor<3x2xi64> -> tensor<3x2xf32>
  // CHECK: kiln.gather_nd {{.*}} -> tensor<2x1x2xf32>
  %1 = kiln.gather_nd %d, %n : tensor<2x2x2xf32>, tensor<2x1x2xi64> -> tensor<2x1x2xf32>
  // CHECK: kiln.scatter_elements {{.*}} reduction = "add"
  %2 = kiln.scatter_elements %x, %i, %u {axis = 1 : i64, reduction = "add"} : tensor<3x4xf32>, tensor<3x2xi64>, tensor<3x2xf32> -> tensor<3x4xf32>
  %k = kiln.constant dense<2> : tensor<1xi64>
  // CHECK: kiln.top_k {{.*}} -> tensor<3x2xi64>
  %3 = kiln.top_k %x, %k {axis = -1 : i64} : tensor<3x4xf32>, tensor<1xi64> -> tensor<3x2xi64>
  %s = kiln.constant dense<[1.0, 2.0]> : tensor<2xf32>
  // CHECK: kiln.resize {{.*}} scales {{.*}} -> tensor<3x8xf32>
  %4 = kiln.resize %x scales %s : tensor<2xf32> {mode = "linear"} : tensor<3x4xf32> -> tensor<3x8xf32>
  // CHECK: kiln.einsum {{.*}} -> tensor<4x3xf32>
  %5 = kiln.einsum %x {equation = "ij->ji"} : tensor<3x4xf32> -> tensor<4x3xf32>
  // CHECK: kiln.einsum {{.*}} -> tensor<3x3xf32>
  %6 = kiln.einsum %x, %x {equation = "ik,jk"} : tensor<3x4xf32>, tensor<3x4xf32> -> tensor<3x3xf32>
  return
}
