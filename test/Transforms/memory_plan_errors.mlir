// RUN: kiln-opt %s --split-input-file --kiln-plan-memory --verify-diagnostics

// The memory plan runs on the scheduled DAG.
func.func @unscheduled(%a: tensor<4xf32>) -> tensor<4xf32> {
  %e = kiln.empty : tensor<4xf32>
  // expected-error @+1 {{kernel 'relu_0' has no stream; run kiln-schedule first}}
  %0 = kiln.kernel "relu_0" pointwise ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%x: tensor<4xf32>, %o: tensor<4xf32>):
    %r = kiln.relu %x : tensor<4xf32> -> tensor<4xf32>
    kiln.yield %r : tensor<4xf32>
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A schedule that puts a consumer on another stream without an event would
// let the planner reuse memory that is still being read: rejected.
func.func @unordered(%a: tensor<4xf32>) -> tensor<4xf32> attributes {kiln.num_streams = 2 : i64} {
  %e0 = kiln.empty : tensor<4xf32>
  %0 = kiln.kernel "relu_0" pointwise ins(%a : tensor<4xf32>) outs(%e0 : tensor<4xf32>) attributes {stream = 0 : i64} {
  ^bb0(%x: tensor<4xf32>, %o: tensor<4xf32>):
    %r = kiln.relu %x : tensor<4xf32> -> tensor<4xf32>
    kiln.yield %r : tensor<4xf32>
  } -> tensor<4xf32>
  %e1 = kiln.empty : tensor<4xf32>
  // expected-error @+1 {{kernel 'exp_1' depends on kernel 'relu_0', but the schedule does not order them (no event from stream 0 to stream 1)}}
  %1 = kiln.kernel "exp_1" pointwise ins(%0 : tensor<4xf32>) outs(%e1 : tensor<4xf32>) attributes {stream = 1 : i64} {
  ^bb0(%x: tensor<4xf32>, %o: tensor<4xf32>):
    %r = kiln.exp %x : tensor<4xf32> -> tensor<4xf32>
    kiln.yield %r : tensor<4xf32>
  } -> tensor<4xf32>
  return %1 : tensor<4xf32>
}

// -----

func.func @early_wait(%a: tensor<4xf32>) -> tensor<4xf32> {
  %e0 = kiln.empty : tensor<4xf32>
  // expected-error @+1 {{kernel 'relu_0' waits on event 3, which no earlier kernel records}}
  %0 = kiln.kernel "relu_0" pointwise ins(%a : tensor<4xf32>) outs(%e0 : tensor<4xf32>) attributes {stream = 0 : i64, wait_events = array<i64: 3>} {
  ^bb0(%x: tensor<4xf32>, %o: tensor<4xf32>):
    %r = kiln.relu %x : tensor<4xf32> -> tensor<4xf32>
    kiln.yield %r : tensor<4xf32>
  } -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
