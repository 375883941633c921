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

// Computed weights and convolutions with a dynamic dim other than the
// batch stay NCHW (a run-time batch is the library call's N, issue 18).
// CHECK-LABEL: func.func @stays_nchw
// CHECK-NOT: kiln.transpose
// CHECK-NOT: layout
func.func @stays_nchw(%x: tensor<1x8x3x3xf32>, %w: tensor<8x8x1x1xf32>, %y: tensor<1x8x?x3xf32>) -> (tensor<1x8x3x3xf32>, tensor<1x8x?x3xf32>) {
  %c1 = kiln.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x8x3x3xf32>, tensor<8x8x1x1xf32> -> tensor<1x8x3x3xf32>
  %e = kiln.constant dense<1.0> : tensor<8x8x1x1xf32>
  %c3 = kiln.conv %y, %e {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x8x?x3xf32>, tensor<8x8x1x1xf32> -> tensor<1x8x?x3xf32>
  return %c1, %c3 : tensor<1x8x3x3xf32>, tensor<1x8x?x3xf32>
}

// -----

// A run-time batch (a ranged dim, issue 18): the convolution, the relu and
// the max pool run channels-last, the transposes at entry and exit only.
// CHECK-LABEL: func.func @run_time_batch
// CHECK: kiln.transpose %arg0 {perm = array<i64: 0, 2, 3, 1>} : tensor<?x8x6x6xf16> -> tensor<?x6x6x8xf16>
// CHECK: kiln.conv {{.*}}layout = "NHWC"{{.*}} -> tensor<?x6x6x8xf16>
// CHECK: kiln.relu {{.*}} : tensor<?x6x6x8xf16> -> tensor<?x6x6x8xf16>
// CHECK: kiln.max_pool {{.*}}layout = "NHWC"{{.*}} : tensor<?x6x6x8xf16> -> tensor<?x3x3x8xf16>
// CHECK: kiln.transpose {{.*}} {perm = array<i64: 0, 3, 1, 2>} : tensor<?x3x3x8xf16> -> tensor<?x8x3x3xf16>
// CHECK-NOT: kiln.transpose
func.func @run_time_batch(%x: tensor<?x8x6x6xf16>) -> tensor<?x8x3x3xf16> {
  %w = kiln.constant dense<0.5> : tensor<8x8x3x3xf16>
  %c = kiln.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<?x8x6x6xf16>, tensor<8x8x3x3xf16> -> tensor<?x8x6x6xf16>
  %r = kiln.relu %c : tensor<?x8x6x6xf16> -> tensor<?x8x6x6xf16>
  %p = kiln.max_pool %r {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<?x8x6x6xf16> -> tensor<?x8x3x3xf16>
  return %p : tensor<?x8x3x3xf16>
}

// -----

// Grouped convolutions run channels-last too: a depthwise one between two
// pointwise (1x1) convolutions and a grouped 3x3 one (ResNeXt's) leave only
// the transposes at entry and exit; the weights become [K, R, S, C/group].
// CHECK-LABEL: func.func @grouped_channels_last
// CHECK: %[[X:.+]] = kiln.transpose %arg0 {perm = array<i64: 0, 2, 3, 1>}
// CHECK: %[[C1:.+]] = kiln.conv %[[X]], {{.*}}layout = "NHWC"{{.*}} -> tensor<1x6x6x8xf16>
// CHECK: %[[DW:.+]] = kiln.transpose %{{.+}} {perm = array<i64: 0, 2, 3, 1>} : tensor<8x1x3x3xf16> -> tensor<8x3x3x1xf16>
// CHECK: %[[D:.+]] = kiln.conv %[[C1]], %[[DW]] {{.*}}group = 8 : i64, layout = "NHWC"{{.*}} -> tensor<1x6x6x8xf16>
// CHECK: %[[GW:.+]] = kiln.transpose %{{.+}} {perm = array<i64: 0, 2, 3, 1>} : tensor<8x4x3x3xf16> -> tensor<8x3x3x4xf16>
// CHECK: %[[G:.+]] = kiln.conv %[[D]], %[[GW]] {{.*}}group = 2 : i64, layout = "NHWC"{{.*}} -> tensor<1x6x6x8xf16>
// CHECK: %[[Y:.+]] = kiln.transpose %[[G]] {perm = array<i64: 0, 3, 1, 2>}
// CHECK-NOT: kiln.transpose
// CHECK: return %[[Y]]
func.func @grouped_channels_last(%x: tensor<1x8x6x6xf16>) -> tensor<1x8x6x6xf16> {
  %w = kiln.constant dense<1.0> : tensor<8x8x1x1xf16>
  %d = kiln.constant dense<1.0> : tensor<8x1x3x3xf16>
  %g = kiln.constant dense<1.0> : tensor<8x4x3x3xf16>
  %c1 = kiln.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x8x6x6xf16>, tensor<8x8x1x1xf16> -> tensor<1x8x6x6xf16>
  %c2 = kiln.conv %c1, %d {dilations = array<i64: 1, 1>, group = 8 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x8x6x6xf16>, tensor<8x1x3x3xf16> -> tensor<1x8x6x6xf16>
  %c3 = kiln.conv %c2, %g {dilations = array<i64: 1, 1>, group = 2 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x8x6x6xf16>, tensor<8x4x3x3xf16> -> tensor<1x8x6x6xf16>
  return %c3 : tensor<1x8x6x6xf16>
}

// -----

// The stem's max pool runs channels-last between the two convolutions: no
// transpose around it.
// CHECK-LABEL: func.func @stem_max_pool
// CHECK: %[[X:.+]] = kiln.transpose %arg0 {perm = array<i64: 0, 2, 3, 1>}
// CHECK: %[[C1:.+]] = kiln.conv %[[X]], {{.*}}layout = "NHWC"{{.*}} -> tensor<2x8x8x4xf16>
// CHECK: %[[R:.+]] = kiln.relu %[[C1]] : tensor<2x8x8x4xf16>
// CHECK-NOT: kiln.transpose %[[R]]
// CHECK: %[[P:.+]] = kiln.max_pool %[[R]] {{.*}}layout = "NHWC"{{.*}} : tensor<2x8x8x4xf16> -> tensor<2x4x4x4xf16>
// CHECK-NOT: kiln.transpose %[[P]]
// CHECK: %[[C2:.+]] = kiln.conv %[[P]], {{.*}}layout = "NHWC"{{.*}} -> tensor<2x4x4x8xf16>
// CHECK: %[[Y:.+]] = kiln.transpose %[[C2]] {perm = array<i64: 0, 3, 1, 2>}
// CHECK: return %[[Y]]
func.func @stem_max_pool(%x: tensor<2x3x8x8xf16>) -> tensor<2x8x4x4xf16> {
  %w1 = kiln.constant dense<1.0> : tensor<4x3x3x3xf16>
  %w2 = kiln.constant dense<2.0> : tensor<8x4x1x1xf16>
  %c1 = kiln.conv %x, %w1 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<2x3x8x8xf16>, tensor<4x3x3x3xf16> -> tensor<2x4x8x8xf16>
  %r = kiln.relu %c1 : tensor<2x4x8x8xf16> -> tensor<2x4x8x8xf16>
  %p = kiln.max_pool %r {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : tensor<2x4x8x8xf16> -> tensor<2x4x4x4xf16>
  %c2 = kiln.conv %p, %w2 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<2x4x4x4xf16>, tensor<8x4x1x1xf16> -> tensor<2x8x4x4xf16>
  return %c2 : tensor<2x8x4x4xf16>
}

// -----

// An average pool after a convolution runs channels-last; the transpose
// moves to its (smaller) result.
// CHECK-LABEL: func.func @average_pool
// CHECK: %[[C:.+]] = kiln.conv {{.*}}layout = "NHWC"{{.*}} -> tensor<1x6x6x4xbf16>
// CHECK-NEXT: %[[P:.+]] = kiln.average_pool %[[C]] {{.*}}count_include_pad = true{{.*}}layout = "NHWC"{{.*}} : tensor<1x6x6x4xbf16> -> tensor<1x3x3x4xbf16>
// CHECK-NEXT: %[[Y:.+]] = kiln.transpose %[[P]] {perm = array<i64: 0, 3, 1, 2>} : tensor<1x3x3x4xbf16> -> tensor<1x4x3x3xbf16>
// CHECK-NEXT: return %[[Y]]
func.func @average_pool(%x: tensor<1x2x6x6xbf16>) -> tensor<1x4x3x3xbf16> {
  %w = kiln.constant dense<1.0> : tensor<4x2x3x3xbf16>
  %c = kiln.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x2x6x6xbf16>, tensor<4x2x3x3xbf16> -> tensor<1x4x6x6xbf16>
  %p = kiln.average_pool %c {count_include_pad = true, dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<1x4x6x6xbf16> -> tensor<1x4x3x3xbf16>
  return %p : tensor<1x4x3x3xbf16>
}

// -----

// A global average pool (ReduceMean over H, W) of an NHWC value reduces
// axes [1, 2]; its [N, 1, 1, C] result is already in [N, C, 1, 1] order, so
// a reshape (a view) replaces the transpose.
// CHECK-LABEL: func.func @global_average_pool
// CHECK: %[[AXES:.+]] = kiln.constant dense<[1, 2]> : tensor<2xi64>
// CHECK: %[[R:.+]] = kiln.relu {{.*}} : tensor<2x5x5x8xf16>
// CHECK-NEXT: %[[M:.+]] = kiln.reduce_mean %[[R]], %[[AXES]] : tensor<2x5x5x8xf16>, tensor<2xi64> -> tensor<2x1x1x8xf16>
// CHECK-NEXT: %[[SHAPE:.+]] = kiln.constant dense<[2, 8, 1, 1]> : tensor<4xi64>
// CHECK-NEXT: %[[V:.+]] = kiln.reshape %[[M]], %[[SHAPE]] : tensor<2x1x1x8xf16>, tensor<4xi64> -> tensor<2x8x1x1xf16>
// CHECK-NEXT: %[[F:.+]] = kiln.flatten %[[V]]
// CHECK-NOT: kiln.transpose
// CHECK: return %[[F]]
func.func @global_average_pool(%x: tensor<2x3x5x5xf16>) -> tensor<2x8xf16> {
  %w = kiln.constant dense<1.0> : tensor<8x3x1x1xf16>
  %axes = kiln.constant dense<[2, 3]> : tensor<2xi64>
  %c = kiln.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<2x3x5x5xf16>, tensor<8x3x1x1xf16> -> tensor<2x8x5x5xf16>
  %r = kiln.relu %c : tensor<2x8x5x5xf16> -> tensor<2x8x5x5xf16>
  %m = kiln.reduce_mean %r, %axes : tensor<2x8x5x5xf16>, tensor<2xi64> -> tensor<2x8x1x1xf16>
  %f = kiln.flatten %m : tensor<2x8x1x1xf16> -> tensor<2x8xf16>
  return %f : tensor<2x8xf16>
}

// -----

// Without keepdims (negative axes) the reduced [N, C] needs no transpose at
// all; a GlobalMaxPool-like reduce_max the same with keepdims.
// CHECK-LABEL: func.func @spatial_reductions
// CHECK: %[[AXES:.+]] = kiln.constant dense<[1, 2]> : tensor<2xi64>
// CHECK: %[[C:.+]] = kiln.conv {{.*}}layout = "NHWC"{{.*}} -> tensor<2x5x5x8xf16>
// CHECK: %[[S:.+]] = kiln.reduce_sum %[[C]], %[[AXES]] {keepdims = false} : tensor<2x5x5x8xf16>, tensor<2xi64> -> tensor<2x8xf16>
// CHECK: %[[M:.+]] = kiln.reduce_max %[[C]], %[[AXES]] : tensor<2x5x5x8xf16>, tensor<2xi64> -> tensor<2x1x1x8xf16>
// CHECK: kiln.reshape %[[M]], %{{.+}} : tensor<2x1x1x8xf16>, tensor<4xi64> -> tensor<2x8x1x1xf16>
// CHECK-NOT: kiln.transpose
// CHECK: return %[[S]]
func.func @spatial_reductions(%x: tensor<2x3x5x5xf16>) -> (tensor<2x8xf16>, tensor<2x8x1x1xf16>) {
  %w = kiln.constant dense<1.0> : tensor<8x3x1x1xf16>
  %axes = kiln.constant dense<[-1, -2]> : tensor<2xi64>
  %c = kiln.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<2x3x5x5xf16>, tensor<8x3x1x1xf16> -> tensor<2x8x5x5xf16>
  %s = kiln.reduce_sum %c, %axes {keepdims = false} : tensor<2x8x5x5xf16>, tensor<2xi64> -> tensor<2x8xf16>
  %m = kiln.reduce_max %c, %axes : tensor<2x8x5x5xf16>, tensor<2xi64> -> tensor<2x8x1x1xf16>
  return %s, %m : tensor<2x8xf16>, tensor<2x8x1x1xf16>
}

// -----

// A pool of an NCHW value (here the argument) stays NCHW, and so does the
// max pool's Indices output (flat NCHW indices) of an NHWC value.
// CHECK-LABEL: func.func @pools_stay_nchw
// CHECK: kiln.max_pool %arg0 {{{[^}]*}}} : tensor<1x4x6x6xf16> -> tensor<1x4x3x3xf16>
// CHECK: %[[T:.+]] = kiln.transpose %{{.+}} {perm = array<i64: 0, 3, 1, 2>} : tensor<1x6x6x4xf16> -> tensor<1x4x6x6xf16>
// CHECK: kiln.max_pool_indices %[[T]] {{{[^}]*}}} : tensor<1x4x6x6xf16> -> tensor<1x4x3x3xi64>
func.func @pools_stay_nchw(%x: tensor<1x4x6x6xf16>) -> (tensor<1x4x3x3xf16>, tensor<1x4x3x3xi64>) {
  %w = kiln.constant dense<1.0> : tensor<4x4x1x1xf16>
  %p = kiln.max_pool %x {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<1x4x6x6xf16> -> tensor<1x4x3x3xf16>
  %c = kiln.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x4x6x6xf16>, tensor<4x4x1x1xf16> -> tensor<1x4x6x6xf16>
  %i = kiln.max_pool_indices %c {dilations = array<i64: 1, 1>, kernel_shape = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 2, 2>} : tensor<1x4x6x6xf16> -> tensor<1x4x3x3xi64>
  return %p, %i : tensor<1x4x3x3xf16>, tensor<1x4x3x3xi64>
}

// -----

// A mean over a 40 x 40 plane of an NHWC value is a column reduction (the
// plane's pixels, each a contiguous vector of channels): it runs NHWC, and
// the channels-last window template reduces it by vectors of channels.
// CHECK-LABEL: func.func @long_spatial_reduction
// CHECK: %[[AXES:.+]] = kiln.constant dense<[1, 2]> : tensor<2xi64>
// CHECK: kiln.reduce_mean %{{.+}}, %[[AXES]] : tensor<1x40x40x8xf16>, tensor<2xi64> -> tensor<1x1x1x8xf16>
// CHECK-NOT: kiln.transpose
func.func @long_spatial_reduction(%x: tensor<1x3x40x40xf16>) -> tensor<1x8x1x1xf16> {
  %w = kiln.constant dense<1.0> : tensor<8x3x1x1xf16>
  %axes = kiln.constant dense<[2, 3]> : tensor<2xi64>
  %c = kiln.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x3x40x40xf16>, tensor<8x3x1x1xf16> -> tensor<1x8x40x40xf16>
  %m = kiln.reduce_mean %c, %axes : tensor<1x8x40x40xf16>, tensor<2xi64> -> tensor<1x8x1x1xf16>
  return %m : tensor<1x8x1x1xf16>
}

// -----

// A sum over C and H of NCHW is axes [1, 3] of NHWC: not one run, so in
// NHWC it would loop over 32 x 64 strided elements per output; the
// transpose stays and the reduction reads NCHW.
// CHECK-LABEL: func.func @long_strided_reduction
// CHECK: %[[T:.+]] = kiln.transpose %{{.+}} {perm = array<i64: 0, 3, 1, 2>} : tensor<1x64x40x32xf16> -> tensor<1x32x64x40xf16>
// CHECK: kiln.reduce_sum %[[T]], %{{.+}} : tensor<1x32x64x40xf16>, tensor<2xi64> -> tensor<1x1x1x40xf16>
func.func @long_strided_reduction(%x: tensor<1x3x64x40xf16>) -> tensor<1x1x1x40xf16> {
  %w = kiln.constant dense<1.0> : tensor<32x3x1x1xf16>
  %axes = kiln.constant dense<[1, 2]> : tensor<2xi64>
  %c = kiln.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x3x64x40xf16>, tensor<32x3x1x1xf16> -> tensor<1x32x64x40xf16>
  %m = kiln.reduce_sum %c, %axes : tensor<1x32x64x40xf16>, tensor<2xi64> -> tensor<1x1x1x40xf16>
  return %m : tensor<1x1x1x40xf16>
}

// -----

// Squeeze-excite on a channels-last activation: the [N, C, 1, 1] scale, a
// broadcast operand, joins the mul as a [N, 1, 1, C] view (a reshape), so
// the mul, the swish before it and the mean all run on the NHWC value and
// only the block's result is transposed back.
// CHECK-LABEL: func.func @squeeze_excite
// CHECK: %[[C:.+]] = kiln.conv {{.*}}layout = "NHWC"{{.*}} -> tensor<2x6x6x8xf16>
// CHECK: %[[A:.+]] = kiln.mul %[[C]], %{{.+}} : tensor<2x6x6x8xf16>, tensor<2x6x6x8xf16>
// CHECK: kiln.reduce_mean %[[A]], %{{.+}} : tensor<2x6x6x8xf16>, tensor<2xi64> -> tensor<2x1x1x8xf16>
// CHECK: %[[S:.+]] = kiln.sigmoid %{{.+}} : tensor<2x1x1x8xf16>
// CHECK-NEXT: %[[M:.+]] = kiln.mul %[[A]], %[[S]] : tensor<2x6x6x8xf16>, tensor<2x1x1x8xf16> -> tensor<2x6x6x8xf16>
// CHECK: %[[Y:.+]] = kiln.transpose %[[M]] {perm = array<i64: 0, 3, 1, 2>}
// CHECK-NOT: kiln.transpose
// CHECK: return %[[Y]]
func.func @squeeze_excite(%x: tensor<2x8x6x6xf16>) -> tensor<2x8x6x6xf16> {
  %w1 = kiln.constant dense<1.0> : tensor<8x8x1x1xf16>
  %b1 = kiln.constant dense<1.0> : tensor<8xf16>
  %w2 = kiln.constant dense<1.0> : tensor<4x8x1x1xf16>
  %b2 = kiln.constant dense<1.0> : tensor<4xf16>
  %w3 = kiln.constant dense<1.0> : tensor<8x4x1x1xf16>
  %b3 = kiln.constant dense<1.0> : tensor<8xf16>
  %axes = kiln.constant dense<[2, 3]> : tensor<2xi64>
  %c1 = kiln.conv %x, %w1, %b1 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<2x8x6x6xf16>, tensor<8x8x1x1xf16>, tensor<8xf16> -> tensor<2x8x6x6xf16>
  %sg = kiln.sigmoid %c1 : tensor<2x8x6x6xf16> -> tensor<2x8x6x6xf16>
  %a = kiln.mul %c1, %sg : tensor<2x8x6x6xf16>, tensor<2x8x6x6xf16> -> tensor<2x8x6x6xf16>
  %m = kiln.reduce_mean %a, %axes {keepdims = true} : tensor<2x8x6x6xf16>, tensor<2xi64> -> tensor<2x8x1x1xf16>
  %f1 = kiln.conv %m, %w2, %b2 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<2x8x1x1xf16>, tensor<4x8x1x1xf16>, tensor<4xf16> -> tensor<2x4x1x1xf16>
  %r = kiln.relu %f1 : tensor<2x4x1x1xf16> -> tensor<2x4x1x1xf16>
  %f2 = kiln.conv %r, %w3, %b3 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<2x4x1x1xf16>, tensor<8x4x1x1xf16>, tensor<8xf16> -> tensor<2x8x1x1xf16>
  %s = kiln.sigmoid %f2 : tensor<2x8x1x1xf16> -> tensor<2x8x1x1xf16>
  %sc = kiln.mul %a, %s : tensor<2x8x6x6xf16>, tensor<2x8x1x1xf16> -> tensor<2x8x6x6xf16>
  return %sc : tensor<2x8x6x6xf16>
}

// -----

// A value of the result's shape that is no transpose keeps an op where it
// is, also when two layouts differ only in where size-1 dims sit: the swish
// of an excite conv's [N, C, 1, 1] result would otherwise sink back and
// forth between [N, C, 1, 1] and [N, 1, 1, C] forever.
// CHECK-LABEL: func.func @size_one_layouts_converge
// CHECK: %[[C:.+]] = kiln.conv {{.*}}layout = "NHWC"{{.*}} -> tensor<2x1x1x4xf16>
// CHECK: %[[S:.+]] = kiln.sigmoid %[[C]] : tensor<2x1x1x4xf16>
// CHECK: kiln.mul %[[C]], %[[S]] : tensor<2x1x1x4xf16>, tensor<2x1x1x4xf16>
func.func @size_one_layouts_converge(%x: tensor<2x8x1x1xf16>) -> tensor<2x4x1x1xf16> {
  %w = kiln.constant dense<1.0> : tensor<4x8x1x1xf16>
  %c = kiln.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<2x8x1x1xf16>, tensor<4x8x1x1xf16> -> tensor<2x4x1x1xf16>
  %s = kiln.sigmoid %c : tensor<2x4x1x1xf16> -> tensor<2x4x1x1xf16>
  %m = kiln.mul %c, %s : tensor<2x4x1x1xf16>, tensor<2x4x1x1xf16> -> tensor<2x4x1x1xf16>
  return %m : tensor<2x4x1x1xf16>
}

// -----

// ConvNeXt's residual: a layer scale of lower rank ([C, 1, 1], broadcast as
// [1, C, 1, 1]) joins as a view too (a reshape to rank 4, then a transpose
// that folds with the constant), so the scaled branch and the residual add
// run channels-last and the residual stream needs no transpose.
// CHECK-LABEL: func.func @layer_scale_residual
// CHECK: %[[X:.+]] = kiln.transpose %arg0 {perm = array<i64: 0, 2, 3, 1>}
// CHECK: %[[R:.+]] = kiln.conv %[[X]], {{.*}}layout = "NHWC"{{.*}} -> tensor<1x6x6x8xf16>
// CHECK: %[[C:.+]] = kiln.conv %[[R]], {{.*}}layout = "NHWC"{{.*}} -> tensor<1x6x6x8xf16>
// CHECK: %[[G:.+]] = kiln.reshape %{{.+}}, %{{.+}} : tensor<8x1x1xf16>, tensor<4xi64> -> tensor<1x8x1x1xf16>
// CHECK: %[[V:.+]] = kiln.transpose %[[G]] {perm = array<i64: 0, 2, 3, 1>} : tensor<1x8x1x1xf16> -> tensor<1x1x1x8xf16>
// CHECK: %[[M:.+]] = kiln.mul %[[V]], %[[C]] : tensor<1x1x1x8xf16>, tensor<1x6x6x8xf16> -> tensor<1x6x6x8xf16>
// CHECK: %[[A:.+]] = kiln.add %[[M]], %[[R]] : tensor<1x6x6x8xf16>, tensor<1x6x6x8xf16>
// CHECK: %[[Y:.+]] = kiln.transpose %[[A]] {perm = array<i64: 0, 3, 1, 2>}
// CHECK-NOT: kiln.transpose
// CHECK: return %[[Y]]
func.func @layer_scale_residual(%x: tensor<1x8x6x6xf16>) -> tensor<1x8x6x6xf16> {
  %w = kiln.constant dense<1.0> : tensor<8x8x1x1xf16>
  %g = kiln.constant dense<0.5> : tensor<8x1x1xf16>
  %r = kiln.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x8x6x6xf16>, tensor<8x8x1x1xf16> -> tensor<1x8x6x6xf16>
  %c = kiln.conv %r, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x8x6x6xf16>, tensor<8x8x1x1xf16> -> tensor<1x8x6x6xf16>
  %m = kiln.mul %g, %c : tensor<8x1x1xf16>, tensor<1x8x6x6xf16> -> tensor<1x8x6x6xf16>
  %a = kiln.add %m, %r : tensor<1x8x6x6xf16>, tensor<1x8x6x6xf16> -> tensor<1x8x6x6xf16>
  return %a : tensor<1x8x6x6xf16>
}

// -----

// DenseNet's dense layer: the channel concat of two NHWC convolutions'
// results is a concat of their last dims, and the batch norm after it (no
// convolution absorbs it) becomes (x - mean) * factor + bias with [1, 1, 1, C]
// operands in the NHWC layout: no transpose but the result's.
// CHECK-LABEL: func.func @dense_layer
// CHECK: %[[A:.+]] = kiln.conv {{.*}}layout = "NHWC"{{.*}} -> tensor<2x6x6x8xf16>
// CHECK: %[[B:.+]] = kiln.conv {{.*}}layout = "NHWC"{{.*}} -> tensor<2x6x6x4xf16>
// CHECK: %[[C:.+]] = kiln.concat %[[A]], %[[B]] {axis = 3 : i64} : tensor<2x6x6x8xf16>, tensor<2x6x6x4xf16> -> tensor<2x6x6x12xf16>
// CHECK: %[[S:.+]] = kiln.sub %[[C]], %{{.+}} : tensor<2x6x6x12xf16>, tensor<1x1x1x12xf16> -> tensor<2x6x6x12xf16>
// CHECK: %[[M:.+]] = kiln.mul %[[S]], %{{.+}} : tensor<2x6x6x12xf16>, tensor<1x1x1x12xf16> -> tensor<2x6x6x12xf16>
// CHECK: %[[N:.+]] = kiln.add %[[M]], %{{.+}} : tensor<2x6x6x12xf16>, tensor<1x1x1x12xf16> -> tensor<2x6x6x12xf16>
// CHECK: %[[R:.+]] = kiln.relu %[[N]]
// CHECK: %[[Y:.+]] = kiln.conv %[[R]], {{.*}}layout = "NHWC"{{.*}} -> tensor<2x6x6x4xf16>
// CHECK-NOT: kiln.batch_norm
// CHECK: kiln.transpose %[[Y]] {perm = array<i64: 0, 3, 1, 2>}
// CHECK-NOT: kiln.transpose
// CHECK: return
func.func @dense_layer(%x: tensor<2x8x6x6xf16>) -> tensor<2x4x6x6xf16> {
  %w1 = kiln.constant dense<1.0> : tensor<8x8x1x1xf16>
  %w2 = kiln.constant dense<1.0> : tensor<4x8x3x3xf16>
  %w3 = kiln.constant dense<1.0> : tensor<4x12x1x1xf16>
  %s = kiln.constant dense<2.0> : tensor<12xf16>
  %b = kiln.constant dense<0.5> : tensor<12xf16>
  %m = kiln.constant dense<3.0> : tensor<12xf16>
  %v = kiln.constant dense<4.0> : tensor<12xf16>
  %a = kiln.conv %x, %w1 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<2x8x6x6xf16>, tensor<8x8x1x1xf16> -> tensor<2x8x6x6xf16>
  %c = kiln.conv %x, %w2 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<2x8x6x6xf16>, tensor<4x8x3x3xf16> -> tensor<2x4x6x6xf16>
  %cat = kiln.concat %a, %c {axis = 1 : i64} : tensor<2x8x6x6xf16>, tensor<2x4x6x6xf16> -> tensor<2x12x6x6xf16>
  %n = kiln.batch_norm %cat, %s, %b, %m, %v {epsilon = 1.0e-05 : f32} : tensor<2x12x6x6xf16>, tensor<12xf16>, tensor<12xf16>, tensor<12xf16>, tensor<12xf16> -> tensor<2x12x6x6xf16>
  %r = kiln.relu %n : tensor<2x12x6x6xf16> -> tensor<2x12x6x6xf16>
  %y = kiln.conv %r, %w3 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<2x12x6x6xf16>, tensor<4x12x1x1xf16> -> tensor<2x4x6x6xf16>
  return %y : tensor<2x4x6x6xf16>
}

// -----

// ShuffleNet's channel split: a slice of an NHWC value's channels slices its
// last dim; a concat with a value that is no transpose (the argument) stays
// NCHW, with the transposes it needs.
// CHECK-LABEL: func.func @channel_split
// CHECK-DAG: %[[AX:.+]] = kiln.constant dense<3> : tensor<1xi64>
// CHECK-DAG: %[[A:.+]] = kiln.conv {{.*}}layout = "NHWC"{{.*}} -> tensor<1x6x6x8xf16>
// CHECK: %[[S:.+]] = kiln.slice %[[A]], %{{.+}}, %{{.+}}, %[[AX]], %{{.+}} : tensor<1x6x6x8xf16>, {{.*}} -> tensor<1x6x6x4xf16>
// CHECK: %[[T:.+]] = kiln.transpose %[[S]] {perm = array<i64: 0, 3, 1, 2>}
// CHECK: kiln.concat %[[T]], %arg1 {axis = 1 : i64}
func.func @channel_split(%x: tensor<1x8x6x6xf16>, %z: tensor<1x4x6x6xf16>) -> tensor<1x8x6x6xf16> {
  %w = kiln.constant dense<1.0> : tensor<8x8x1x1xf16>
  %starts = kiln.constant dense<0> : tensor<1xi64>
  %ends = kiln.constant dense<4> : tensor<1xi64>
  %axes = kiln.constant dense<1> : tensor<1xi64>
  %steps = kiln.constant dense<1> : tensor<1xi64>
  %a = kiln.conv %x, %w {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 0, 0, 0, 0>, strides = array<i64: 1, 1>} : tensor<1x8x6x6xf16>, tensor<8x8x1x1xf16> -> tensor<1x8x6x6xf16>
  %s = kiln.slice %a, %starts, %ends, %axes, %steps : tensor<1x8x6x6xf16>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<1x4x6x6xf16>
  %cat = kiln.concat %s, %z {axis = 1 : i64} : tensor<1x4x6x6xf16>, tensor<1x4x6x6xf16> -> tensor<1x8x6x6xf16>
  return %cat : tensor<1x8x6x6xf16>
}
