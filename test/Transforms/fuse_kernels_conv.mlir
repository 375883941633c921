// RUN: kiln-opt %s --split-input-file --kiln-fuse-kernels | FileCheck %s

// A static 2-D conv with constant weights is a cuDNN library kernel: the bias
// goes with it, and a relu after a conv with a bias is its fused epilogue.
// CHECK-LABEL: func.func @library_conv
// CHECK: %[[W:.+]] = kiln.constant dense_resource<w> : tensor<4x2x3x3xf32>
// CHECK: %[[C:.+]] = kiln.kernel "conv_relu_0" library ins(%arg0, %[[W]], %arg1 : {{.*}})
// CHECK-SAME: epilogue = #kiln.epilogue<activation = relu>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: kiln.conv
// CHECK-NEXT: kiln.relu
// CHECK-NEXT: kiln.yield
// CHECK-NOT: kiln.kernel
func.func @library_conv(%x: tensor<1x2x8x7xf32>, %b: tensor<4xf32>) -> tensor<1x4x4x4xf32> {
  %w = kiln.constant dense_resource<w> : tensor<4x2x3x3xf32>
  %c = kiln.conv %x, %w, %b {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<1x2x8x7xf32>, tensor<4x2x3x3xf32>, tensor<4xf32> -> tensor<1x4x4x4xf32>
  %y = kiln.relu %c : tensor<1x4x4x4xf32> -> tensor<1x4x4x4xf32>
  return %y : tensor<1x4x4x4xf32>
}

// -----

// The residual block's end: relu(conv3 + bias + shortcut) is one library
// kernel reading the shortcut (here another conv, fused into nothing since
// an add follows it: it is the residual). The later conv is the fused one.
// CHECK-LABEL: func.func @residual_block_nhwc
// CHECK: %[[S:.+]] = kiln.kernel "conv_0" library ins(%arg0
// CHECK: kiln.kernel "conv_add_relu_1" library ins(%arg0, %arg1, %[[S]] : {{.*}})
// CHECK-SAME: epilogue = #kiln.epilogue<addend = residual, activation = relu>
// CHECK-NEXT: ^bb0
// CHECK-NEXT: kiln.constant
// CHECK-NEXT: %[[C:.+]] = kiln.conv
// CHECK-NEXT: %[[A:.+]] = kiln.add %{{.+}}, %[[C]]
// CHECK-NEXT: %[[R:.+]] = kiln.relu %[[A]]
// CHECK-NEXT: kiln.yield %[[R]]
// CHECK-NOT: kiln.kernel
func.func @residual_block_nhwc(%x: tensor<2x8x8x16xf16>, %b: tensor<16xf16>) -> tensor<2x8x8x16xf16> {
  %w = kiln.constant dense<0.5> : tensor<16x1x1x16xf16>
  %v = kiln.constant dense<0.25> : tensor<16x3x3x16xf16>
  %s = kiln.conv %x, %w, %b {dilations = array<i64: 1, 1>, group = 1 : i64, layout = "NHWC", pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<2x8x8x16xf16>, tensor<16x1x1x16xf16>, tensor<16xf16> -> tensor<2x8x8x16xf16>
  %c = kiln.conv %x, %v, %b {dilations = array<i64: 1, 1>, group = 1 : i64, layout = "NHWC", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<2x8x8x16xf16>, tensor<16x3x3x16xf16>, tensor<16xf16> -> tensor<2x8x8x16xf16>
  %a = kiln.add %s, %c : tensor<2x8x8x16xf16>, tensor<2x8x8x16xf16> -> tensor<2x8x8x16xf16>
  %y = kiln.relu %a : tensor<2x8x8x16xf16> -> tensor<2x8x8x16xf16>
  return %y : tensor<2x8x8x16xf16>
}

// -----

// No epilogue fusion: a conv without a bias, a conv whose result is also
// returned, and an add that broadcasts its other operand.
// CHECK-LABEL: func.func @no_epilogue
// CHECK: kiln.kernel "conv_0" library
// CHECK: kiln.kernel "relu_1" pointwise
// CHECK: kiln.kernel "conv_2" library
// CHECK: kiln.kernel "relu_3" pointwise
// CHECK: kiln.kernel "conv_4" library
// CHECK: kiln.kernel "add_relu_5" pointwise
func.func @no_epilogue(%x: tensor<1x2x8x8xf32>, %b: tensor<3xf32>, %r: tensor<1x3x1x1xf32>) -> (tensor<1x3x8x8xf32>, tensor<1x3x8x8xf32>, tensor<1x3x8x8xf32>, tensor<1x3x8x8xf32>) {
  %w = kiln.constant dense_resource<w> : tensor<3x2x3x3xf32>
  %c0 = kiln.conv %x, %w {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x2x8x8xf32>, tensor<3x2x3x3xf32> -> tensor<1x3x8x8xf32>
  %y0 = kiln.relu %c0 : tensor<1x3x8x8xf32> -> tensor<1x3x8x8xf32>
  %c1 = kiln.conv %x, %w, %b {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x2x8x8xf32>, tensor<3x2x3x3xf32>, tensor<3xf32> -> tensor<1x3x8x8xf32>
  %y1 = kiln.relu %c1 : tensor<1x3x8x8xf32> -> tensor<1x3x8x8xf32>
  %c2 = kiln.conv %x, %w, %b {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x2x8x8xf32>, tensor<3x2x3x3xf32>, tensor<3xf32> -> tensor<1x3x8x8xf32>
  %a2 = kiln.add %c2, %r : tensor<1x3x8x8xf32>, tensor<1x3x1x1xf32> -> tensor<1x3x8x8xf32>
  %y2 = kiln.relu %a2 : tensor<1x3x8x8xf32> -> tensor<1x3x8x8xf32>
  return %y0, %c1, %y1, %y2 : tensor<1x3x8x8xf32>, tensor<1x3x8x8xf32>, tensor<1x3x8x8xf32>, tensor<1x3x8x8xf32>
}

// -----

// Grouped (depthwise) f16 convs are library kernels too; the producer of the
// input stays in its own kernel.
// CHECK-LABEL: func.func @depthwise_f16
// CHECK: %[[N:.+]] = kiln.kernel "neg_0" pointwise
// CHECK: kiln.kernel "conv_1" library ins(%[[N]]
func.func @depthwise_f16(%x: tensor<2x8x5x5xf16>) -> tensor<2x8x5x5xf16> {
  %w = kiln.constant dense<1.0> : tensor<8x1x3x3xf16>
  %n = kiln.neg %x : tensor<2x8x5x5xf16> -> tensor<2x8x5x5xf16>
  %c = kiln.conv %n, %w {dilations = array<i64: 1, 1>, group = 8 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<2x8x5x5xf16>, tensor<8x1x3x3xf16> -> tensor<2x8x5x5xf16>
  return %c : tensor<2x8x5x5xf16>
}

// -----

// A channels-last depthwise conv is generated, not cuDNN's: computed per
// output element in the pointwise kernel of the activation after it; the
// activation before it stays in a kernel of its own (rule 5: it would be
// computed once per tap). A grouped conv with several input channels per
// group stays a library kernel.
// CHECK-LABEL: func.func @depthwise_channels_last
// CHECK: %[[A:.+]] = kiln.kernel "clip_0" pointwise
// CHECK: %[[D:.+]] = kiln.kernel "conv_clip_1" pointwise ins(%[[A]]
// CHECK: kiln.conv {{.*}}group = 8 : i64, layout = "NHWC"
// CHECK: kiln.clip
// CHECK: kiln.kernel "conv_2" library ins(%[[D]]
// CHECK-NOT: kiln.kernel
func.func @depthwise_channels_last(%x: tensor<2x5x5x8xf16>) -> tensor<2x5x5x8xf16> {
  %w = kiln.constant dense<1.0> : tensor<8x3x3x1xf16>
  %g = kiln.constant dense<1.0> : tensor<8x3x3x4xf16>
  %lo = kiln.constant dense<0.0> : tensor<f16>
  %hi = kiln.constant dense<6.0> : tensor<f16>
  %a = kiln.clip %x, %lo, %hi : tensor<2x5x5x8xf16>, tensor<f16>, tensor<f16> -> tensor<2x5x5x8xf16>
  %c = kiln.conv %a, %w {dilations = array<i64: 1, 1>, group = 8 : i64, layout = "NHWC", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<2x5x5x8xf16>, tensor<8x3x3x1xf16> -> tensor<2x5x5x8xf16>
  %b = kiln.clip %c, %lo, %hi : tensor<2x5x5x8xf16>, tensor<f16>, tensor<f16> -> tensor<2x5x5x8xf16>
  %d = kiln.conv %b, %g {dilations = array<i64: 1, 1>, group = 2 : i64, layout = "NHWC", pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<2x5x5x8xf16>, tensor<8x3x3x4xf16> -> tensor<2x5x5x8xf16>
  return %d : tensor<2x5x5x8xf16>
}

// -----

// Convs cuDNN is not given stay elemental: asymmetric pads, weights that are
// not constants, 1-D, integers.
// CHECK-LABEL: func.func @elemental_convs
// CHECK: kiln.kernel "conv_0" pointwise
// CHECK: kiln.kernel "conv_1" pointwise
// CHECK: kiln.kernel "conv_2" pointwise
// CHECK: kiln.kernel "conv_3" pointwise
// CHECK-NOT: library
func.func @elemental_convs(%x: tensor<1x2x8x8xf32>, %v: tensor<3x2x3x3xf32>, %s: tensor<1x2x9xf32>, %i: tensor<1x2x9xi32>) -> (tensor<1x3x4x4xf32>, tensor<1x3x8x8xf32>, tensor<1x3x9xf32>, tensor<1x3x9xi32>) {
  %w = kiln.constant dense<0.5> : tensor<3x2x3x3xf32>
  %w1 = kiln.constant dense<0.5> : tensor<3x2x3xf32>
  %wi = kiln.constant dense<2> : tensor<3x2x3xi32>
  %a = kiln.conv %x, %w {dilations = array<i64: 1, 1>, pads = array<i64: 0, 0, 1, 1>, strides = array<i64: 2, 2>} : tensor<1x2x8x8xf32>, tensor<3x2x3x3xf32> -> tensor<1x3x4x4xf32>
  %b = kiln.conv %x, %v {dilations = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x2x8x8xf32>, tensor<3x2x3x3xf32> -> tensor<1x3x8x8xf32>
  %c = kiln.conv %s, %w1 {dilations = array<i64: 1>, pads = array<i64: 1, 1>, strides = array<i64: 1>} : tensor<1x2x9xf32>, tensor<3x2x3xf32> -> tensor<1x3x9xf32>
  %d = kiln.conv %i, %wi {dilations = array<i64: 1>, pads = array<i64: 1, 1>, strides = array<i64: 1>} : tensor<1x2x9xi32>, tensor<3x2x3xi32> -> tensor<1x3x9xi32>
  return %a, %b, %c, %d : tensor<1x3x4x4xf32>, tensor<1x3x8x8xf32>, tensor<1x3x9xf32>, tensor<1x3x9xi32>
}
