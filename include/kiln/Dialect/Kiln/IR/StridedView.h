// Views as strides: a value computed by views, transposes and slices of one
// buffer is that buffer read at `offset + sum(index[k] * strides[k])`, which
// lets a kernel template address it directly (the attention kernels read
// q/k/v out of a merged projection and write o in [b, s, h, d] order). With
// run-time extents (issue 18) the offset and strides are expressions of the
// ranged dims (`seq*768`), from the extents kiln-record-dim-exprs records.
#ifndef KILN_DIALECT_KILN_IR_STRIDEDVIEW_H
#define KILN_DIALECT_KILN_IR_STRIDEDVIEW_H

#include "kiln/Dialect/Kiln/IR/DimExpr.h"

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace kiln {

/// Element (i0, ..., in-1) of a value is element `offset + sum(ik *
/// strides[k])` of |buffer| (a contiguous row-major tensor). Dims of size 1
/// have stride 0. Static shapes give constant expressions; a run-time
/// extent makes the strides of the dims before it (and an offset past it)
/// expressions of the ranged dims.
struct StridedLayout {
  mlir::Value buffer;
  DimExpr offset;
  llvm::SmallVector<DimExpr, 4> strides;
};

/// |value|'s extents as expressions: its static sizes, and for each
/// run-time extent the expression recorded for it (getRecordedExtents; for
/// an argument of a kiln.kernel body, the kernel operand's). std::nullopt
/// when one is unknown, the rank is unknown or the value has no elements.
std::optional<llvm::SmallVector<DimExpr, 4>> stridedExtentsOf(mlir::Value value);

/// Whether |op| can be a strided view: transpose, reshape, flatten,
/// squeeze, unsqueeze, or a slice with constant starts/ends/axes/steps along
/// static dims, on shapes whose extents are known (stridedExtentsOf).
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
/// |alignment| elements (the offset and every other stride are multiples,
/// for an expression every coefficient).
bool hasAlignedRows(const StridedLayout &layout, int64_t alignment);

/// Row-major strides of |shape| (0 for dims of size 1); std::nullopt when a
/// product overflows.
std::optional<llvm::SmallVector<DimExpr, 4>>
contiguousStrides(llvm::ArrayRef<DimExpr> shape);

} // namespace kiln

#endif // KILN_DIALECT_KILN_IR_STRIDEDVIEW_H
