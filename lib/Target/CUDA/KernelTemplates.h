// Internal: the kernel templates (loop, row reduce, tiled transpose). Each
// writes the body of the kernel function into the emitter from the kernel's
// tiling attributes and returns its launch geometry.
#ifndef KILN_LIB_TARGET_CUDA_KERNELTEMPLATES_H
#define KILN_LIB_TARGET_CUDA_KERNELTEMPLATES_H

#include "kiln/Target/CUDA/ElementalEmitter.h"

namespace kiln::cuda {

struct LaunchGeometry {
  int64_t grid = 0, block = 0, dynamicSharedBytes = 0;
};

/// Reads an optional positive integer attribute with a default.
int64_t getIntAttr(KernelOp kernel, llvm::StringRef name, int64_t fallback);

/// pointwise / data_movement: a grid-stride loop over the outputs.
mlir::LogicalResult emitLoopKernel(ElementalEmitter &emitter,
                                   LaunchGeometry &launch);
/// row_reduce: one warp or one block per row around the anchor reduction.
mlir::LogicalResult emitRowReduceKernel(ElementalEmitter &emitter,
                                        LaunchGeometry &launch);
/// transpose: 32x32 shared-memory tiles (falls back to the loop template
/// when the innermost dim does not move).
mlir::LogicalResult emitTransposeKernel(ElementalEmitter &emitter,
                                        LaunchGeometry &launch);

/// attention: one block per (batch, query row) of a kiln.attention, scores
/// in shared memory, online softmax over chunks of keys.
mlir::LogicalResult emitAttentionKernel(ElementalEmitter &emitter,
                                        LaunchGeometry &launch);

} // namespace kiln::cuda

#endif // KILN_LIB_TARGET_CUDA_KERNELTEMPLATES_H
