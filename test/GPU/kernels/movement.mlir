// GPU kernel tests: movement ops (pad, tile, top_k, scatter, einsum, resize)
// through the loop template.
// RUN: rm -rf %t && kiln-translate %s --kernel-test-bundle %t | FileCheck %s
// CHECK: wrote case movement.pad_tile (1 kernels, 1 launches)
// CHECK: wrote case movement.top_k (1 kernels, 1 launches)
// CHECK: wrote case movement.scatter_einsum (1 kernels, 1 launches)
// CHECK: wrote case movement.resize_cubic (1 kernels, 1 launches)
// CHECK: wrote case movement.resize_linear_f16_tiled (1 kernels, 1 launches)
// CHECK: wrote case movement.resize_cubic_f16_tiled (1 kernels, 1 launches)
// CHECK: wrote case movement.crop_and_resize_last_pixel_f16_tiled (1 kernels, 1 launches)
// CHECK: wrote case movement.crop_and_resize_last_pixel_f32_tiled (1 kernels, 1 launches)

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

func.func @scatter_einsum(%d: tensor<3x3xf32>, %i: tensor<2x3xi64> {kiln.test_range = [-3, 2]}, %u: tensor<2x3xf32>) -> tensor<3xf32> {
  %e = kiln.empty : tensor<3xf32>
  %r = kiln.kernel "scatter_einsum" data_movement ins(%d, %i, %u : tensor<3x3xf32>, tensor<2x3xi64>, tensor<2x3xf32>) outs(%e : tensor<3xf32>) attributes {block_size = 32 : i64, grid_size = 1 : i64} {
  ^bb0(%x: tensor<3x3xf32>, %y: tensor<2x3xi64>, %z: tensor<2x3xf32>, %o: tensor<3xf32>):
    %s = kiln.scatter_elements %x, %y, %z {axis = 0 : i64, reduction = "add"} : tensor<3x3xf32>, tensor<2x3xi64>, tensor<2x3xf32> -> tensor<3x3xf32>
    %t = kiln.einsum %s {equation = "ii->i"} : tensor<3x3xf32> -> tensor<3xf32>
    kiln.yield %t : tensor<3xf32>
  } -> tensor<3xf32>
  return %r : tensor<3xf32>
}

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

// f16 results take their taps in float: a segmentation head's bilinear
// upsampling by 16 (half_pixel, clamped at the edges) cast to f32, and a
// cubic resize by a scale that is not a power of two (align_corners, taps
// outside the input excluded and the rest renormalised).
func.func @resize_linear_f16_tiled(%x: tensor<2x3x14x14xf16>) -> tensor<2x3x224x224xf32>
    attributes {kiln.test_tolerance = [2.0e-3, 2.0e-3]} {
  %s = kiln.constant dense<[1.0, 1.0, 16.0, 16.0]> : tensor<4xf32>
  %y = kiln.resize %x scales %s : tensor<4xf32> {mode = "linear"} : tensor<2x3x14x14xf16> -> tensor<2x3x224x224xf16>
  %c = kiln.cast %y {to = f32} : tensor<2x3x224x224xf16> -> tensor<2x3x224x224xf32>
  return %c : tensor<2x3x224x224xf32>
}

func.func @resize_cubic_f16_tiled(%x: tensor<1x2x7x9xf16>) -> tensor<1x2x24x20xf16>
    attributes {kiln.test_tolerance = [2.0e-3, 2.0e-3]} {
  %s = kiln.constant dense<[1.0, 1.0, 3.42857143, 2.22222222]> : tensor<4xf32>
  %y = kiln.resize %x scales %s : tensor<4xf32> {mode = "cubic", coordinate_transformation_mode = "align_corners", exclude_outside = true} : tensor<1x2x7x9xf16> -> tensor<1x2x24x20xf16>
  return %y : tensor<1x2x24x20xf16>
}

// tf_crop_and_resize over the whole input: the last output pixel's source
// is exactly in - 1, inside (not the extrapolation value 7) when computed
// as x * span / (out - 1); a rounded span / (out - 1) put it one ulp past
// in f32 for 8 -> 26 and in float for 4 -> 22.
func.func @crop_and_resize_last_pixel_f16_tiled(%x: tensor<1x1x4x4xf16>) -> tensor<1x1x22x22xf16>
    attributes {kiln.test_tolerance = [2.0e-3, 2.0e-3]} {
  %roi = kiln.constant dense<[0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]> : tensor<8xf32>
  %sz = kiln.constant dense<[1, 1, 22, 22]> : tensor<4xi64>
  %y = kiln.resize %x roi %roi : tensor<8xf32> sizes %sz : tensor<4xi64> {mode = "linear", coordinate_transformation_mode = "tf_crop_and_resize", extrapolation_value = 7.0 : f32} : tensor<1x1x4x4xf16> -> tensor<1x1x22x22xf16>
  return %y : tensor<1x1x22x22xf16>
}

func.func @crop_and_resize_last_pixel_f32_tiled(%x: tensor<1x1x8x8xf32>) -> tensor<1x1x26x26xf32> {
  %roi = kiln.constant dense<[0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0]> : tensor<8xf32>
  %sz = kiln.constant dense<[1, 1, 26, 26]> : tensor<4xi64>
  %y = kiln.resize %x roi %roi : tensor<8xf32> sizes %sz : tensor<4xi64> {mode = "linear", coordinate_transformation_mode = "tf_crop_and_resize", extrapolation_value = 7.0 : f32} : tensor<1x1x8x8xf32> -> tensor<1x1x26x26xf32>
  return %y : tensor<1x1x26x26xf32>
}
