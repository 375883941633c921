// RUN: kiln-opt %s --split-input-file --kiln-fuse-kernels --kiln-schedule | FileCheck %s
// RUN: kiln-opt %s --split-input-file --kiln-fuse-kernels --kiln-schedule=max-streams=1 | FileCheck %s --check-prefix=ONE

// Two independent branches (a -> m0 -> m1, b -> m2 -> m3) run on two streams;
// the second stream reads only inputs, so it first waits on the fork event.
// The join (sub) continues stream 0 and waits on the event of m3, whose
// stream then needs no join at the end.
// CHECK-LABEL: func.func @two_branches
// CHECK-SAME: kiln.fork_event = 0 : i64, kiln.num_events = 2 : i64, kiln.num_streams = 2 : i64
// CHECK-NOT: kiln.join_events
// CHECK: kiln.kernel "matmul_0" {{.*}} attributes {stream = 0 : i64}
// CHECK: kiln.kernel "matmul_1" {{.*}} attributes {stream = 0 : i64}
// CHECK: kiln.kernel "matmul_2" {{.*}} attributes {stream = 1 : i64, wait_events = array<i64: 0>}
// CHECK: kiln.kernel "matmul_3" {{.*}} attributes {record_event = 1 : i64, stream = 1 : i64}
// CHECK: kiln.kernel "sub_4" {{.*}}stream = 0 : i64, wait_events = array<i64: 1>}
// ONE-LABEL: func.func @two_branches
// ONE-SAME: kiln.num_events = 0 : i64, kiln.num_streams = 1 : i64
// ONE-NOT: wait_events
// ONE-NOT: stream = 1
func.func @two_branches(%a: tensor<8x64xf32>, %b: tensor<8x64xf32>, %w0: tensor<64x64xf32>, %w1: tensor<64x64xf32>) -> tensor<8x64xf32> {
  %0 = kiln.matmul %a, %w0 : tensor<8x64xf32>, tensor<64x64xf32> -> tensor<8x64xf32>
  %1 = kiln.matmul %0, %w1 : tensor<8x64xf32>, tensor<64x64xf32> -> tensor<8x64xf32>
  %2 = kiln.matmul %b, %w1 : tensor<8x64xf32>, tensor<64x64xf32> -> tensor<8x64xf32>
  %3 = kiln.matmul %2, %w0 : tensor<8x64xf32>, tensor<64x64xf32> -> tensor<8x64xf32>
  %4 = kiln.sub %1, %3 : tensor<8x64xf32>, tensor<8x64xf32> -> tensor<8x64xf32>
  return %4 : tensor<8x64xf32>
}

// -----

// A chain stays on one stream with no events.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: kiln.num_events = 0 : i64, kiln.num_streams = 1 : i64
// CHECK-NOT: kiln.fork_event
// CHECK: kiln.kernel "matmul_0" {{.*}} attributes {stream = 0 : i64}
// CHECK: kiln.kernel "sigmoid_1" {{.*}}stream = 0 : i64}
// CHECK: kiln.kernel "matmul_2" {{.*}} attributes {stream = 0 : i64}
// CHECK-NOT: wait_events
func.func @chain(%a: tensor<8x64xf32>, %w: tensor<64x64xf32>) -> tensor<8x64xf32> {
  %0 = kiln.matmul %a, %w : tensor<8x64xf32>, tensor<64x64xf32> -> tensor<8x64xf32>
  %1 = kiln.sigmoid %0 : tensor<8x64xf32> -> tensor<8x64xf32>
  %2 = kiln.matmul %1, %w : tensor<8x64xf32>, tensor<64x64xf32> -> tensor<8x64xf32>
  return %2 : tensor<8x64xf32>
}

// -----

// Fan-out: the second consumer of m0 cannot continue stream 0 (relu_1 took
// it), so it takes stream 1 after waiting on m0's event; two results, so
// stream 0 joins stream 1 at the end.
// CHECK-LABEL: func.func @fan_out
// CHECK-SAME: kiln.join_events = array<i64: 1>, kiln.num_events = 2 : i64, kiln.num_streams = 2 : i64
// CHECK: kiln.kernel "matmul_0" {{.*}} attributes {record_event = 0 : i64, stream = 0 : i64}
// CHECK: kiln.kernel "relu_1" {{.*}}stream = 0 : i64}
// CHECK: kiln.kernel "exp_2" {{.*}}record_event = 1 : i64, stream = 1 : i64, {{.*}}wait_events = array<i64: 0>}
func.func @fan_out(%a: tensor<8x64xf32>, %w: tensor<64x64xf32>) -> (tensor<8x64xf32>, tensor<8x64xf32>) {
  %0 = kiln.matmul %a, %w : tensor<8x64xf32>, tensor<64x64xf32> -> tensor<8x64xf32>
  %1 = kiln.relu %0 : tensor<8x64xf32> -> tensor<8x64xf32>
  %2 = kiln.exp %0 : tensor<8x64xf32> -> tensor<8x64xf32>
  return %1, %2 : tensor<8x64xf32>, tensor<8x64xf32>
}
