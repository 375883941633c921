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

/// One extent of an attention operand: its size (ShapedType::kDynamic at
/// run time) and its CUDA text (the size, or its expression over the dim
/// parameters, issue 18).
struct Extent {
  Extent(int64_t size) : size(size), text(std::to_string(size)) {}
  Extent(const Extents &extents, size_t dim)
      : size(extents[dim]), text(extents.texts[dim]) {}
  bool isStatic() const { return !mlir::ShapedType::isDynamic(size); }
  /// |text| + |offset| ("(t - 1)"), or the sum's value when static.
  std::string plus(int64_t offset) const;
  /// |text| times |factor|, or the product's value when static.
  std::string times(int64_t factor) const;
  /// ceil(|text| / |divisor|), or its value when static.
  std::string ceilDiv(int64_t divisor) const;

  int64_t size;
  std::string text;
};

/// The CUDA text of a StridedLayout's offset or stride: its value when
/// constant, else its expression over the kernel's dim parameters
/// (`(kiln_dim1 * 768LL)`).
std::string layoutText(const ElementalEmitter &emitter, const DimExpr &term);

/// The product of |extents|' texts (`(kiln_dim0) * 12`), or its value
/// when every one is static.
Extent productOf(const Extents &extents);

/// Reads attention operands at (batch b, row, col), b the linear index into
/// the output's batch dims: NumPy broadcasting from the full [batch..., rows,
/// cols] index.
struct BatchedOperands {
  BatchedOperands(ElementalEmitter &emitter, const Extents &batch)
      : emitter(emitter), batch(batch),
        batchDims(emitter.dimsOf(ElementIndex::fromLinear("b"), batch)) {}

  ElementIndex indexOf(mlir::Value operand, const Extent &rows,
                       const Extent &cols, const std::string &row,
                       const std::string &col) const;
  /// The operand's value at (b, row, col) in the computation type.
  mlir::FailureOr<std::string> at(mlir::Value operand, const Extent &rows,
                                  const Extent &cols, const std::string &row,
                                  const std::string &col);
  /// The linear element offset of the operand's matrix for batch b.
  std::string matrixOffset(mlir::Value operand) const;
  /// The same in |layout| (the operand read or the output written by
  /// strides): layout.offset plus each batch index times its stride.
  std::string stridedMatrixOffset(mlir::Value operand,
                                  const StridedLayout &layout) const;

  ElementalEmitter &emitter;
  Extents batch;
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

/// What converts a difference of the flash kernel's scores to base 2: ` *
/// log2(e)` when a mask read at run time keeps them in natural units
/// (|readMask|), else nothing (they are in base 2 already).
std::string flashScoreToBase2(AttentionOp attention, bool readMask);

/// The key-tile loop's online softmax in the flash kernel, after S = Q K^T
/// (FlashAttentionSoftmax.cpp); |readMask|: the loop has read bias[j][c].
mlir::LogicalResult emitFlashSoftmax(ElementalEmitter &emitter,
                                     AttentionOp attention,
                                     const KeyTileBounds *bounds,
                                     bool readMask, int64_t keysPerTile);

} // namespace kiln::cuda

#endif // KILN_LIB_TARGET_CUDA_ATTENTIONTEMPLATES_H
