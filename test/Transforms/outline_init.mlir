// RUN: kiln-opt %s --split-input-file --kiln-outline-init | FileCheck %s

// A weight transform (an add of two constants) read through a broadcast by
// a gather: the broadcast stays in the entry function and @kiln_init
// returns the 4x4 sum, not the 8x4x4 copy of it (fusion reads the sum
// through the broadcast's index map).
// CHECK-LABEL: func.func @broadcast_into_gather
// CHECK: %[[SUM:.+]] = kiln.constant {kiln.init_result = 0 : i64} dense_resource<kiln_init.0> : tensor<1x4x4xi64>
// CHECK: %[[IDX:.+]] = kiln.expand %[[SUM]], %{{.+}} : tensor<1x4x4xi64>, tensor<3xi64> -> tensor<8x4x4xi64>
// CHECK: kiln.gather_elements %{{.+}}, %[[IDX]]
// CHECK: func.func private @kiln_init() -> tensor<1x4x4xi64>
// CHECK: kiln.add
// CHECK-NOT: kiln.expand
// CHECK: return
func.func @broadcast_into_gather(%x: tensor<8x4x6xf16>) -> tensor<8x4x4xf16> {
  %a = kiln.constant dense<1> : tensor<1x4x4xi64>
  %b = kiln.constant dense<2> : tensor<1x4x4xi64>
  %shape = kiln.constant dense<[8, 4, 4]> : tensor<3xi64>
  %sum = kiln.add %a, %b : tensor<1x4x4xi64>, tensor<1x4x4xi64> -> tensor<1x4x4xi64>
  %index = kiln.expand %sum, %shape : tensor<1x4x4xi64>, tensor<3xi64> -> tensor<8x4x4xi64>
  %g = kiln.gather_elements %x, %index {axis = -1 : i64} : tensor<8x4x6xf16>, tensor<8x4x4xi64> -> tensor<8x4x4xf16>
  return %g : tensor<8x4x4xf16>
}

// -----

// The same broadcast read by a library matmul, which needs the buffer:
// @kiln_init returns the broadcast.
// CHECK-LABEL: func.func @broadcast_into_matmul
// CHECK: %[[W:.+]] = kiln.constant {kiln.init_result = 0 : i64} dense_resource<kiln_init.0> : tensor<8x4x4xf16>
// CHECK-NOT: kiln.expand
// CHECK: kiln.matmul %{{.+}}, %[[W]]
// CHECK: func.func private @kiln_init() -> tensor<8x4x4xf16>
// CHECK: kiln.expand
func.func @broadcast_into_matmul(%x: tensor<8x4x4xf16>) -> tensor<8x4x4xf16> {
  %a = kiln.constant dense<1.0> : tensor<1x4x4xf16>
  %b = kiln.constant dense<2.0> : tensor<1x4x4xf16>
  %shape = kiln.constant dense<[8, 4, 4]> : tensor<3xi64>
  %sum = kiln.add %a, %b : tensor<1x4x4xf16>, tensor<1x4x4xf16> -> tensor<1x4x4xf16>
  %w = kiln.expand %sum, %shape : tensor<1x4x4xf16>, tensor<3xi64> -> tensor<8x4x4xf16>
  %y = kiln.matmul %x, %w : tensor<8x4x4xf16>, tensor<8x4x4xf16> -> tensor<8x4x4xf16>
  return %y : tensor<8x4x4xf16>
}

// -----

// A broadcast whose user is itself a weight transform (an add of another
// constant) is outlined with it: keeping it would move the add to every run.
// CHECK-LABEL: func.func @broadcast_into_weight_transform
// CHECK: %[[W:.+]] = kiln.constant {kiln.init_result = 0 : i64} dense_resource<kiln_init.0> : tensor<8x4x4xf16>
// CHECK-NEXT: kiln.mul %{{.+}}, %[[W]]
// CHECK: func.func private @kiln_init() -> tensor<8x4x4xf16>
// CHECK: kiln.expand
// CHECK: kiln.add
func.func @broadcast_into_weight_transform(%x: tensor<8x4x4xf16>) -> tensor<8x4x4xf16> {
  %a = kiln.constant dense<1.0> : tensor<1x4x4xf16>
  %b = kiln.constant dense<2.0> : tensor<8x4x4xf16>
  %shape = kiln.constant dense<[8, 4, 4]> : tensor<3xi64>
  %e = kiln.expand %a, %shape : tensor<1x4x4xf16>, tensor<3xi64> -> tensor<8x4x4xf16>
  %w = kiln.add %e, %b : tensor<8x4x4xf16>, tensor<8x4x4xf16> -> tensor<8x4x4xf16>
  %y = kiln.mul %x, %w : tensor<8x4x4xf16>, tensor<8x4x4xf16> -> tensor<8x4x4xf16>
  return %y : tensor<8x4x4xf16>
}
