// RUN: kiln-opt %s --split-input-file --kiln-refine-types | FileCheck %s

// CHECK-LABEL: func.func @propagate
// CHECK-SAME: -> tensor<2x8xf32>
func.func @propagate(%x: tensor<2x8xf32>) -> tensor<?x8xf32> {
  // CHECK: kiln.relu %{{.*}} : tensor<2x8xf32> -> tensor<2x8xf32>
  %0 = kiln.relu %x : tensor<2x8xf32> -> tensor<?x8xf32>
  // CHECK: kiln.exp %{{.*}} : tensor<2x8xf32> -> tensor<2x8xf32>
  %1 = kiln.exp %0 : tensor<?x8xf32> -> tensor<?x8xf32>
  // CHECK: return %{{.*}} : tensor<2x8xf32>
  return %1 : tensor<?x8xf32>
}

// -----

// A reshape whose shape operand is constant gets a static result.
// CHECK-LABEL: func.func @reshape_constant_shape
func.func @reshape_constant_shape(%x: tensor<2x6xf32>) -> tensor<?x?xf32> {
  %shape = kiln.constant dense<[3, -1]> : tensor<2xi64>
  // CHECK: kiln.reshape {{.*}} -> tensor<3x4xf32>
  %0 = kiln.reshape %x, %shape : tensor<2x6xf32>, tensor<2xi64> -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// -----

// Dynamic dims that inference cannot know stay dynamic.
// CHECK-LABEL: func.func @keeps_unknown
func.func @keeps_unknown(%x: tensor<?x8xf32>, %y: tensor<8xf32>) -> tensor<?x8xf32> {
  // CHECK: kiln.add {{.*}} -> tensor<?x8xf32>
  %0 = kiln.add %x, %y : tensor<?x8xf32>, tensor<8xf32> -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}
