// Internal: the kernel templates (loop, row reduce, tiled transpose). Each
// writes the body of the kernel function into the emitter from the kernel's
// tiling attributes and returns its launch geometry.
#ifndef KILN_LIB_TARGET_CUDA_KERNELTEMPLATES_H
#define KILN_LIB_TARGET_CUDA_KERNELTEMPLATES_H

#include "kiln/Dialect/Kiln/IR/DimExpr.h"
#include "kiln/Target/CUDA/ElementalEmitter.h"

namespace kiln::cuda {

/// |value| as the decimal text the templates splice into CUDA source.
inline std::string str(int64_t value) { return std::to_string(value); }

struct LaunchGeometry {
  int64_t grid = 0, block = 0, dynamicSharedBytes = 0;
};

/// A kernel with run-time extents (issue 18): its element count as
/// kiln-tile-kernels recorded it (kElementCountAttrName) and the ranged dims
/// it takes as `long long kiln_dim<i>` parameters after its buffers
/// (getKernelDimParameters: every ranged dim, in name order).
struct RunTimeCount {
  DimExpr count;
  std::vector<std::string> dims;
  /// The count as CUDA text over the parameters.
  std::string code() const;
};
/// The run-time count of |kernel|; std::nullopt for a static kernel; failure
/// (with a located error) for dynamic types without a readable count.
mlir::FailureOr<std::optional<RunTimeCount>> getRunTimeCount(KernelOp kernel);
/// The parameter that carries run-time dim |i|.
std::string runTimeDimParameter(size_t i);

/// `kiln_vec<T, width>`: |width| elements of |elementType| in storage, read
/// or written as one aligned access (at most kVectorBytes).
std::string vectorTypeName(mlir::Type elementType, int64_t width);
/// Bytes one element of |elementType| takes in memory (a bool: 1).
int64_t storageBytes(mlir::Type elementType);
/// Whether |width| elements of |elementType| are one access of at most
/// kVectorBytes (kernel pointers are proven 16-byte aligned and no more).
bool fitsVector(mlir::Type elementType, int64_t width);

/// Whether |concat| is read by vectors of |width|: along the innermost dim,
/// of kernel inputs (innermostConcatOfInputs) whose innermost dims are whole
/// vectors, so that each vector of the result lies in one piece, and
/// |width| of its elements at most kVectorBytes (a template whose width
/// follows other tensors, such as the column reduction's, may have wider
/// concat elements: f32 pieces before an f16 mean).
bool isVectorConcat(KernelOp kernel, ConcatOp concat, int64_t width);
/// Loads the vector at |unit| (an index in vectors of its result) of vector
/// concat |concat| (isVectorConcat) into a new variable |name|: the vector
/// at (pixel, vector of channels) lies in the piece whose channels hold it,
/// at (pixel, vector - the piece's first vector); one branch per piece.
void emitConcatVector(ElementalEmitter &emitter, ConcatOp concat, int64_t width,
                      const std::string &unit, const std::string &name);

/// The grid of a template with one unit of work per thread and grid-stride
/// step: the recorded grid_size, at least 1 and at most the blocks |units|
/// need at |block| threads.
int64_t unitGrid(KernelOp kernel, int64_t units, int64_t block);

/// pointwise / data_movement: a grid-stride loop over the outputs.
mlir::LogicalResult emitLoopKernel(ElementalEmitter &emitter,
                                   LaunchGeometry &launch);
/// The templates of the channels-last window variant (channels_last_pool)
/// of a pointwise kernel, which emitLoopKernel calls by the kernel's window
/// op once the variant's precondition and the recorded vector_width (and
/// block_size of a column reduction) are checked. The pool: one output
/// pixel x `vector_width` channels per thread, loaded and stored as vectors
/// (PoolEmitter.cpp).
mlir::LogicalResult emitChannelsLastPoolKernel(ElementalEmitter &emitter,
                                               LaunchGeometry &launch);
/// The depthwise conv of the channels-last window template: one output pixel
/// x `vector_width` channels per thread, input and weight ([R, S, 1, C]) read
/// as vectors, the epilogue lane by lane (DepthwiseConvEmitter.cpp).
mlir::LogicalResult emitDepthwiseConvKernel(ElementalEmitter &emitter,
                                            LaunchGeometry &launch);
/// The column reduction of the channels-last window template: a block per
/// (outer, row of vectors of channels), threads along the reduced length,
/// partials combined in shared memory (ColumnReduceEmitter.cpp).
mlir::LogicalResult emitColumnReductionKernel(ElementalEmitter &emitter,
                                              LaunchGeometry &launch);
/// row_reduce: one warp or one block per row around the anchor reduction.
mlir::LogicalResult emitRowReduceKernel(ElementalEmitter &emitter,
                                        LaunchGeometry &launch);
/// The rows of a row_reduce kernel and how they are spread over threads.
/// With |runTimeRows| (a run-time extent among the row dims), |rows| is the
/// rows per unit of that extent and the kernel computes the row count
/// `kiln_rows` from its dim parameters first (declareRunTimeRows).
struct RowGeometry {
  int64_t rows = 1, length = 1;
  bool warp = true; // One warp per row; else one block per row.
  int64_t block = 0, rowsPerBlock = 1;
  bool runTimeRows = false;
  /// warp: the threads of a row (warpRowLanes), 32 / lanes rows a warp.
  int64_t lanes = 32;
  /// "R rows of L elements; one warp per row, 4 rows per block" (or "one
  /// block", "8 lanes of a warp"), for the kernel's comment.
  std::string description() const;
  /// Opens the loop over rows (`row`): warp, a group of lanes per row with
  /// `lane` its thread's id in the group; block, a block per row with
  /// `kiln_partials` (of |accType|) for kiln_block_allreduce.
  void openRowLoop(ElementalEmitter &emitter, const std::string &accType) const;
  /// |value| combined over a row's threads by the device functor |functor|
  /// (`kiln_sum_op()`): a warp's lanes by shuffles, a block's through
  /// `kiln_partials`; every thread of the row gets the result.
  std::string allReduce(const std::string &value,
                        llvm::StringRef functor) const;
  /// The row count as CUDA text: a number, or `kiln_rows`.
  std::string rowCount() const {
    return runTimeRows ? "kiln_rows" : std::to_string(rows);
  }
  /// Whether |shape| holds |perRow| elements per row of these rows.
  bool holdsRows(llvm::ArrayRef<int64_t> shape, int64_t perRow) const;
};
/// Emits `kiln_rows` from the kernel's run-time element count (|perRow|
/// output elements per row) when |geometry| has run-time rows.
mlir::LogicalResult declareRunTimeRows(ElementalEmitter &emitter,
                                       const RowGeometry &geometry,
                                       int64_t perRow);
/// row_reduce with a layer_norm anchor: each row read once (16-byte vectors
/// of `vector_width`) into registers, mean and variance in the computation
/// type by two passes over them, then the affine map and the epilogue.
mlir::LogicalResult emitLayerNormRows(ElementalEmitter &emitter,
                                      LayerNormOp layerNorm,
                                      const RowGeometry &geometry,
                                      LaunchGeometry &launch);
/// row_reduce with a softmax or log_softmax anchor over the last axis: each
/// row read once (vectors of `vector_width`) into registers, max and sum of
/// exponentials in the computation type, vectorised writes.
mlir::LogicalResult emitSoftmaxRows(ElementalEmitter &emitter,
                                    mlir::Operation *softmax,
                                    const RowGeometry &geometry,
                                    LaunchGeometry &launch);
/// transpose: 32x32 shared-memory tiles, or (variant short_rows) a row per
/// thread staged in shared memory.
mlir::LogicalResult emitTransposeKernel(ElementalEmitter &emitter,
                                        LaunchGeometry &launch);

/// attention: one block per (batch, query row) of a kiln.attention, scores
/// in shared memory, online softmax over chunks of keys; or (variant flash)
/// the tensor-core kernel.
mlir::LogicalResult emitAttentionKernel(ElementalEmitter &emitter,
                                        LaunchGeometry &launch);

} // namespace kiln::cuda

#endif // KILN_LIB_TARGET_CUDA_KERNELTEMPLATES_H
