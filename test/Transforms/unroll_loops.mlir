// RUN: kiln-opt %s --split-input-file --kiln-unroll-loops | FileCheck %s

// A constant trip count: one body copy per iteration with the iteration
// number a constant; the scan output is a concat of the iterations' values.
// CHECK-LABEL: func.func @constant_trip_count
// CHECK-NOT:     kiln.loop
// CHECK:         %[[I0:.+]] = kiln.constant dense<0> : tensor<i64>
// CHECK:         %[[Y0:.+]] = kiln.add %arg0, %[[I0]]
// CHECK:         %[[I1:.+]] = kiln.constant dense<1> : tensor<i64>
// CHECK:         %[[Y1:.+]] = kiln.add %[[Y0]], %[[I1]]
// CHECK:         %[[S0:.+]] = kiln.unsqueeze %[[Y0]]
// CHECK:         %[[S1:.+]] = kiln.unsqueeze %[[Y1]]
// CHECK:         %[[S:.+]] = kiln.concat %[[S0]], %[[S1]] {axis = 0 : i64}
// CHECK:         return %[[Y1]], %[[S]] : tensor<i64>, tensor<2xi64>
func.func @constant_trip_count(%y: tensor<i64>) -> (tensor<i64>, tensor<?xi64>) {
  %m = kiln.constant dense<2> : tensor<i64>
  %0:2 = kiln.loop trip_count(%m : tensor<i64>) carried(%y : tensor<i64>) {
  ^bb0(%i: tensor<i64>, %c: tensor<i1>, %v: tensor<i64>):
    %1 = kiln.add %v, %i : tensor<i64>, tensor<i64> -> tensor<i64>
    kiln.yield %c, %1, %1 : tensor<i1>, tensor<i64>, tensor<i64>
  } : tensor<i64>, tensor<?xi64>
  return %0#0, %0#1 : tensor<i64>, tensor<?xi64>
}

// -----

// The body's condition (i < 1) folds in each copy: the loop stops after two
// iterations although the trip count is 5.
// CHECK-LABEL: func.func @early_exit
// CHECK-NOT:     kiln.loop
// CHECK-COUNT-2: kiln.mul
// CHECK-NOT:     kiln.mul
func.func @early_exit(%y: tensor<f32>) -> tensor<f32> {
  %m = kiln.constant dense<5> : tensor<i64>
  %one = kiln.constant dense<1> : tensor<i64>
  %0 = kiln.loop trip_count(%m : tensor<i64>) carried(%y : tensor<f32>) {
  ^bb0(%i: tensor<i64>, %c: tensor<i1>, %v: tensor<f32>):
    %1 = kiln.mul %v, %v : tensor<f32>, tensor<f32> -> tensor<f32>
    %2 = kiln.less %i, %one : tensor<i64>, tensor<i64> -> tensor<i1>
    kiln.yield %2, %1 : tensor<i1>, tensor<f32>
  } : tensor<f32>
  return %0 : tensor<f32>
}

// -----

// A false initial condition runs nothing: the scan output is empty.
// CHECK-LABEL: func.func @no_iteration
// CHECK:         %[[E:.+]] = kiln.constant dense<> : tensor<0x2xf32>
// CHECK:         return %arg0, %[[E]]
func.func @no_iteration(%y: tensor<2xf32>) -> (tensor<2xf32>, tensor<?x2xf32>) {
  %m = kiln.constant dense<3> : tensor<i64>
  %c = kiln.constant dense<false> : tensor<i1>
  %0:2 = kiln.loop trip_count(%m : tensor<i64>) cond(%c : tensor<i1>) carried(%y : tensor<2xf32>) {
  ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %v: tensor<2xf32>):
    kiln.yield %cond, %v, %v : tensor<i1>, tensor<2xf32>, tensor<2xf32>
  } : tensor<2xf32>, tensor<?x2xf32>
  return %0#0, %0#1 : tensor<2xf32>, tensor<?x2xf32>
}

// -----

// A trip count that is not a constant, or a condition that depends on data,
// leaves the loop for the evaluator (and kiln-require-static).
// CHECK-LABEL: func.func @not_constant
// CHECK:         kiln.loop trip_count
// CHECK-NOT:     kiln.mul
// CHECK:         kiln.loop trip_count
// CHECK-NEXT:    ^bb0
// CHECK-NEXT:    kiln.mul
// CHECK-NOT:     kiln.mul
func.func @not_constant(%m: tensor<i64>, %y: tensor<f32>) -> (tensor<f32>, tensor<f32>) {
  %0 = kiln.loop trip_count(%m : tensor<i64>) carried(%y : tensor<f32>) {
  ^bb0(%i: tensor<i64>, %c: tensor<i1>, %v: tensor<f32>):
    kiln.yield %c, %v : tensor<i1>, tensor<f32>
  } : tensor<f32>
  %three = kiln.constant dense<3> : tensor<i64>
  %1 = kiln.loop trip_count(%three : tensor<i64>) carried(%y : tensor<f32>) {
  ^bb0(%i: tensor<i64>, %c: tensor<i1>, %v: tensor<f32>):
    %2 = kiln.mul %v, %v : tensor<f32>, tensor<f32> -> tensor<f32>
    %3 = kiln.less %2, %y : tensor<f32>, tensor<f32> -> tensor<i1>
    kiln.yield %3, %2 : tensor<i1>, tensor<f32>
  } : tensor<f32>
  return %0, %1 : tensor<f32>, tensor<f32>
}
