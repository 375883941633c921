// Builders of the small kiln ops that graph rewrites create again and again:
// a 1-D i64 constant (a shape, axes or index list), a transpose, a reshape,
// and a slice of a transpose taken before it.
#ifndef KILN_DIALECT_KILN_IR_OPBUILDERS_H
#define KILN_DIALECT_KILN_IR_OPBUILDERS_H

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/IR/Builders.h"

#include <optional>

namespace kiln {

/// A kiln.constant of tensor<Nxi64> holding |values|.
inline mlir::Value createI64Constant(mlir::OpBuilder &builder,
                                    mlir::Location loc,
                                    llvm::ArrayRef<int64_t> values) {
  auto type = mlir::RankedTensorType::get({int64_t(values.size())},
                                          builder.getI64Type());
  return builder.create<ConstantOp>(loc,
                                    mlir::DenseElementsAttr::get(type, values));
}

/// kiln.transpose(|value|, |perm|), its result type inferred.
inline mlir::Value createTranspose(mlir::OpBuilder &builder, mlir::Location loc,
                                   mlir::Value value,
                                   llvm::ArrayRef<int64_t> perm) {
  return builder.create<TransposeOp>(loc, value,
                                     builder.getDenseI64ArrayAttr(perm));
}

/// kiln.reshape(|value|) to |shape| (the same element count; at most one
/// dynamic dim, given to the reshape as -1), of |value|'s element type.
inline mlir::Value createReshape(mlir::OpBuilder &builder, mlir::Location loc,
                                 mlir::Value value,
                                 llvm::ArrayRef<int64_t> shape) {
  auto type = mlir::RankedTensorType::get(
      shape, mlir::cast<mlir::ShapedType>(value.getType()).getElementType());
  llvm::SmallVector<int64_t> dims(shape);
  for (int64_t &dim : dims)
    if (mlir::ShapedType::isDynamic(dim))
      dim = -1;
  return builder.create<ReshapeOp>(loc, type, value,
                                   createI64Constant(builder, loc, dims),
                                   builder.getBoolAttr(false));
}

/// The axes of x that |slice| of |transpose| = transpose(x, p) takes:
/// p[axis] for each of |slice|'s axes; std::nullopt when they are not
/// constant or one is out of range.
std::optional<llvm::SmallVector<int64_t>>
axesBeforeTranspose(SliceOp slice, TransposeOp transpose);

/// transpose(slice(x, starts, ends, |axes|, steps), p), the values of
/// |slice| of |transpose| = transpose(x, p), built at the builder's point;
/// |axes| from axesBeforeTranspose, in |slice|'s axes' index type (i32 or
/// i64, as its starts and ends). |slice| is left to the caller.
mlir::Value createSliceBeforeTranspose(mlir::OpBuilder &builder, SliceOp slice,
                                       TransposeOp transpose,
                                       llvm::ArrayRef<int64_t> axes);

} // namespace kiln

#endif // KILN_DIALECT_KILN_IR_OPBUILDERS_H
