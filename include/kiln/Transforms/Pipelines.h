// The pass pipelines of kiln's phases, each built by one function that
// kiln-compile (its phase table), kiln-interpret and kiln-translate call and
// that registerKilnPipelines registers by name for kiln-opt.
#ifndef KILN_TRANSFORMS_PIPELINES_H
#define KILN_TRANSFORMS_PIPELINES_H

#include "mlir/Pass/PassManager.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln {

struct GraphPipelineOptions {
  /// --input-shape entries: "name=8x128" (graph input) or "seq=128" (dim name).
  std::vector<std::string> inputShapes;
  /// Fold constants and simplify (false: only specialise and refine types).
  bool simplify = true;
  /// Largest constant-folded result in bytes.
  int64_t maxFoldBytes = 64 * 1024;
  /// kiln-convert-precision's precision: fp32 (no pass), tf32, fp16, bf16.
  std::string precision = "fp32";
};

/// kiln-graph-pipeline. Adds: specialise input shapes (when given), refine
/// types and, with |simplify|, kiln-simplify-graph (canonicalise + fold +
/// refine to a fixed point), kiln-recognize-patterns (GELU, attention),
/// kiln-merge-projections and kiln-fold-batch-norm; then, for a precision
/// other than fp32, kiln-convert-precision; with |simplify|,
/// kiln-assign-layout and another simplification (which folds the casts of
/// small constants).
void buildGraphPipeline(mlir::OpPassManager &pm,
                        const GraphPipelineOptions &options);

/// kiln-fuse-pipeline: kiln-outline-init, kiln-pack-depthwise-weights, then
/// per function kiln-require-static and kiln-fuse-kernels.
void buildFusePipeline(mlir::OpPassManager &pm);

/// kiln-tile-pipeline: kiln-tile-kernels per function.
void buildTilePipeline(mlir::OpPassManager &pm, bool buckets = true);

/// kiln-schedule-pipeline: kiln-schedule per function, with at most
/// |maxStreams| streams.
void buildSchedulePipeline(mlir::OpPassManager &pm, int64_t maxStreams);

/// kiln-plan-memory-pipeline: kiln-plan-memory (after the schedule).
void buildPlanMemoryPipeline(mlir::OpPassManager &pm);

/// kiln-kernel-pipeline: the code-generation preparation after the graph
/// pipeline, without the init program: kiln-pack-depthwise-weights, then
/// kiln-require-static, kiln-fuse-kernels, kiln-tile-kernels per function.
void buildKernelPipeline(mlir::OpPassManager &pm);

/// Registers the pipelines above by name (with the graph pipeline's and the
/// schedule's options), e.g. `kiln-opt
/// --kiln-graph-pipeline="input-shapes=batch=4 precision=fp16"`.
void registerKilnPipelines();

} // namespace kiln

#endif // KILN_TRANSFORMS_PIPELINES_H
