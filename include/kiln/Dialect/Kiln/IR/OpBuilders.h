// Builders of the small kiln ops that graph rewrites create again and again:
// a 1-D i64 constant (a shape, axes or index list), a transpose and a
// reshape to a static shape.
#ifndef KILN_DIALECT_KILN_IR_OPBUILDERS_H
#define KILN_DIALECT_KILN_IR_OPBUILDERS_H

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/IR/Builders.h"

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

/// kiln.reshape(|value|) to the static |shape|, of |value|'s element type.
inline mlir::Value createReshape(mlir::OpBuilder &builder, mlir::Location loc,
                                 mlir::Value value,
                                 llvm::ArrayRef<int64_t> shape) {
  auto type = mlir::RankedTensorType::get(
      shape, mlir::cast<mlir::ShapedType>(value.getType()).getElementType());
  return builder.create<ReshapeOp>(loc, type, value,
                                   createI64Constant(builder, loc, shape),
                                   builder.getBoolAttr(false));
}

} // namespace kiln

#endif // KILN_DIALECT_KILN_IR_OPBUILDERS_H
