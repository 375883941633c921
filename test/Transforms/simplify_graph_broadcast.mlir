// RUN: kiln-opt %s --split-input-file --kiln-simplify-graph | FileCheck %s

// transformers' 4-D padding mask: where(and(true [1, 1, q, 1], pad [b, 1, 1, k]),
// 0, min) is selected at [b, 1, 1, k], and the attention reads that mask
// unexpanded (broadcast over the query rows) instead of a [b, 1, q, k] one.
// CHECK-LABEL: func.func @padding_mask
// CHECK-NOT:     kiln.and
// CHECK:         %[[MASK:.+]] = kiln.where %arg3, %{{.+}}, %{{.+}} : tensor<2x1x1x16xi1>, tensor<f16>, tensor<f16> -> tensor<2x1x1x16xf16>
// CHECK-NOT:     kiln.expand
// CHECK:         kiln.attention %arg0, %arg1, %arg2, %[[MASK]] {{.*}} tensor<2x1x1x16xf16> -> tensor<2x4x8x32xf16>
func.func @padding_mask(%q: tensor<2x4x8x32xf16>, %k: tensor<2x4x16x32xf16>, %v: tensor<2x4x16x32xf16>, %pad: tensor<2x1x1x16xi1>) -> tensor<2x4x8x32xf16> {
  %rows = kiln.constant dense<true> : tensor<1x1x8x1xi1>
  %zero = kiln.constant dense<0.0> : tensor<f16>
  %min = kiln.constant dense<-65504.0> : tensor<f16>
  %keep = kiln.and %rows, %pad : tensor<1x1x8x1xi1>, tensor<2x1x1x16xi1> -> tensor<2x1x8x16xi1>
  %mask = kiln.where %keep, %zero, %min : tensor<2x1x8x16xi1>, tensor<f16>, tensor<f16> -> tensor<2x1x8x16xf16>
  %o = kiln.attention %q, %k, %v, %mask {scale = 0.125 : f32} : tensor<2x4x8x32xf16>, tensor<2x4x16x32xf16>, tensor<2x4x16x32xf16>, tensor<2x1x8x16xf16> -> tensor<2x4x8x32xf16>
  return %o : tensor<2x4x8x32xf16>
}

// -----

// or(x, false) is x; of the same shape, no broadcast is left.
// CHECK-LABEL: func.func @or_false
// CHECK-NEXT:    return %arg0 : tensor<3x5xi1>
func.func @or_false(%x: tensor<3x5xi1>) -> tensor<3x5xi1> {
  %f = kiln.constant dense<false> : tensor<1x5xi1>
  %y = kiln.or %f, %x : tensor<1x5xi1>, tensor<3x5xi1> -> tensor<3x5xi1>
  return %y : tensor<3x5xi1>
}

// -----

// and(x, true) broadcast to a result larger than x stays a broadcast of x,
// which a returned value needs.
// CHECK-LABEL: func.func @and_true_broadcast
// CHECK:         %[[Y:.+]] = kiln.expand %arg0, %{{.+}} : tensor<3x1xi1>, tensor<2xi64> -> tensor<3x4xi1>
// CHECK-NEXT:    return %[[Y]]
func.func @and_true_broadcast(%x: tensor<3x1xi1>) -> tensor<3x4xi1> {
  %t = kiln.constant dense<true> : tensor<4xi1>
  %y = kiln.and %x, %t : tensor<3x1xi1>, tensor<4xi1> -> tensor<3x4xi1>
  return %y : tensor<3x4xi1>
}

// -----

// Neither identity: and(x, false) and and(x, y) are left alone, and a select
// whose operands vary over its whole result stays at its shape.
// CHECK-LABEL: func.func @not_identities
// CHECK:         kiln.and %arg0, %{{.+}} : tensor<3x4xi1>, tensor<4xi1>
// CHECK:         kiln.and %arg0, %arg1
// CHECK:         kiln.where %{{.+}}, %arg2, %arg2 : tensor<3x4xi1>, tensor<3x4xf32>, tensor<3x4xf32> -> tensor<3x4xf32>
func.func @not_identities(%x: tensor<3x4xi1>, %y: tensor<3x4xi1>, %a: tensor<3x4xf32>) -> (tensor<3x4xi1>, tensor<3x4xf32>) {
  %f = kiln.constant dense<false> : tensor<4xi1>
  %0 = kiln.and %x, %f : tensor<3x4xi1>, tensor<4xi1> -> tensor<3x4xi1>
  %1 = kiln.and %x, %y : tensor<3x4xi1>, tensor<3x4xi1> -> tensor<3x4xi1>
  %2 = kiln.where %1, %a, %a : tensor<3x4xi1>, tensor<3x4xf32>, tensor<3x4xf32> -> tensor<3x4xf32>
  return %0, %2 : tensor<3x4xi1>, tensor<3x4xf32>
}

// -----

// A select of an expanded condition whose other operands vary over the dims
// the expand adds stays ([3, 1, 5] and [1, 4, 1] cover all of [3, 4, 5]); one
// of [3, 1, 1] expanded, with scalar branches, is selected at [3, 1, 1] and
// broadcast after.
// CHECK-LABEL: func.func @select_shapes
// CHECK:         kiln.where %{{.+}}, %arg1, %{{.+}} : tensor<3x4x5xi1>, tensor<1x4x1xf32>, tensor<f32> -> tensor<3x4x5xf32>
// CHECK:         %[[S:.+]] = kiln.where %arg2, %{{.+}}, %{{.+}} : tensor<3x1x1xi1>, tensor<f32>, tensor<f32> -> tensor<3x1x1xf32>
// CHECK:         kiln.expand %[[S]], %{{.+}} : tensor<3x1x1xf32>, tensor<3xi64> -> tensor<3x4x5xf32>
func.func @select_shapes(%c: tensor<3x1x5xi1>, %b: tensor<1x4x1xf32>, %d: tensor<3x1x1xi1>) -> (tensor<3x4x5xf32>, tensor<3x4x5xf32>) {
  %shape = kiln.constant dense<[3, 4, 5]> : tensor<3xi64>
  %zero = kiln.constant dense<0.0> : tensor<f32>
  %one = kiln.constant dense<1.0> : tensor<f32>
  %ce = kiln.expand %c, %shape : tensor<3x1x5xi1>, tensor<3xi64> -> tensor<3x4x5xi1>
  %0 = kiln.where %ce, %b, %zero : tensor<3x4x5xi1>, tensor<1x4x1xf32>, tensor<f32> -> tensor<3x4x5xf32>
  %de = kiln.expand %d, %shape : tensor<3x1x1xi1>, tensor<3xi64> -> tensor<3x4x5xi1>
  %1 = kiln.where %de, %one, %zero : tensor<3x4x5xi1>, tensor<f32>, tensor<f32> -> tensor<3x4x5xf32>
  return %0, %1 : tensor<3x4x5xf32>, tensor<3x4x5xf32>
}
