// RUN: kiln-opt %s --split-input-file --kiln-convert-precision=precision=fp16 | FileCheck %s

// Index arithmetic stays f32: T5's relative-position bucket, float math on an
// integer distance that ends in a cast back to an integer. With log(16) in
// f16 (2.7734) the distances 16, 32 and 64 fell one bucket low.
// CHECK-LABEL: func.func @main
// CHECK-DAG:     %[[EIGHT:.+]] = kiln.constant dense<8.000000e+00> : tensor<f32>
// CHECK-DAG:     %[[LOG16:.+]] = kiln.constant dense<2.77258873> : tensor<f32>
// CHECK:         %[[N:.+]] = kiln.cast %arg0 {to = f32} : tensor<4xi64> -> tensor<4xf32>
// CHECK:         %[[RATIO:.+]] = kiln.div %[[N]], %[[EIGHT]] : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
// CHECK:         %[[LOG:.+]] = kiln.log %[[RATIO]] : tensor<4xf32> -> tensor<4xf32>
// CHECK:         %[[SCALED:.+]] = kiln.div %[[LOG]], %[[LOG16]] : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
// CHECK:         %[[BUCKET:.+]] = kiln.mul %[[SCALED]], %[[EIGHT]] : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
// CHECK:         kiln.cast %[[BUCKET]] {to = i64} : tensor<4xf32> -> tensor<4xi64>
func.func @main(%n: tensor<4xi64>) -> tensor<4xi64> {
  %eight = kiln.constant dense<8.0> : tensor<f32>
  %log16 = kiln.constant dense<2.77258873> : tensor<f32>
  %0 = kiln.cast %n {to = f32} : tensor<4xi64> -> tensor<4xf32>
  %1 = kiln.div %0, %eight : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  %2 = kiln.log %1 : tensor<4xf32> -> tensor<4xf32>
  %3 = kiln.div %2, %log16 : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  %4 = kiln.mul %3, %eight : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  %5 = kiln.cast %4 {to = i64} : tensor<4xf32> -> tensor<4xi64>
  return %5 : tensor<4xi64>
}

// -----

// A comparison ends index arithmetic too.
// CHECK-LABEL: func.func @main
// CHECK:         kiln.cast %arg0 {to = f32} : tensor<4xi64> -> tensor<4xf32>
// CHECK:         kiln.sqrt {{.*}} : tensor<4xf32> -> tensor<4xf32>
// CHECK:         kiln.less {{.*}} : tensor<4xf32>, tensor<f32> -> tensor<4xi1>
func.func @main(%n: tensor<4xi64>) -> tensor<4xi1> {
  %limit = kiln.constant dense<3.0> : tensor<f32>
  %0 = kiln.cast %n {to = f32} : tensor<4xi64> -> tensor<4xf32>
  %1 = kiln.sqrt %0 : tensor<4xf32> -> tensor<4xf32>
  %2 = kiln.less %1, %limit : tensor<4xf32>, tensor<f32> -> tensor<4xi1>
  return %2 : tensor<4xi1>
}

// -----

// A value computed from integers that meets an activation is not index
// arithmetic: the attention mask becomes f16, its -3.4e38 saturated. A
// constant both kinds read is split: f32 for the index, f16 for the rest.
// CHECK-LABEL: func.func @main
// CHECK-DAG:     %[[HALF_ONE:.+]] = kiln.constant dense<1.000000e+00> : tensor<f16>
// CHECK-DAG:     %[[ONE:.+]] = kiln.constant dense<1.000000e+00> : tensor<f32>
// CHECK-DAG:     kiln.constant dense<-6.550400e+04> : tensor<f16>
// CHECK-DAG:     %[[MASK:.+]] = kiln.cast %arg0 {to = f16} : tensor<4xi64> -> tensor<4xf16>
// CHECK-DAG:     kiln.sub %[[HALF_ONE]], %[[MASK]] : tensor<f16>, tensor<4xf16> -> tensor<4xf16>
// CHECK-DAG:     %[[INDEX:.+]] = kiln.cast %arg0 {to = f32} : tensor<4xi64> -> tensor<4xf32>
// CHECK-DAG:     kiln.add %[[INDEX]], %[[ONE]] : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
// CHECK:         return {{.*}} : tensor<4xf32>, tensor<4xi64>
func.func @main(%mask: tensor<4xi64>, %x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi64>) {
  %one = kiln.constant dense<1.0> : tensor<f32>
  %lowest = kiln.constant dense<-3.40282347e+38> : tensor<f32>
  %0 = kiln.cast %mask {to = f32} : tensor<4xi64> -> tensor<4xf32>
  %1 = kiln.sub %one, %0 : tensor<f32>, tensor<4xf32> -> tensor<4xf32>
  %2 = kiln.mul %1, %lowest : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  %3 = kiln.add %x, %2 : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %4 = kiln.cast %mask {to = f32} : tensor<4xi64> -> tensor<4xf32>
  %5 = kiln.add %4, %one : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  %6 = kiln.cast %5 {to = i64} : tensor<4xf32> -> tensor<4xi64>
  return %3, %6 : tensor<4xf32>, tensor<4xi64>
}

// -----

// A value that ends in an integer and also meets an activation is computed
// once, in f16, for both (the rule never inserts casts).
// CHECK-LABEL: func.func @main
// CHECK:         %[[N:.+]] = kiln.cast %arg0 {to = f16} : tensor<4xi64> -> tensor<4xf16>
// CHECK:         %[[SCALED:.+]] = kiln.mul %[[N]], %{{.+}} : tensor<4xf16>, tensor<f16> -> tensor<4xf16>
// CHECK-DAG:     kiln.cast %[[SCALED]] {to = i64} : tensor<4xf16> -> tensor<4xi64>
// CHECK-DAG:     kiln.add %{{.+}}, %[[SCALED]] : tensor<4xf16>, tensor<4xf16> -> tensor<4xf16>
func.func @main(%n: tensor<4xi64>, %x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xi64>) {
  %scale = kiln.constant dense<0.5> : tensor<f32>
  %0 = kiln.cast %n {to = f32} : tensor<4xi64> -> tensor<4xf32>
  %1 = kiln.mul %0, %scale : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  %2 = kiln.cast %1 {to = i64} : tensor<4xf32> -> tensor<4xi64>
  %3 = kiln.add %x, %1 : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  return %3, %2 : tensor<4xf32>, tensor<4xi64>
}

// -----

// Weight arithmetic stays f32: a folded BatchNorm's w * scale / sqrt(var +
// eps) (kiln-fold-batch-norm's expressions of constants) is rounded to f16
// once, where the conv reads it; in f16 steps a variance plus epsilon below
// 6.1e-5 (f16's smallest normal) kept a few bits. The weight's reshape-free
// cast (the activation's operand) and the conv still run in f16.
// CHECK-LABEL: func.func @main
// CHECK-DAG:     %[[W:.+]] = kiln.constant dense_resource<w> : tensor<4x2x3x3xf32>
// CHECK-DAG:     %[[VAR:.+]] = kiln.constant dense<9.99999974E-6> : tensor<4xf32>
// CHECK:         %[[SUM:.+]] = kiln.add %[[VAR]], %{{.+}} : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
// CHECK:         %[[ROOT:.+]] = kiln.sqrt %[[SUM]] : tensor<4xf32> -> tensor<4xf32>
// CHECK:         %[[FACTOR:.+]] = kiln.div %{{.+}}, %[[ROOT]] : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
// CHECK:         %[[COLUMN:.+]] = kiln.reshape %[[FACTOR]], {{.*}} -> tensor<4x1x1x1xf32>
// CHECK:         %[[FOLDED:.+]] = kiln.mul %[[W]], %[[COLUMN]] : tensor<4x2x3x3xf32>, tensor<4x1x1x1xf32> -> tensor<4x2x3x3xf32>
// CHECK:         %[[HALF:.+]] = kiln.cast %[[FOLDED]] {to = f16} : tensor<4x2x3x3xf32> -> tensor<4x2x3x3xf16>
// CHECK:         kiln.conv %{{.+}}, %[[HALF]] {{.*}} : tensor<1x2x8x8xf16>, tensor<4x2x3x3xf16> -> tensor<1x4x8x8xf16>
func.func @main(%x: tensor<1x2x8x8xf32>) -> tensor<1x4x8x8xf32> {
  %w = kiln.constant dense_resource<w> : tensor<4x2x3x3xf32>
  %scale = kiln.constant dense<2.0> : tensor<4xf32>
  %var = kiln.constant dense<1.0e-5> : tensor<4xf32>
  %eps = kiln.constant dense<1.0e-5> : tensor<f32>
  %shape = kiln.constant dense<[4, 1, 1, 1]> : tensor<4xi64>
  %0 = kiln.add %var, %eps : tensor<4xf32>, tensor<f32> -> tensor<4xf32>
  %1 = kiln.sqrt %0 : tensor<4xf32> -> tensor<4xf32>
  %2 = kiln.div %scale, %1 : tensor<4xf32>, tensor<4xf32> -> tensor<4xf32>
  %3 = kiln.reshape %2, %shape : tensor<4xf32>, tensor<4xi64> -> tensor<4x1x1x1xf32>
  %4 = kiln.mul %w, %3 : tensor<4x2x3x3xf32>, tensor<4x1x1x1xf32> -> tensor<4x2x3x3xf32>
  %y = kiln.conv %x, %4 {dilations = array<i64: 1, 1>, group = 1 : i64, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 1, 1>} : tensor<1x2x8x8xf32>, tensor<4x2x3x3xf32> -> tensor<1x4x8x8xf32>
  return %y : tensor<1x4x8x8xf32>
}

// -----

// A weight's transpose alone is exact in f16: the weight is cast first (the
// cast then folds under kiln-fold-constants' cap as before).
// CHECK-LABEL: func.func @main
// CHECK:         %[[W:.+]] = kiln.constant dense_resource<w> : tensor<3x4xf32>
// CHECK:         %[[HALF:.+]] = kiln.cast %[[W]] {to = f16} : tensor<3x4xf32> -> tensor<3x4xf16>
// CHECK:         kiln.transpose %[[HALF]] {{.*}} : tensor<3x4xf16> -> tensor<4x3xf16>
func.func @main(%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %w = kiln.constant dense_resource<w> : tensor<3x4xf32>
  %t = kiln.transpose %w {perm = array<i64: 1, 0>} : tensor<3x4xf32> -> tensor<4x3xf32>
  %y = kiln.matmul %x, %t : tensor<2x4xf32>, tensor<4x3xf32> -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// Reduction statistics compute in f32: T5's RMSNorm, x * 1 / sqrt(mean(x^2) +
// eps). The prologue x^2 and the mean read x widened (exactly), so a row of
// RMS above 256 no longer overflows fp16 (x^2 > 65504: the rows came out
// zero); eps, sqrt and 1 / x stay f32; x * rstd computes in f32 and is
// rounded to f16 once; the weight's multiply is f16 again.
// CHECK-LABEL: func.func @main
// CHECK:         %[[X:.+]] = kiln.cast %arg0 {to = f16} : tensor<2x4xf32> -> tensor<2x4xf16>
// CHECK-DAG:     %[[TWO:.+]] = kiln.constant dense<2.000000e+00> : tensor<f32>
// CHECK-DAG:     %[[EPS:.+]] = kiln.constant dense<9.99999997E-7> : tensor<f32>
// CHECK:         %[[WIDE:.+]] = kiln.cast %[[X]] {to = f32} : tensor<2x4xf16> -> tensor<2x4xf32>
// CHECK:         %[[SQUARE:.+]] = kiln.pow %[[WIDE]], %[[TWO]] : tensor<2x4xf32>, tensor<f32> -> tensor<2x4xf32>
// CHECK:         %[[MEAN:.+]] = kiln.reduce_mean %[[SQUARE]], %{{.+}} : tensor<2x4xf32>, tensor<1xi64> -> tensor<2x1xf32>
// CHECK:         %[[SHIFTED:.+]] = kiln.add %[[MEAN]], %[[EPS]] : tensor<2x1xf32>, tensor<f32> -> tensor<2x1xf32>
// CHECK:         %[[RMS:.+]] = kiln.sqrt %[[SHIFTED]] : tensor<2x1xf32> -> tensor<2x1xf32>
// CHECK:         %[[INVERSE:.+]] = kiln.div %{{.+}}, %[[RMS]] : tensor<f32>, tensor<2x1xf32> -> tensor<2x1xf32>
// CHECK:         %[[WIDE2:.+]] = kiln.cast %[[X]] {to = f32} : tensor<2x4xf16> -> tensor<2x4xf32>
// CHECK:         %[[NORMALIZED:.+]] = kiln.mul %[[WIDE2]], %[[INVERSE]] : tensor<2x4xf32>, tensor<2x1xf32> -> tensor<2x4xf32>
// CHECK:         %[[ROUNDED:.+]] = kiln.cast %[[NORMALIZED]] {to = f16} : tensor<2x4xf32> -> tensor<2x4xf16>
// CHECK:         kiln.mul %{{.+}}, %[[ROUNDED]] : tensor<4xf16>, tensor<2x4xf16> -> tensor<2x4xf16>
func.func @main(%x: tensor<2x4xf32>, %w: tensor<4xf32>) -> tensor<2x4xf32> {
  %two = kiln.constant dense<2.0> : tensor<f32>
  %eps = kiln.constant dense<1.0e-6> : tensor<f32>
  %one = kiln.constant dense<1.0> : tensor<f32>
  %axes = kiln.constant dense<[-1]> : tensor<1xi64>
  %0 = kiln.pow %x, %two : tensor<2x4xf32>, tensor<f32> -> tensor<2x4xf32>
  %1 = kiln.reduce_mean %0, %axes : tensor<2x4xf32>, tensor<1xi64> -> tensor<2x1xf32>
  %2 = kiln.add %1, %eps : tensor<2x1xf32>, tensor<f32> -> tensor<2x1xf32>
  %3 = kiln.sqrt %2 : tensor<2x1xf32> -> tensor<2x1xf32>
  %4 = kiln.div %one, %3 : tensor<f32>, tensor<2x1xf32> -> tensor<2x1xf32>
  %5 = kiln.mul %x, %4 : tensor<2x4xf32>, tensor<2x1xf32> -> tensor<2x4xf32>
  %6 = kiln.mul %w, %5 : tensor<4xf32>, tensor<2x4xf32> -> tensor<2x4xf32>
  return %6 : tensor<2x4xf32>
}

// -----

// A decomposed softmax: e^x feeds the sum and the division, so it is no
// prologue and stays f16; the sum reads it widened and stays f32, and the
// division computes in f32 and is rounded once.
// CHECK-LABEL: func.func @main
// CHECK:         %[[E:.+]] = kiln.exp %{{.+}} : tensor<2x4xf16> -> tensor<2x4xf16>
// CHECK:         %[[WIDE:.+]] = kiln.cast %[[E]] {to = f32} : tensor<2x4xf16> -> tensor<2x4xf32>
// CHECK:         %[[SUM:.+]] = kiln.reduce_sum %[[WIDE]], %{{.+}} : tensor<2x4xf32>, tensor<1xi64> -> tensor<2x1xf32>
// CHECK:         %[[WIDE2:.+]] = kiln.cast %[[E]] {to = f32} : tensor<2x4xf16> -> tensor<2x4xf32>
// CHECK:         %[[P:.+]] = kiln.div %[[WIDE2]], %[[SUM]] : tensor<2x4xf32>, tensor<2x1xf32> -> tensor<2x4xf32>
// CHECK:         kiln.cast %[[P]] {to = f16} : tensor<2x4xf32> -> tensor<2x4xf16>
func.func @main(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %axes = kiln.constant dense<[-1]> : tensor<1xi64>
  %0 = kiln.exp %x : tensor<2x4xf32> -> tensor<2x4xf32>
  %1 = kiln.reduce_sum %0, %axes : tensor<2x4xf32>, tensor<1xi64> -> tensor<2x1xf32>
  %2 = kiln.div %0, %1 : tensor<2x4xf32>, tensor<2x1xf32> -> tensor<2x4xf32>
  %3 = kiln.relu %2 : tensor<2x4xf32> -> tensor<2x4xf32>
  return %3 : tensor<2x4xf32>
}

// -----

// A mean read as it is (a global average pool's, by a flatten and the
// classifier) is rounded once either way: it stays f16, with its prologue.
// CHECK-LABEL: func.func @main
// CHECK:         kiln.relu %{{.+}} : tensor<1x8x4x4xf16> -> tensor<1x8x4x4xf16>
// CHECK:         kiln.reduce_mean %{{.+}} : tensor<1x8x4x4xf16>, tensor<2xi64> -> tensor<1x8x1x1xf16>
// CHECK:         kiln.flatten %{{.+}} : tensor<1x8x1x1xf16> -> tensor<1x8xf16>
// CHECK:         kiln.matmul %{{.+}} : tensor<1x8xf16>, tensor<8x3xf16> -> tensor<1x3xf16>
func.func @main(%x: tensor<1x8x4x4xf32>) -> tensor<1x3xf32> {
  %axes = kiln.constant dense<[2, 3]> : tensor<2xi64>
  %w = kiln.constant dense_resource<w> : tensor<8x3xf32>
  %0 = kiln.relu %x : tensor<1x8x4x4xf32> -> tensor<1x8x4x4xf32>
  %1 = kiln.reduce_mean %0, %axes : tensor<1x8x4x4xf32>, tensor<2xi64> -> tensor<1x8x1x1xf32>
  %2 = kiln.flatten %1 {axis = 1 : i64} : tensor<1x8x1x1xf32> -> tensor<1x8xf32>
  %3 = kiln.matmul %2, %w : tensor<1x8xf32>, tensor<8x3xf32> -> tensor<1x3xf32>
  return %3 : tensor<1x3xf32>
}

// -----

// A softmax reads its logits in f32: exp(x - max) turns an absolute error of
// a logit into a relative error of its probability, and f16 logits of size
// |x| carry |x| * 2^-11. The ops computed only for it (T5's q kT plus its
// position bias and mask) compute in f32 from widened operands; the
// probabilities are rounded to f16 once.
// CHECK-LABEL: func.func @main
// CHECK:         %[[S:.+]] = kiln.matmul %{{.+}}, %{{.+}} : tensor<2x8x4xf16>, tensor<2x4x8xf16> -> tensor<2x8x8xf16>
// CHECK:         %[[WIDE:.+]] = kiln.cast %[[S]] {to = f32} : tensor<2x8x8xf16> -> tensor<2x8x8xf32>
// CHECK:         %[[BIAS:.+]] = kiln.cast %{{.+}} {to = f32} : tensor<8x8xf16> -> tensor<8x8xf32>
// CHECK:         %[[LOGITS:.+]] = kiln.add %[[WIDE]], %[[BIAS]] : tensor<2x8x8xf32>, tensor<8x8xf32> -> tensor<2x8x8xf32>
// CHECK:         %[[P:.+]] = kiln.softmax %[[LOGITS]] : tensor<2x8x8xf32> -> tensor<2x8x8xf32>
// CHECK:         %[[HALF:.+]] = kiln.cast %[[P]] {to = f16} : tensor<2x8x8xf32> -> tensor<2x8x8xf16>
// CHECK:         kiln.matmul %[[HALF]], %{{.+}} : tensor<2x8x8xf16>, tensor<2x8x4xf16> -> tensor<2x8x4xf16>
func.func @main(%q: tensor<2x8x4xf32>, %k: tensor<2x4x8xf32>, %v: tensor<2x8x4xf32>, %bias: tensor<8x8xf32>) -> tensor<2x8x4xf32> {
  %0 = kiln.matmul %q, %k : tensor<2x8x4xf32>, tensor<2x4x8xf32> -> tensor<2x8x8xf32>
  %1 = kiln.add %0, %bias : tensor<2x8x8xf32>, tensor<8x8xf32> -> tensor<2x8x8xf32>
  %2 = kiln.softmax %1 : tensor<2x8x8xf32> -> tensor<2x8x8xf32>
  %3 = kiln.matmul %2, %v : tensor<2x8x8xf32>, tensor<2x8x4xf32> -> tensor<2x8x4xf32>
  return %3 : tensor<2x8x4xf32>
}

// -----

// An inference batch norm that no convolution absorbed (DenseNet's
// pre-activation norms) computes in f32: it reads its input widened, its
// constant parameters stay f32 (the mean 1.50485325 is 1.50488281 in f16)
// and its result is rounded to f16 once. With f16 parameters the factor
// scale / sqrt(variance + epsilon) was folded in f16, rounded at every step.
// CHECK-LABEL: func.func @main
// CHECK-DAG:     %[[MEAN:.+]] = kiln.constant dense<1.50485325> : tensor<4xf32>
// CHECK-DAG:     %[[VAR:.+]] = kiln.constant dense<0.337100804> : tensor<4xf32>
// CHECK:         %[[X:.+]] = kiln.relu %{{.+}} : tensor<2x4x3x3xf16> -> tensor<2x4x3x3xf16>
// CHECK:         %[[WIDE:.+]] = kiln.cast %[[X]] {to = f32} : tensor<2x4x3x3xf16> -> tensor<2x4x3x3xf32>
// CHECK:         %[[NORM:.+]] = kiln.batch_norm %[[WIDE]], %{{.+}}, %{{.+}}, %[[MEAN]], %[[VAR]] : tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32> -> tensor<2x4x3x3xf32>
// CHECK:         %[[HALF:.+]] = kiln.cast %[[NORM]] {to = f16} : tensor<2x4x3x3xf32> -> tensor<2x4x3x3xf16>
// CHECK:         kiln.relu %[[HALF]] : tensor<2x4x3x3xf16> -> tensor<2x4x3x3xf16>
func.func @main(%x: tensor<2x4x3x3xf32>) -> tensor<2x4x3x3xf32> {
  %scale = kiln.constant dense<1.0> : tensor<4xf32>
  %bias = kiln.constant dense<0.0> : tensor<4xf32>
  %mean = kiln.constant dense<1.50485325> : tensor<4xf32>
  %var = kiln.constant dense<0.337100804> : tensor<4xf32>
  %0 = kiln.relu %x : tensor<2x4x3x3xf32> -> tensor<2x4x3x3xf32>
  %1 = kiln.batch_norm %0, %scale, %bias, %mean, %var {epsilon = 1.0e-05 : f32} : tensor<2x4x3x3xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32> -> tensor<2x4x3x3xf32>
  %2 = kiln.relu %1 : tensor<2x4x3x3xf32> -> tensor<2x4x3x3xf32>
  return %2 : tensor<2x4x3x3xf32>
}
