// The pass pipelines that kiln-compile and kiln-interpret run after import.
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

/// Adds: specialise input shapes (when given), refine types and, with
/// |simplify|, kiln-simplify-graph (canonicalise + fold + refine to a fixed
/// point) and kiln-recognize-patterns (GELU, attention); then, for a precision other than fp32, kiln-convert-precision and
/// another simplification (which folds the casts of small constants).
void buildGraphPipeline(mlir::OpPassManager &pm,
                        const GraphPipelineOptions &options);

/// Adds the code-generation preparation after the graph pipeline:
/// kiln-require-static, kiln-fuse-kernels, kiln-tile-kernels.
void buildKernelPipeline(mlir::OpPassManager &pm);

} // namespace kiln

#endif // KILN_TRANSFORMS_PIPELINES_H
