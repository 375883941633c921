// The named pipelines (Pipelines.h) that kiln-compile's phases run, here
// through kiln-opt: the graph pipeline with its input shapes, fusion,
// tiling, the schedule and the memory plan.
// RUN: kiln-opt %s --kiln-graph-pipeline="input-shapes=batch=4" | FileCheck %s --check-prefix=GRAPH
// RUN: kiln-opt %s --kiln-graph-pipeline="input-shapes=batch=4" --kiln-fuse-pipeline | FileCheck %s --check-prefix=FUSED
// RUN: kiln-opt %s --kiln-graph-pipeline="input-shapes=batch=4" --kiln-fuse-pipeline --kiln-tile-pipeline --kiln-schedule-pipeline="max-streams=1" --kiln-plan-memory-pipeline | FileCheck %s --check-prefix=PLANNED
// RUN: kiln-opt %s --kiln-graph-pipeline="input-shapes=batch=4" --kiln-kernel-pipeline | FileCheck %s --check-prefix=KERNEL

// GRAPH-LABEL: func.func @main
// GRAPH-SAME: tensor<4x8xf32>
// GRAPH: kiln.exp {{.*}} -> tensor<4x8xf32>
// FUSED: kiln.kernel "exp_relu_0" pointwise
// FUSED-NOT: block_size
// PLANNED: kiln.activation_arena_bytes
// PLANNED: kiln.kernel "exp_relu_0" pointwise {{.*}} attributes {block_size = 256 : i64
// KERNEL: kiln.kernel "exp_relu_0" pointwise {{.*}} attributes {block_size = 256 : i64
func.func @main(%x: tensor<?x8xf32> {kiln.dim_names = ["batch", ""], kiln.name = "x"}) -> tensor<?x8xf32> {
  %0 = kiln.exp %x : tensor<?x8xf32> -> tensor<?x8xf32>
  %1 = kiln.relu %0 : tensor<?x8xf32> -> tensor<?x8xf32>
  return %1 : tensor<?x8xf32>
}
