// Builders of the small kiln ops that graph rewrites create again and again:
// a 1-D i64 constant (a shape, axes or index list) and a transpose.
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

} // namespace kiln

#endif // KILN_DIALECT_KILN_IR_OPBUILDERS_H
