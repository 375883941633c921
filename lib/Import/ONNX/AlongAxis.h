// Import of the ops that normalise along one axis (Softmax, LogSoftmax,
// Hardmax), whose opsets before 13 flatten the input to 2-D first.
#ifndef KILN_LIB_IMPORT_ONNX_ALONGAXIS_H
#define KILN_LIB_IMPORT_ONNX_ALONGAXIS_H

#include "NodeImporter.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

namespace kiln::onnx_import {

/// Softmax, LogSoftmax and Hardmax: opset 13 normalises along `axis` (default -1);
/// before, the input is flattened to 2-D at `axis` (default 1), normalised
/// along its rows and reshaped back (the same as axis -1 when `axis` is the
/// last dim).
template <typename OpTy> llvm::Error importAlongAxis(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(1, 1))
    return error;
  mlir::OpBuilder &b = node.getBuilder();
  mlir::Value input = node.getInput(0);
  if (node.getOpset() >= 13) {
    llvm::Expected<int64_t> axis = node.getInt("axis", -1);
    if (!axis)
      return axis.takeError();
    return node.setResult(node.create<OpTy>(input, b.getI64IntegerAttr(*axis)));
  }
  auto type = mlir::dyn_cast<mlir::RankedTensorType>(input.getType());
  if (!type)
    return node.error("opsets before 13 need an input of known rank");
  int64_t rank = type.getRank();
  llvm::Expected<int64_t> axis =
      node.getAxis("axis", 1, std::max<int64_t>(rank, 1));
  if (!axis)
    return axis.takeError();
  if (*axis == rank - 1 || rank == 0)
    return node.setResult(node.create<OpTy>(input, b.getI64IntegerAttr(-1)));
  llvm::Expected<mlir::Value> flat =
      node.create<FlattenOp>(input, b.getI64IntegerAttr(*axis));
  if (!flat)
    return flat.takeError();
  llvm::Expected<mlir::Value> normalized =
      node.create<OpTy>(*flat, b.getI64IntegerAttr(-1));
  if (!normalized)
    return normalized.takeError();
  mlir::Value shape;
  if (type.hasStaticShape()) {
    shape = node.createIntegerConstant(type.getShape());
  } else {
    llvm::Expected<mlir::Value> dynamicShape =
        node.create<ShapeOp>(input, b.getI64IntegerAttr(0), mlir::IntegerAttr());
    if (!dynamicShape)
      return dynamicShape.takeError();
    shape = *dynamicShape;
  }
  return node.setResult(
      node.create<ReshapeOp>(*normalized, shape, b.getBoolAttr(false)));
}

} // namespace kiln::onnx_import

#endif // KILN_LIB_IMPORT_ONNX_ALONGAXIS_H
