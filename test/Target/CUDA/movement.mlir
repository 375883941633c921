// Movement ops through the loop template (NVRTC compiles every kernel):
// pad and tile are index arithmetic, top_k counts ranks, scatter loops over
// the updates that can land on an element, resize sums its taps.
// RUN: kiln-translate %s --emit-cuda | FileCheck %s

// CHECK-LABEL: kiln.kernel "pad_tile"
// CHECK:         p{{[0-9]+}} = (p{{[0-9]+}} < 0 ? -p{{[0-9]+}} : p{{[0-9]+}}) % 4;
func.func @pad_tile(%a: tensor<2x3xf32>) -> tensor<4x10xf32> {
  %e = kiln.empty : tensor<4x10xf32>
  %r = kiln.kernel "pad_tile" data_movement ins(%a : tensor<2x3xf32>) outs(%e : tensor<4x10xf32>) attributes {block_size = 64 : i64, grid_size = 1 : i64} {
  ^bb0(%x: tensor<2x3xf32>, %o: tensor<4x10xf32>):
    %pads = kiln.constant dense<[0, 1, 0, 1]> : tensor<4xi64>
    %p = kiln.pad %x, %pads {mode = "reflect"} : tensor<2x3xf32>, tensor<4xi64> -> tensor<2x5xf32>
    %reps = kiln.constant dense<[2, 2]> : tensor<2xi64>
    %t = kiln.tile %p, %reps : tensor<2x5xf32>, tensor<2xi64> -> tensor<4x10xf32>
    kiln.yield %t : tensor<4x10xf32>
  } -> tensor<4x10xf32>
  return %r : tensor<4x10xf32>
}

// CHECK-LABEL: kiln.kernel "top_k"
// CHECK:         for (kiln_index_t c{{[0-9]+}} = 0; c{{[0-9]+}} < 7; ++c{{[0-9]+}}) {
// CHECK:         kiln_gather_index
func.func @top_k(%a: tensor<3x7xf32>) -> (tensor<3x2xf32>, tensor<3x2xi64>) {
  %e = kiln.empty : tensor<3x2xf32>
  %e2 = kiln.empty : tensor<3x2xi64>
  %r:2 = kiln.kernel "top_k" data_movement ins(%a : tensor<3x7xf32>) outs(%e, %e2 : tensor<3x2xf32>, tensor<3x2xi64>) attributes {block_size = 64 : i64, grid_size = 1 : i64} {
  ^bb0(%x: tensor<3x7xf32>, %o: tensor<3x2xf32>, %o2: tensor<3x2xi64>):
    %k = kiln.constant dense<2> : tensor<1xi64>
    %i = kiln.top_k %x, %k {axis = 1 : i64, largest = false} : tensor<3x7xf32>, tensor<1xi64> -> tensor<3x2xi64>
    %v = kiln.gather_elements %x, %i {axis = 1 : i64} : tensor<3x7xf32>, tensor<3x2xi64> -> tensor<3x2xf32>
    kiln.yield %v, %i : tensor<3x2xf32>, tensor<3x2xi64>
  } -> tensor<3x2xf32>, tensor<3x2xi64>
  return %r#0, %r#1 : tensor<3x2xf32>, tensor<3x2xi64>
}

// CHECK-LABEL: kiln.kernel "scatter_einsum"
// CHECK:         acc{{[0-9]+}} = acc{{[0-9]+}} + x{{[0-9]+}};
func.func @scatter_einsum(%d: tensor<3x3xf32>, %i: tensor<2x3xi64>, %u: tensor<2x3xf32>) -> tensor<3xf32> {
  %e = kiln.empty : tensor<3xf32>
  %r = kiln.kernel "scatter_einsum" data_movement ins(%d, %i, %u : tensor<3x3xf32>, tensor<2x3xi64>, tensor<2x3xf32>) outs(%e : tensor<3xf32>) attributes {block_size = 32 : i64, grid_size = 1 : i64} {
  ^bb0(%x: tensor<3x3xf32>, %y: tensor<2x3xi64>, %z: tensor<2x3xf32>, %o: tensor<3xf32>):
    %s = kiln.scatter_elements %x, %y, %z {axis = 0 : i64, reduction = "add"} : tensor<3x3xf32>, tensor<2x3xi64>, tensor<2x3xf32> -> tensor<3x3xf32>
    %t = kiln.einsum %s {equation = "ii->i"} : tensor<3x3xf32> -> tensor<3xf32>
    kiln.yield %t : tensor<3xf32>
  } -> tensor<3xf32>
  return %r : tensor<3xf32>
}

// CHECK-LABEL: kiln.kernel "resize_cubic"
// CHECK:         const long long b{{[0-9]+}} = (long long)ceil(s{{[0-9]+}}) - 1;
func.func @resize_cubic(%a: tensor<1x1x4x4xf32>) -> tensor<1x1x8x8xf32> {
  %e = kiln.empty : tensor<1x1x8x8xf32>
  %r = kiln.kernel "resize_cubic" data_movement ins(%a : tensor<1x1x4x4xf32>) outs(%e : tensor<1x1x8x8xf32>) attributes {block_size = 64 : i64, grid_size = 1 : i64} {
  ^bb0(%x: tensor<1x1x4x4xf32>, %o: tensor<1x1x8x8xf32>):
    %s = kiln.constant dense<[1.0, 1.0, 2.0, 2.0]> : tensor<4xf32>
    %y = kiln.resize %x scales %s : tensor<4xf32> {mode = "cubic", exclude_outside = true} : tensor<1x1x4x4xf32> -> tensor<1x1x8x8xf32>
    kiln.yield %y : tensor<1x1x8x8xf32>
  } -> tensor<1x1x8x8xf32>
  return %r : tensor<1x1x8x8xf32>
}

// An f16 result computes its taps in float, dividing by the scale as a
// multiplication; nearest and wider results keep double.
// CHECK-LABEL: kiln.kernel "resize_linear_f16"
// CHECK:         const float [[S:s[0-9]+]] = ((float){{.*}} + 0.5f) * (0.0625f) - 0.5f;
// CHECK-NEXT:    const int [[B:b[0-9]+]] = (int)ceilf([[S]]) - 1;
// CHECK-NEXT:    const float r{{[0-9]+}} = [[S]] - (float)[[B]];
// CHECK:         float [[SUM:sum[0-9]+]] = 0.0f;
// CHECK:         [[SUM]] += w{{[0-9]+}} * w{{[0-9]+}} * (float)x{{[0-9]+}};
func.func @resize_linear_f16(%a: tensor<1x1x4x4xf16>) -> tensor<1x1x64x64xf16> {
  %e = kiln.empty : tensor<1x1x64x64xf16>
  %r = kiln.kernel "resize_linear_f16" data_movement ins(%a : tensor<1x1x4x4xf16>) outs(%e : tensor<1x1x64x64xf16>) attributes {block_size = 64 : i64, grid_size = 1 : i64} {
  ^bb0(%x: tensor<1x1x4x4xf16>, %o: tensor<1x1x64x64xf16>):
    %s = kiln.constant dense<[1.0, 1.0, 16.0, 16.0]> : tensor<4xf32>
    %y = kiln.resize %x scales %s : tensor<4xf32> {mode = "linear"} : tensor<1x1x4x4xf16> -> tensor<1x1x64x64xf16>
    kiln.yield %y : tensor<1x1x64x64xf16>
  } -> tensor<1x1x64x64xf16>
  return %r : tensor<1x1x64x64xf16>
}

// CHECK-LABEL: kiln.kernel "resize_nearest_f16"
// CHECK:         const double s{{[0-9]+}} = ((double){{.*}} + 0.5) / (4.0) - 0.5;
func.func @resize_nearest_f16(%a: tensor<1x1x4x4xf16>) -> tensor<1x1x16x16xf16> {
  %e = kiln.empty : tensor<1x1x16x16xf16>
  %r = kiln.kernel "resize_nearest_f16" data_movement ins(%a : tensor<1x1x4x4xf16>) outs(%e : tensor<1x1x16x16xf16>) attributes {block_size = 64 : i64, grid_size = 1 : i64} {
  ^bb0(%x: tensor<1x1x4x4xf16>, %o: tensor<1x1x16x16xf16>):
    %s = kiln.constant dense<[1.0, 1.0, 4.0, 4.0]> : tensor<4xf32>
    %y = kiln.resize %x scales %s : tensor<4xf32> : tensor<1x1x4x4xf16> -> tensor<1x1x16x16xf16>
    kiln.yield %y : tensor<1x1x16x16xf16>
  } -> tensor<1x1x16x16xf16>
  return %r : tensor<1x1x16x16xf16>
}
