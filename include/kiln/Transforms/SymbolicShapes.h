// Symbolic shape analysis: each dynamic extent of a function's values as an
// expression of the named input dims (DimExpr), beside the tensor types.
#ifndef KILN_TRANSFORMS_SYMBOLICSHAPES_H
#define KILN_TRANSFORMS_SYMBOLICSHAPES_H

#include "kiln/Dialect/Kiln/IR/DimExpr.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace kiln {

/// One entry per dim (or per element): the extent as an expression, a static
/// size as a constant, std::nullopt where it is not known as an expression.
using DimExprs = llvm::SmallVector<std::optional<DimExpr>, 4>;

/// Propagates the named dims of the function's arguments (`kiln.dim_names`)
/// through its ops in program order, the way type inference propagates
/// sizes: broadcasting, contractions, convolution and pooling batch dims,
/// reductions, views (Reshape with 0 and -1, Flatten, Squeeze, Unsqueeze),
/// Transpose, Concat, Slice, Gather, Expand, and the shape values that
/// Shape → Gather → Concat subgraphs compute for Reshape and Slice. A static
/// dim is always its type's size; an extent no rule derives is unknown.
class SymbolicShapes {
public:
  explicit SymbolicShapes(mlir::func::FuncOp function);

  /// The extents of |value|'s dims (its type's rank; empty when unranked).
  DimExprs getDims(mlir::Value value) const;

  /// The elements of a 0-D or 1-D integer |value| (a shape, an index) where
  /// known, or std::nullopt when it is not such a value.
  std::optional<DimExprs> getElements(mlir::Value value) const;

private:
  void visit(mlir::Operation *op);
  std::optional<DimExprs> inferDims(mlir::Operation *op) const;
  std::optional<DimExprs> inferElements(mlir::Operation *op) const;

  llvm::DenseMap<mlir::Value, DimExprs> dims;
  llvm::DenseMap<mlir::Value, DimExprs> elements;
};

} // namespace kiln

#endif // KILN_TRANSFORMS_SYMBOLICSHAPES_H
