// RUN: kiln-opt %s --split-input-file | kiln-opt --split-input-file | FileCheck %s
// Round trip of kiln.loop (KilnControlFlowOps.td).

// CHECK-LABEL: func.func @loop
// CHECK:       %[[R:.+]]:2 = kiln.loop trip_count(%{{.+}} : tensor<i64>) cond(%{{.+}} : tensor<i1>) carried(%{{.+}} : tensor<1xf32>) {
// CHECK-NEXT:  ^bb0(%{{.+}}: tensor<i64>, %[[C:.+]]: tensor<i1>, %[[Y:.+]]: tensor<1xf32>):
// CHECK:         kiln.yield %[[C]], %{{.+}}, %{{.+}} : tensor<i1>, tensor<1xf32>, tensor<1xf32>
// CHECK-NEXT:  } : tensor<1xf32>, tensor<?x1xf32>
func.func @loop(%m: tensor<i64>, %c: tensor<i1>, %y: tensor<1xf32>, %x: tensor<1xf32>) -> (tensor<1xf32>, tensor<?x1xf32>) {
  %0:2 = kiln.loop trip_count(%m : tensor<i64>) cond(%c : tensor<i1>) carried(%y : tensor<1xf32>) {
  ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %y_in: tensor<1xf32>):
    %1 = kiln.add %y_in, %x : tensor<1xf32>, tensor<1xf32> -> tensor<1xf32>
    kiln.yield %cond, %1, %1 : tensor<i1>, tensor<1xf32>, tensor<1xf32>
  } : tensor<1xf32>, tensor<?x1xf32>
  return %0#0, %0#1 : tensor<1xf32>, tensor<?x1xf32>
}

// -----

// Neither trip count nor condition: runs until the body's condition is false.
// CHECK-LABEL: func.func @while_loop
// CHECK:       kiln.loop carried(%{{.+}} : tensor<i64>) {
func.func @while_loop(%n: tensor<i64>) -> tensor<i64> {
  %0 = kiln.loop carried(%n : tensor<i64>) {
  ^bb0(%i: tensor<i64>, %cond: tensor<i1>, %v: tensor<i64>):
    %1 = kiln.less %i, %v : tensor<i64>, tensor<i64> -> tensor<i1>
    kiln.yield %1, %v : tensor<i1>, tensor<i64>
  } : tensor<i64>
  return %0 : tensor<i64>
}

// -----

// CHECK-LABEL: func.func @if
// CHECK:       %[[R:.+]] = kiln.if %{{.+}} : tensor<i1> then {
// CHECK:         kiln.yield %{{.+}} : tensor<1x4xf32>
// CHECK-NEXT:  } else {
// CHECK-NEXT:    kiln.yield %{{.+}} : tensor<1x1x4xf32>
// CHECK-NEXT:  } : tensor<*xf32>
func.func @if(%c: tensor<i1>, %x: tensor<4xf32>, %y: tensor<1x1x4xf32>) -> tensor<*xf32> {
  %axes = kiln.constant dense<0> : tensor<1xi64>
  %0 = kiln.if %c : tensor<i1> then {
    %1 = kiln.unsqueeze %x, %axes : tensor<4xf32>, tensor<1xi64> -> tensor<1x4xf32>
    kiln.yield %1 : tensor<1x4xf32>
  } else {
    kiln.yield %y : tensor<1x1x4xf32>
  } : tensor<*xf32>
  return %0 : tensor<*xf32>
}
