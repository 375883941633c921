// Views as strides: a value computed by views, transposes and slices of one
// buffer is that buffer read at `offset + sum(index[k] * strides[k])`, which
// lets a kernel template address it directly (the attention kernels read
// q/k/v out of a merged projection and write o in [b, s, h, d] order).
#ifndef KILN_DIALECT_KILN_IR_STRIDEDVIEW_H
#define KILN_DIALECT_KILN_IR_STRIDEDVIEW_H

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace kiln {

/// Element (i0, ..., in-1) of a value is element `offset + sum(ik *
/// strides[k])` of |buffer| (a contiguous row-major tensor). Dims of size 1
/// have stride 0.
struct StridedLayout {
  mlir::Value buffer;
  int64_t offset = 0;
  llvm::SmallVector<int64_t, 4> strides;
};

/// Whether |op| can be a strided view: transpose, reshape, flatten,
/// squeeze, unsqueeze, or a slice with constant starts/ends/axes/steps, on
/// static shapes.
bool isStridedViewOp(mlir::Operation *op);

/// The layout of |value| in the buffer it is read from: producers are
/// followed while |follow| accepts them (and isStridedViewOp holds); the
/// first value not so produced is the buffer. std::nullopt when a reshape
/// merges dims that are not contiguous in the buffer.
std::optional<StridedLayout>
traceStridedRead(mlir::Value value,
                 llvm::function_ref<bool(mlir::Operation *)> follow);

/// The layout in which |value| is stored when it reaches |stored| (a
/// contiguous buffer) through |chain|, its users in order (each the only user
/// of the one before): transposes and reshapes only (a slice does not cover
/// its buffer). std::nullopt otherwise.
std::optional<StridedLayout>
traceStridedWrite(mlir::Value value, llvm::ArrayRef<mlir::Operation *> chain);

/// Rows of |layout| are contiguous (innermost stride 1) and start every
/// |alignment| elements (the offset and every other stride are multiples).
bool hasAlignedRows(const StridedLayout &layout, int64_t alignment);

/// Row-major strides of |shape| (0 for dims of size 1).
llvm::SmallVector<int64_t, 4> contiguousStrides(llvm::ArrayRef<int64_t> shape);

} // namespace kiln

#endif // KILN_DIALECT_KILN_IR_STRIDEDVIEW_H
