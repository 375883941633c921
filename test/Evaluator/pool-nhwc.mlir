// Channels-last pools (layout = "NHWC") equal the NCHW pool of the
// transposed input, transposed back: on a 1x4x4x2 ramp (hand-checked values)
// and on a 1x5x5x3 input with ceil_mode windows and padding (the differences
// must all be zero).
// RUN: %{make_tensor} %t/ramp.npy float32 1x4x4x2 range
// RUN: %{make_tensor} %t/x.npy float32 1x5x5x3 -11,3,-6,8,-1,-10,4,-5,9,0,-9,5,-4,10,1,-8,6,-3,11,2,-7,7,-2,-11,3,-6,8,-1,-10,4,-5,9,0,-9,5,-4,10,1,-8,6,-3,11,2,-7,7,-2,-11,3,-6,8,-1,-10,4,-5,9,0,-9,5,-4,10,1,-8,6,-3,11,2,-7,7,-2,-11,3,-6,8,-1,-10
// RUN: kiln-interpret %s --simplify=false --print-values --inputs %t/ramp.npy,%t/x.npy | FileCheck %s
// x[0, h, w, c] = (4h + w) * 2 + c: the 2x2 maximum is at (2i+1, 2j+1), the
// mean is the window's first element + 5.
// CHECK:      output 0 'max': float32[1x2x2x2]
// CHECK-NEXT:   values: [10, 11, 14, 15, 26, 27, 30, 31]
// CHECK-NEXT: output 1 'mean': float32[1x2x2x2]
// CHECK-NEXT:   values: [5, 6, 9, 10, 21, 22, 25, 26]
// CHECK-NEXT: output 2 'max_difference': float32[1x3x3x3]
// CHECK-NEXT:   values: [0{{(, 0)*}}]
// CHECK-NEXT: output 3 'mean_difference': float32[1x2x3x3]
// CHECK-NEXT:   values: [0{{(, 0)*}}]
// CHECK-NEXT: output 4 'mean_padded_difference': float32[1x3x3x3]
// CHECK-NEXT:   values: [0{{(, 0)*}}]

func.func @main(%ramp: tensor<1x4x4x2xf32>, %x: tensor<1x5x5x3xf32>)
    -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x3x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x3x3x3xf32>)
    attributes {kiln.output_names = ["max", "mean", "max_difference", "mean_difference", "mean_padded_difference"]} {
  %max = kiln.max_pool %ramp {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, layout = "NHWC", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<1x4x4x2xf32> -> tensor<1x2x2x2xf32>
  %mean = kiln.average_pool %ramp {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, layout = "NHWC", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<1x4x4x2xf32> -> tensor<1x2x2x2xf32>

  %xt = kiln.transpose %x {perm = array<i64: 0, 3, 1, 2>} : tensor<1x5x5x3xf32> -> tensor<1x3x5x5xf32>
  // Max: 3x3 windows, stride 2, pads 1, ceil_mode.
  %m1 = kiln.max_pool %x {ceil_mode = true, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, layout = "NHWC", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<1x5x5x3xf32> -> tensor<1x3x3x3xf32>
  %m2 = kiln.max_pool %xt {ceil_mode = true, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<1x3x5x5xf32> -> tensor<1x3x3x3xf32>
  %m2t = kiln.transpose %m2 {perm = array<i64: 0, 2, 3, 1>} : tensor<1x3x3x3xf32> -> tensor<1x3x3x3xf32>
  %dm = kiln.sub %m1, %m2t : tensor<1x3x3x3xf32>, tensor<1x3x3x3xf32> -> tensor<1x3x3x3xf32>
  // Mean: dilated 2x2 windows, asymmetric pads, padding not counted.
  %a1 = kiln.average_pool %x {dilations = array<i64: 2, 1>, kernel_shape = array<i64: 2, 2>, layout = "NHWC", pads = array<i64: 1, 0, 0, 1>, strides = array<i64: 2, 2>} : tensor<1x5x5x3xf32> -> tensor<1x2x3x3xf32>
  %a2 = kiln.average_pool %xt {dilations = array<i64: 2, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 1, 0, 0, 1>, strides = array<i64: 2, 2>} : tensor<1x3x5x5xf32> -> tensor<1x3x2x3xf32>
  %a2t = kiln.transpose %a2 {perm = array<i64: 0, 2, 3, 1>} : tensor<1x3x2x3xf32> -> tensor<1x2x3x3xf32>
  %da = kiln.sub %a1, %a2t : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32> -> tensor<1x2x3x3xf32>
  // Mean: 3x3 windows, stride 2, pads 1, padding counted.
  %p1 = kiln.average_pool %x {count_include_pad = true, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, layout = "NHWC", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<1x5x5x3xf32> -> tensor<1x3x3x3xf32>
  %p2 = kiln.average_pool %xt {count_include_pad = true, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<1x3x5x5xf32> -> tensor<1x3x3x3xf32>
  %p2t = kiln.transpose %p2 {perm = array<i64: 0, 2, 3, 1>} : tensor<1x3x3x3xf32> -> tensor<1x3x3x3xf32>
  %dp = kiln.sub %p1, %p2t : tensor<1x3x3x3xf32>, tensor<1x3x3x3xf32> -> tensor<1x3x3x3xf32>
  return %max, %mean, %dm, %da, %dp : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x3x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x3x3x3xf32>
}
