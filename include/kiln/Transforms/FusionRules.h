// The fusion cost model: how each kiln op takes part in kernel formation.
// docs/fusion.md explains the rules; kiln-fuse-kernels applies them.
#ifndef KILN_TRANSFORMS_FUSIONRULES_H
#define KILN_TRANSFORMS_FUSIONRULES_H

#include "mlir/IR/Operation.h"
#include "llvm/ADT/StringRef.h"

namespace kiln {

enum class FusionClass {
  Constant,     // kiln.constant: cloned into kernels when small, else an input.
  Pointwise,    // Elementwise ops (broadcasting included): fuse freely.
  View,         // Reshape-like: no data movement; fused as re-indexing, or an
                // alias outside kernels.
  DataMovement, // Transpose, concat, slice, gather, expand: elemental gathers.
  Reduction,    // Reduce*, softmax: a row reduction anchors a row_reduce
                // kernel; other axes become a serial loop in their own kernel.
  Library,      // MatMul, Gemm: cuBLASLt calls, never fused (yet).
  Unsupported,  // Anything code generation cannot handle.
};

FusionClass classifyForFusion(mlir::Operation *op);

/// True for a reduction over the trailing axes of its input (reduce ops), or
/// a softmax over the last axis: the anchor of a row_reduce kernel.
bool isRowReduction(mlir::Operation *op);

/// Constants with at most this many elements (or splats) are cloned into the
/// kernels that use them instead of becoming kernel inputs.
constexpr int64_t kMaxClonedConstantElements = 16;

} // namespace kiln

#endif // KILN_TRANSFORMS_FUSIONRULES_H
