// RUN: kiln-opt %s --split-input-file --kiln-fuse-kernels | FileCheck %s

// A pointwise chain with broadcasting becomes one kernel.
// CHECK-LABEL: func.func @pointwise_chain
// CHECK: %[[E:.+]] = kiln.empty : tensor<4x8xf32>
// CHECK: %[[K:.+]] = kiln.kernel "add_mul_relu_0" pointwise ins(%arg0, %arg1 : tensor<4x8xf32>, tensor<8xf32>) outs(%[[E]] : tensor<4x8xf32>)
// CHECK: kiln.add
// CHECK: kiln.mul
// CHECK: kiln.relu
// CHECK: kiln.yield
// CHECK-NOT: kiln.kernel
// CHECK: return %[[K]]
func.func @pointwise_chain(%a: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = kiln.add %a, %b : tensor<4x8xf32>, tensor<8xf32> -> tensor<4x8xf32>
  %1 = kiln.mul %0, %0 : tensor<4x8xf32>, tensor<4x8xf32> -> tensor<4x8xf32>
  %2 = kiln.relu %1 : tensor<4x8xf32> -> tensor<4x8xf32>
  return %2 : tensor<4x8xf32>
}

// -----

// A value with users outside the consumer's kernel is not recomputed: it gets
// a kernel of its own (deliberately not fused).
// CHECK-LABEL: func.func @shared_producer
// CHECK: %[[EXP:.+]] = kiln.kernel "exp_0" pointwise
// CHECK: kiln.kernel "relu_1" pointwise ins(%[[EXP]]
// CHECK: kiln.kernel "neg_2" pointwise ins(%[[EXP]]
func.func @shared_producer(%a: tensor<16xf32>) -> (tensor<16xf32>, tensor<16xf32>) {
  %0 = kiln.exp %a : tensor<16xf32> -> tensor<16xf32>
  %1 = kiln.relu %0 : tensor<16xf32> -> tensor<16xf32>
  %2 = kiln.neg %0 : tensor<16xf32> -> tensor<16xf32>
  return %1, %2 : tensor<16xf32>, tensor<16xf32>
}

// -----

// Softmax over the last axis with a pointwise prologue is one row_reduce kernel.
// CHECK-LABEL: func.func @softmax_prologue
// CHECK: kiln.kernel "mul_softmax_0" row_reduce ins(%arg0 : tensor<2x4097xf32>)
// CHECK: %[[S:.+]] = kiln.constant dense<1.250000e-01> : tensor<f32>
// CHECK: kiln.mul %{{.*}}, %[[S]]
// CHECK: kiln.softmax
func.func @softmax_prologue(%x: tensor<2x4097xf32>) -> tensor<2x4097xf32> {
  %s = kiln.constant dense<0.125> : tensor<f32>
  %0 = kiln.mul %x, %s : tensor<2x4097xf32>, tensor<f32> -> tensor<2x4097xf32>
  %1 = kiln.softmax %0 : tensor<2x4097xf32> -> tensor<2x4097xf32>
  return %1 : tensor<2x4097xf32>
}

// -----

// ReduceMean over the last axis with a prologue (x*x) and an epilogue
// (sqrt(mean + eps)) is one kernel: the RMS of each row.
// CHECK-LABEL: func.func @reduce_prologue_epilogue
// CHECK: kiln.kernel "mul_reduce_mean_add_etc_0" row_reduce
// CHECK-SAME: outs(%{{.*}} : tensor<8x1xf32>)
// CHECK: kiln.mul
// CHECK: kiln.reduce_mean
// CHECK: kiln.add
// CHECK: kiln.sqrt
// CHECK-NOT: kiln.kernel
func.func @reduce_prologue_epilogue(%x: tensor<8x768xf32>) -> tensor<8x1xf32> {
  %axes = kiln.constant dense<-1> : tensor<1xi64>
  %eps = kiln.constant dense<1.0e-5> : tensor<f32>
  %0 = kiln.mul %x, %x : tensor<8x768xf32>, tensor<8x768xf32> -> tensor<8x768xf32>
  %1 = kiln.reduce_mean %0, %axes : tensor<8x768xf32>, tensor<1xi64> -> tensor<8x1xf32>
  %2 = kiln.add %1, %eps : tensor<8x1xf32>, tensor<f32> -> tensor<8x1xf32>
  %3 = kiln.sqrt %2 : tensor<8x1xf32> -> tensor<8x1xf32>
  return %3 : tensor<8x1xf32>
}

// -----

// A reduction over a leading axis is not a row reduction: it gets its own
// pointwise kernel (a serial loop per output) and its consumer another.
// CHECK-LABEL: func.func @leading_axis_reduction
// CHECK: %[[R:.+]] = kiln.kernel "reduce_sum_0" pointwise
// CHECK: kiln.kernel "exp_1" pointwise ins(%[[R]]
func.func @leading_axis_reduction(%x: tensor<8x16xf32>) -> tensor<16xf32> {
  %axes = kiln.constant dense<0> : tensor<1xi64>
  %0 = kiln.reduce_sum %x, %axes {keepdims = false} : tensor<8x16xf32>, tensor<1xi64> -> tensor<16xf32>
  %1 = kiln.exp %0 : tensor<16xf32> -> tensor<16xf32>
  return %1 : tensor<16xf32>
}

// -----

// MatMul is a library kernel; a bias row and a relu after it are its
// cuBLASLt epilogue (BIAS_RELU), in the same kernel. Constants of more than
// 16 elements (weights) are kernel inputs, not cloned.
// CHECK-LABEL: func.func @library
// CHECK: %[[W:.+]] = kiln.constant dense<{{.*}}> : tensor<4x5xf32>
// CHECK: kiln.kernel "matmul_add_relu_0" library ins(%arg0, %[[W]], %arg1 : tensor<3x4xf32>, tensor<4x5xf32>, tensor<5xf32>)
// CHECK-NEXT: ^bb0
// CHECK-NEXT: kiln.matmul
// CHECK-NEXT: kiln.add
// CHECK-NEXT: kiln.relu
// CHECK-NEXT: kiln.yield
// CHECK-NOT: kiln.kernel
func.func @library(%x: tensor<3x4xf32>, %b: tensor<5xf32>) -> tensor<3x5xf32> {
  %w = kiln.constant dense<[[1.0, 2.0, 3.0, 4.0, 5.0], [6.0, 7.0, 8.0, 9.0, 10.0], [11.0, 12.0, 13.0, 14.0, 15.0], [16.0, 17.0, 18.0, 19.0, 20.0]]> : tensor<4x5xf32>
  %0 = kiln.matmul %x, %w : tensor<3x4xf32>, tensor<4x5xf32> -> tensor<3x5xf32>
  %1 = kiln.add %0, %b : tensor<3x5xf32>, tensor<5xf32> -> tensor<3x5xf32>
  %2 = kiln.relu %1 : tensor<3x5xf32> -> tensor<3x5xf32>
  return %2 : tensor<3x5xf32>
}

// -----

// Transposes that move the innermost dim are transpose kernels (with fused
// pointwise producers); data movement ops form data_movement kernels.
// CHECK-LABEL: func.func @data_movement
// CHECK: kiln.kernel "exp_transpose_0" transpose
// CHECK: kiln.kernel "concat_1" data_movement
// CHECK: kiln.kernel "slice_gather_2" data_movement
func.func @data_movement(%x: tensor<33x65xf32>, %y: tensor<65x33xf32>, %ids: tensor<3xi64>) -> (tensor<130x33xf32>, tensor<3x33xf32>) {
  %0 = kiln.exp %x : tensor<33x65xf32> -> tensor<33x65xf32>
  %1 = kiln.transpose %0 {perm = array<i64: 1, 0>} : tensor<33x65xf32> -> tensor<65x33xf32>
  %2 = kiln.concat %1, %y {axis = 0 : i64} : tensor<65x33xf32>, tensor<65x33xf32> -> tensor<130x33xf32>
  %s = kiln.constant dense<1> : tensor<1xi64>
  %e = kiln.constant dense<9> : tensor<1xi64>
  %a = kiln.constant dense<0> : tensor<1xi64>
  %st = kiln.constant dense<2> : tensor<1xi64>
  %3 = kiln.slice %y, %s, %e, %a, %st : tensor<65x33xf32>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64>, tensor<1xi64> -> tensor<4x33xf32>
  %4 = kiln.gather %3, %ids {axis = 0 : i64} : tensor<4x33xf32>, tensor<3xi64> -> tensor<3x33xf32>
  return %2, %4 : tensor<130x33xf32>, tensor<3x33xf32>
}

// -----

// A view between two pointwise ops is fused as re-indexing; a view feeding a
// library kernel or the return stays outside as an alias.
// CHECK-LABEL: func.func @views
// CHECK: kiln.kernel "exp_relu_0" pointwise
// CHECK: kiln.reshape
// CHECK: kiln.relu
// CHECK: kiln.yield
// CHECK: %[[V:.+]] = kiln.reshape %{{.*}} : tensor<4x8xf32>, tensor<2xi64> -> tensor<8x4xf32>
// CHECK: return %[[V]]
func.func @views(%x: tensor<32xf32>) -> tensor<8x4xf32> {
  %s1 = kiln.constant dense<[4, 8]> : tensor<2xi64>
  %s2 = kiln.constant dense<[8, 4]> : tensor<2xi64>
  %0 = kiln.exp %x : tensor<32xf32> -> tensor<32xf32>
  %1 = kiln.reshape %0, %s1 : tensor<32xf32>, tensor<2xi64> -> tensor<4x8xf32>
  %2 = kiln.relu %1 : tensor<4x8xf32> -> tensor<4x8xf32>
  %3 = kiln.reshape %2, %s2 : tensor<4x8xf32>, tensor<2xi64> -> tensor<8x4xf32>
  return %3 : tensor<8x4xf32>
}

// -----

// A Gemm C that the library call cannot take (a column, or beta != 1) becomes
// a separate scaled add after a C-less library Gemm.
// CHECK-LABEL: func.func @gemm_column_bias
// CHECK: %[[G:.+]] = kiln.kernel "gemm_0" library
// CHECK: kiln.gemm %{{[a-z0-9]+}}, %{{[a-z0-9]+}} {beta = 5.000000e-01 : f32} : tensor<4x8xf32>, tensor<8x3xf32> -> tensor<4x3xf32>
// CHECK: kiln.kernel "mul_add_1" pointwise ins(%arg2, %[[G]] : tensor<4x1xf32>, tensor<4x3xf32>)
// CHECK: kiln.constant dense<5.000000e-01> : tensor<f32>
func.func @gemm_column_bias(%a: tensor<4x8xf32>, %b: tensor<8x3xf32>, %c: tensor<4x1xf32>) -> tensor<4x3xf32> {
  %0 = kiln.gemm %a, %b, %c {beta = 0.5 : f32} : tensor<4x8xf32>, tensor<8x3xf32>, tensor<4x1xf32> -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

// MatMul batch dims broadcast only in part ([2,1] and [3] against [2,3]) are
// materialised by expands (data_movement kernels) so that a strided batched
// library call runs them.
// CHECK-LABEL: func.func @partial_batch
// CHECK: %[[E:.+]] = kiln.kernel "expand_0" data_movement ins(%arg0 : tensor<2x1x4x8xf32>) outs(%{{.*}} : tensor<2x3x4x8xf32>)
// CHECK: %[[F:.+]] = kiln.kernel "expand_1" data_movement ins(%arg1 : tensor<3x8x5xf32>) outs(%{{.*}} : tensor<2x3x8x5xf32>)
// CHECK: kiln.kernel "matmul_2" library ins(%[[E]], %[[F]] : tensor<2x3x4x8xf32>, tensor<2x3x8x5xf32>)
func.func @partial_batch(%a: tensor<2x1x4x8xf32>, %b: tensor<3x8x5xf32>) -> tensor<2x3x4x5xf32> {
  %0 = kiln.matmul %a, %b : tensor<2x1x4x8xf32>, tensor<3x8x5xf32> -> tensor<2x3x4x5xf32>
  return %0 : tensor<2x3x4x5xf32>
}

// -----

// An output that is (a view of) a graph input is written by a copy kernel;
// integer MatMul, which cuBLASLt cannot run, is an elemental kernel of its own.
// CHECK-LABEL: func.func @copies_and_integer_matmul
// CHECK: kiln.kernel "matmul_0" pointwise
// CHECK: kiln.kernel "identity_1" pointwise ins(%arg0 : tensor<2x3xi32>) outs(%{{.*}} : tensor<6xi32>)
// CHECK: kiln.reshape
// CHECK: kiln.identity
func.func @copies_and_integer_matmul(%x: tensor<2x3xi32>, %y: tensor<3x4xi32>) -> (tensor<2x4xi32>, tensor<6xi32>) {
  %s = kiln.constant dense<6> : tensor<1xi64>
  %0 = kiln.matmul %x, %y : tensor<2x3xi32>, tensor<3x4xi32> -> tensor<2x4xi32>
  %1 = kiln.reshape %x, %s : tensor<2x3xi32>, tensor<1xi64> -> tensor<6xi32>
  return %0, %1 : tensor<2x4xi32>, tensor<6xi32>
}

// -----

// BERT's residual block: bias add, residual add and LayerNorm are one
// row_reduce kernel (the adds are its prologue), and a cast after it is the
// epilogue.
// CHECK-LABEL: func.func @add_add_layer_norm
// CHECK: %[[K:.+]] = kiln.kernel "add_add_layer_norm_etc_0" row_reduce ins(%arg0, %arg1, %arg2, %arg3, %arg4 : tensor<8x128x768xf16>, tensor<768xf16>, tensor<8x128x768xf16>, tensor<768xf16>, tensor<768xf16>)
// CHECK: kiln.add
// CHECK: kiln.add
// CHECK: kiln.layer_norm
// CHECK: kiln.cast
// CHECK: kiln.yield
// CHECK-NOT: kiln.kernel
// CHECK: return %[[K]]
func.func @add_add_layer_norm(%x: tensor<8x128x768xf16>, %b: tensor<768xf16>, %r: tensor<8x128x768xf16>, %g: tensor<768xf16>, %beta: tensor<768xf16>) -> tensor<8x128x768xf32> {
  %0 = kiln.add %x, %b : tensor<8x128x768xf16>, tensor<768xf16> -> tensor<8x128x768xf16>
  %1 = kiln.add %0, %r : tensor<8x128x768xf16>, tensor<8x128x768xf16> -> tensor<8x128x768xf16>
  %2 = kiln.layer_norm %1, %g, %beta {axis = -1 : i64, epsilon = 1.0e-05 : f32} : tensor<8x128x768xf16>, tensor<768xf16>, tensor<768xf16> -> tensor<8x128x768xf16>
  %3 = kiln.cast %2 {to = f32} : tensor<8x128x768xf16> -> tensor<8x128x768xf32>
  return %3 : tensor<8x128x768xf32>
}

// -----

// A LayerNorm whose input has another user keeps that producer in a kernel
// of its own (the residual stream), and still anchors a row_reduce kernel.
// CHECK-LABEL: func.func @layer_norm_shared_input
// CHECK: %[[ADD:.+]] = kiln.kernel "add_0" pointwise
// CHECK: kiln.kernel "layer_norm_1" row_reduce ins(%[[ADD]]
func.func @layer_norm_shared_input(%x: tensor<4x64xf32>, %r: tensor<4x64xf32>, %g: tensor<64xf32>) -> (tensor<4x64xf32>, tensor<4x64xf32>) {
  %0 = kiln.add %x, %r : tensor<4x64xf32>, tensor<4x64xf32> -> tensor<4x64xf32>
  %1 = kiln.layer_norm %0, %g : tensor<4x64xf32>, tensor<64xf32> -> tensor<4x64xf32>
  return %0, %1 : tensor<4x64xf32>, tensor<4x64xf32>
}

// -----

// log_softmax over the last axis anchors a row_reduce kernel like softmax;
// over another axis it stays a pointwise kernel (a serial loop per element).
// CHECK-LABEL: func.func @log_softmax_axes
// CHECK: kiln.kernel "mul_log_softmax_0" row_reduce
// CHECK: kiln.kernel "log_softmax_1" pointwise
func.func @log_softmax_axes(%x: tensor<4x10xf32>) -> (tensor<4x10xf32>, tensor<4x10xf32>) {
  %0 = kiln.mul %x, %x : tensor<4x10xf32>, tensor<4x10xf32> -> tensor<4x10xf32>
  %1 = kiln.log_softmax %0 {axis = -1 : i64} : tensor<4x10xf32> -> tensor<4x10xf32>
  %2 = kiln.log_softmax %x {axis = 0 : i64} : tensor<4x10xf32> -> tensor<4x10xf32>
  return %1, %2 : tensor<4x10xf32>, tensor<4x10xf32>
}

// -----

// A tiled transpose (it moves the innermost dim) roots a transpose kernel;
// a transpose that keeps the innermost dim joins it as an elemental
// producer, so the kernel holds two transposes and one anchor (issue 14).
// CHECK-LABEL: func.func @transpose_relu_transpose
// CHECK: kiln.kernel "transpose_relu_transpose_0" transpose
// CHECK: kiln.transpose %{{.*}} {perm = array<i64: 1, 0, 2>}
// CHECK: kiln.relu
// CHECK: kiln.transpose %{{.*}} {perm = array<i64: 2, 1, 0>}
// CHECK-NOT: kiln.kernel
func.func @transpose_relu_transpose(%x: tensor<4x8x16xf32>) -> tensor<16x4x8xf32> {
  %0 = kiln.transpose %x {perm = array<i64: 1, 0, 2>} : tensor<4x8x16xf32> -> tensor<8x4x16xf32>
  %1 = kiln.relu %0 : tensor<8x4x16xf32> -> tensor<8x4x16xf32>
  %2 = kiln.transpose %1 {perm = array<i64: 2, 1, 0>} : tensor<8x4x16xf32> -> tensor<16x4x8xf32>
  return %2 : tensor<16x4x8xf32>
}

// -----

// A row reduction joins a kernel only when the ops that use its result are
// pointwise or views (the row template computes them once per row): a
// reduction over another axis of its result stays a kernel of its own
// (issue 14's ReduceSum -> ReduceMax).
// CHECK-LABEL: func.func @row_reduction_then_other_axis
// CHECK: %[[S:.+]] = kiln.kernel "reduce_sum_0" row_reduce
// CHECK: kiln.kernel "reduce_max_1" pointwise ins(%[[S]]
func.func @row_reduction_then_other_axis(%x: tensor<1x4x8xf32>) -> tensor<1x4x1xf32> {
  %c2 = kiln.constant dense<2> : tensor<1xi64>
  %c0 = kiln.constant dense<0> : tensor<1xi64>
  %0 = kiln.reduce_sum %x, %c2 : tensor<1x4x8xf32>, tensor<1xi64> -> tensor<1x4x1xf32>
  %1 = kiln.reduce_max %0, %c0 : tensor<1x4x1xf32>, tensor<1xi64> -> tensor<1x4x1xf32>
  return %1 : tensor<1x4x1xf32>
}

// -----

// A row reduction joins the pointwise kernel that normalises its row by it
// (a per-element epilogue): Swin-V2's F.normalize, the sum of squares, its
// sqrt and clip, the expand and the division, one row_reduce kernel that
// yields the input's shape. A reduction whose result is also returned, or
// one of integers, stays a kernel of its own.
// CHECK-LABEL: func.func @per_element_epilogue
// CHECK: kiln.kernel "cast_mul_reduce_sum_etc_0" row_reduce ins(%arg0 : tensor<2x16x32xf16>) outs(%{{.+}} : tensor<2x16x32xf16>)
// CHECK: kiln.kernel "add_reduce_sum_1" row_reduce ins(%arg1 : tensor<4x8xf32>) outs(%{{.+}} : tensor<4x1xf32>)
// CHECK: kiln.kernel "sub_2" pointwise
// CHECK: kiln.kernel "reduce_sum_3" row_reduce ins(%arg2 : tensor<4x8xi32>)
// CHECK: kiln.kernel "sub_4" pointwise
// A min over the last two axes without keepdims ([2] under [2, 4, 2] reads
// it along the last axis, not per row) stays apart too.
// CHECK: kiln.kernel "reduce_min_5" row_reduce
// CHECK: kiln.kernel "sub_6" pointwise
func.func @per_element_epilogue(%q: tensor<2x16x32xf16>, %a: tensor<4x8xf32>, %i: tensor<4x8xi32>, %m3: tensor<2x4x2xf32>) -> (tensor<2x16x32xf16>, tensor<4x8xf32>, tensor<4x1xf32>, tensor<4x8xi32>, tensor<2x4x2xf32>) {
  %w = kiln.cast %q {to = f32} : tensor<2x16x32xf16> -> tensor<2x16x32xf32>
  %s = kiln.mul %w, %w : tensor<2x16x32xf32>, tensor<2x16x32xf32> -> tensor<2x16x32xf32>
  %axes = kiln.constant dense<[2]> : tensor<1xi64>
  %r = kiln.reduce_sum %s, %axes : tensor<2x16x32xf32>, tensor<1xi64> -> tensor<2x16x1xf32>
  %eps = kiln.constant dense<1.0e-12> : tensor<f32>
  %inf = kiln.constant dense<0x7F800000> : tensor<f32>
  %shape = kiln.constant dense<[2, 16, 32]> : tensor<3xi64>
  %n = kiln.sqrt %r : tensor<2x16x1xf32> -> tensor<2x16x1xf32>
  %c = kiln.clip %n, %eps, %inf : tensor<2x16x1xf32>, tensor<f32>, tensor<f32> -> tensor<2x16x1xf32>
  %e = kiln.expand %c, %shape : tensor<2x16x1xf32>, tensor<3xi64> -> tensor<2x16x32xf32>
  %d = kiln.div %w, %e : tensor<2x16x32xf32>, tensor<2x16x32xf32> -> tensor<2x16x32xf32>
  %y = kiln.cast %d {to = f16} : tensor<2x16x32xf32> -> tensor<2x16x32xf16>
  %one = kiln.constant dense<1> : tensor<1xi64>
  %ones = kiln.constant dense<1.0> : tensor<f32>
  %a1 = kiln.add %a, %ones : tensor<4x8xf32>, tensor<f32> -> tensor<4x8xf32>
  %sa = kiln.reduce_sum %a1, %one : tensor<4x8xf32>, tensor<1xi64> -> tensor<4x1xf32>
  %da = kiln.sub %a, %sa : tensor<4x8xf32>, tensor<4x1xf32> -> tensor<4x8xf32>
  %si = kiln.reduce_sum %i, %one : tensor<4x8xi32>, tensor<1xi64> -> tensor<4x1xi32>
  %di = kiln.sub %i, %si : tensor<4x8xi32>, tensor<4x1xi32> -> tensor<4x8xi32>
  %axes12 = kiln.constant dense<[1, 2]> : tensor<2xi64>
  %mn = kiln.reduce_min %m3, %axes12 {keepdims = false} : tensor<2x4x2xf32>, tensor<2xi64> -> tensor<2xf32>
  %dm = kiln.sub %m3, %mn : tensor<2x4x2xf32>, tensor<2xf32> -> tensor<2x4x2xf32>
  return %y, %da, %sa, %di, %dm : tensor<2x16x32xf16>, tensor<4x8xf32>, tensor<4x1xf32>, tensor<4x8xi32>, tensor<2x4x2xf32>
}
