// Internal: the machinery shared by the row kernels that read each row once
// into registers (layer_norm, softmax, log_softmax): the loop over rows (one
// warp or one block each), the loop over a thread's vectors of the row with
// vector loads (up to 16 bytes) of the inputs read along the row, the values
// held in registers (or recomputed when the row is too long), the
// cross-thread reductions and the vectorised write of the epilogue.
#ifndef KILN_LIB_TARGET_CUDA_VECTORROWKERNEL_H
#define KILN_LIB_TARGET_CUDA_VECTORROWKERNEL_H

#include "KernelTemplates.h"

namespace kiln::cuda {

/// The per-lane indices of the vector a thread works on in one step.
struct VectorLanes {
  std::string vector;                      // The vector's index within the row.
  llvm::SmallVector<std::string> linear;   // Linear index of each lane.
  llvm::SmallVector<std::string> column;   // Linear index within the row.
  llvm::SmallVector<ElementIndex> indices; // Dims and linear, per lane.
};

/// Emits a row kernel around an anchor whose operand |rowInput| is split
/// into rows at |axis| (the dims from |axis| on form a row). Each thread
/// owns the vectors `lane + k * threads` of its row, `width` elements each.
class VectorRowKernel {
public:
  /// The most row values one thread keeps in registers.
  static constexpr int64_t kMaxHeldValues = 64;

  /// |hold| false: the row is read once (a reduction), nothing held.
  VectorRowKernel(ElementalEmitter &emitter, mlir::Value rowInput,
                  const RowGeometry &geometry, int64_t axis, int64_t width,
                  bool hold = true);

  /// Checks the kernel's `vector_width` (a power of two <= 16 dividing the
  /// row length) and that every output has one element per row element;
  /// located errors name |anchor| (e.g. "the layer_norm").
  static mlir::FailureOr<int64_t> checkVectorWidth(ElementalEmitter &emitter,
                                                   const RowGeometry &geometry,
                                                   llvm::StringRef anchor);

  /// Whether the row's values stay in registers (`xs`) between passes.
  bool isHeld() const { return held; }
  int64_t getWidth() const { return width; }
  const std::string &getComputeType() const { return accType; }
  mlir::Type getElementType() const { return type; }

  /// Emits the description comment and opens the loop over rows (`row`),
  /// with `kiln_partials` for block reductions, the row's kept dims and the
  /// held values `xs`. closeRowLoop() ends it and sets |launch|.
  void openRowLoop();
  void closeRowLoop(LaunchGeometry &launch);

  /// |value| combined over the row's threads with the device functor
  /// |functor| (`kiln_sum_op()`); every thread gets the result.
  std::string allReduce(const std::string &value,
                        llvm::StringRef functor) const;

  /// Opens the loop over the thread's vectors of the row, calls |body| with
  /// the lanes of each and closes it. Inputs read at a lane's index (or, for
  /// inputs of one row's size, at its column) are loaded as one vector per
  /// input and step. |declareLanes| false: the body only reads held values
  /// and needs no lane indices.
  mlir::LogicalResult forEachVector(
      llvm::function_ref<mlir::LogicalResult(const VectorLanes &)> body,
      bool declareLanes = true);

  /// forEachVector calling |body| with the anchor operand's value at each
  /// lane j of the vector (rowValue(lanes, j, |compute|)) and j.
  mlir::LogicalResult forEachRowValue(
      bool compute,
      llvm::function_ref<void(const std::string &x, int64_t j)> body,
      bool declareLanes = true);

  /// The anchor operand's value at lane |j|: the held slot, or computed
  /// from the kernel inputs when |compute| or when the row is not held.
  mlir::FailureOr<std::string> rowValue(const VectorLanes &lanes, int64_t j,
                                        bool compute);
  /// The register of lane |j| of the current vector.
  std::string heldSlot(int64_t j) const;

  /// Emits every output at the lanes (vector stores when `width` > 1), with
  /// |anchorResult| at lane j given by |anchorValue|(j), computed once.
  mlir::LogicalResult writeOutputs(
      const VectorLanes &lanes, mlir::Value anchorResult,
      llvm::function_ref<mlir::FailureOr<std::string>(int64_t)> anchorValue);

  /// Emits every output at the lanes (vector stores when `width` > 1), with
  /// whatever value override the caller has set: an output of the row
  /// input's shape at the lanes' indices, another at their linear indices.
  mlir::LogicalResult storeOutputs(const VectorLanes &lanes);

private:
  /// A lane of a vector load: the vector's index in its input.
  /// Lane |lane| of the vector at |vectorIndex| (in vectors of the
  /// kernel's width).
  struct VectorRead {
    int64_t lane;
    std::string vectorIndex;
  };
  /// How |input| read at |index| is a lane of a vector of this step, if it
  /// is: read at the lane's row index or column, or along the row with the
  /// row's own dims (see the definition).
  std::optional<VectorRead> findVectorRead(mlir::Value input,
                                           const ElementIndex &index,
                                           const VectorLanes &lanes) const;

  ElementalEmitter &emitter;
  KernelOp kernel;
  mlir::Value rowInput;
  RowGeometry geometry;
  int64_t axis, width;
  llvm::ArrayRef<int64_t> shape;
  mlir::Type type;
  std::string accType;
  int64_t threads = 32, vectors = 0, perThread = 0;
  bool held = true;
  llvm::SmallVector<std::string> rowDims; // The kept dims of the current row.
};

} // namespace kiln::cuda

#endif // KILN_LIB_TARGET_CUDA_VECTORROWKERNEL_H
