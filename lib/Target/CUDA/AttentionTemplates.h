// Internal: what the attention templates share (AttentionEmitter.cpp, the row
// kernel and the dispatch; FlashAttentionEmitter.cpp, the tensor-core kernel;
// AttentionKeyTiles.cpp, the key tiles a constant mask lets it skip).
#ifndef KILN_LIB_TARGET_CUDA_ATTENTIONTEMPLATES_H
#define KILN_LIB_TARGET_CUDA_ATTENTIONTEMPLATES_H

#include "KernelTemplates.h"

#include "kiln/Dialect/Kiln/KernelKinds/KernelConfiguration.h"

#include <optional>
#include <string>

namespace kiln::cuda {

/// Reads attention operands at (batch b, row, col), b the linear index into
/// the output's batch dims: NumPy broadcasting from the full [batch..., rows,
/// cols] index.
struct BatchedOperands {
  BatchedOperands(ElementalEmitter &emitter, llvm::ArrayRef<int64_t> batchShape)
      : emitter(emitter), batchShape(batchShape),
        batchDims(emitter.dimsOf(ElementIndex::fromLinear("b"), batchShape)) {}

  ElementIndex indexOf(mlir::Value operand, int64_t rows, int64_t cols,
                       const std::string &row, const std::string &col) const;
  /// The operand's value at (b, row, col) in the computation type.
  mlir::FailureOr<std::string> at(mlir::Value operand, int64_t rows,
                                  int64_t cols, const std::string &row,
                                  const std::string &col);
  /// The linear element offset of the operand's matrix for batch b.
  std::string matrixOffset(mlir::Value operand) const;
  /// The same in |layout| (the operand read or the output written by
  /// strides): layout.offset plus each batch index times its stride.
  std::string stridedMatrixOffset(mlir::Value operand,
                                  const StridedLayout &layout) const;

  ElementalEmitter &emitter;
  llvm::SmallVector<int64_t> batchShape;
  llvm::SmallVector<std::string, 4> batchDims;
};

/// The flash kernel's device helpers (mma, cp.async, packing) for f16 or
/// bf16 |type|, with host-emulation versions (FlashAttentionHelpers.cpp).
std::string flashHelpers(mlir::Type type);

/// The flash kernel: a block per 64 query rows of one (batch, head), tensor
/// cores (ldmatrix fragments), online softmax in base 2 over key tiles of 64.
mlir::LogicalResult emitFlashKernel(ElementalEmitter &emitter,
                                    AttentionOp attention,
                                    LaunchGeometry &launch);

/// The key tiles each query tile of the flash kernel visits, from a mask
/// known at compile time: entry [slice * queryTiles + queryTile] of first and
/// last, slice the mask's batch slice (one when every slice agrees).
struct KeyTileBounds {
  int64_t slices = 1;
  llvm::SmallVector<int32_t> first, last;
  /// first = 0 and last = the query tile for every tile (square, causal).
  bool causal = false;
  /// Causal, with 0 on and below the diagonal and skippable entries above
  /// it: the kernel needs no mask reads, only -inf above the diagonal.
  bool zeroCausal = false;
};
/// The bounds when |mask| (a value of |kernel|'s body) is computed from
/// constants only and lets some query tile skip a key tile; see
/// AttentionKeyTiles.cpp for when a tile may be skipped.
std::optional<KeyTileBounds> findKeyTileBounds(KernelOp kernel,
                                               mlir::Value mask,
                                               int64_t outputRank, int64_t sq,
                                               int64_t sk, int64_t rowsPerTile,
                                               int64_t keysPerTile);

/// The key-tile loop's online softmax in the flash kernel, after S = Q K^T
/// (FlashAttentionSoftmax.cpp); |readMask|: the loop has read bias[j][c].
mlir::LogicalResult emitFlashSoftmax(ElementalEmitter &emitter,
                                     AttentionOp attention,
                                     const KeyTileBounds *bounds,
                                     bool readMask, int64_t keysPerTile);

} // namespace kiln::cuda

#endif // KILN_LIB_TARGET_CUDA_ATTENTIONTEMPLATES_H
