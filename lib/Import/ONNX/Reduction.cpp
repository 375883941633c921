// Imports ONNX's reductions (ReduceSum, ReduceMean, ReduceMax) and Softmax,
// normalising the attribute forms of older opsets into the newest form.
#include "NodeImporter.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

using namespace mlir;

namespace kiln::onnx_import {
namespace {

/// Reductions take `axes` as an optional input from |axesInputOpset| (13 for
/// ReduceSum, 18 for the others) and as an attribute before; the attribute
/// becomes a constant operand, and an absent or empty one means all axes.
template <typename OpTy, int64_t axesInputOpset>
llvm::Error importReduce(NodeImporter &node) {
  bool axesIsInput = node.getOpset() >= axesInputOpset;
  if (llvm::Error error = node.checkInputCount(1, axesIsInput ? 2 : 1))
    return error;
  llvm::Expected<int64_t> keepDims = node.getInt("keepdims", 1);
  if (!keepDims)
    return keepDims.takeError();
  Value axes;
  int64_t noopWithEmptyAxes = 0;
  if (axesIsInput) {
    axes = node.getInput(1);
    llvm::Expected<int64_t> noop = node.getInt("noop_with_empty_axes", 0);
    if (!noop)
      return noop.takeError();
    noopWithEmptyAxes = *noop;
  } else {
    auto axesAttribute = node.getInts("axes");
    if (!axesAttribute)
      return axesAttribute.takeError();
    if (*axesAttribute && !(*axesAttribute)->empty())
      axes = node.createIntegerConstant(**axesAttribute);
  }
  OpBuilder &b = node.getBuilder();
  return node.setResult(
      node.create<OpTy>(node.getInput(0), axes, b.getBoolAttr(*keepDims != 0),
                        b.getBoolAttr(noopWithEmptyAxes != 0)));
}

/// Softmax before opset 13 flattens the input to 2-D at `axis` (default 1)
/// and normalises each row: flatten -> softmax(-1) -> reshape back. When
/// `axis` is the last dimension that is the same as softmax(-1).
llvm::Error importSoftmax(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(1, 1))
    return error;
  OpBuilder &b = node.getBuilder();
  Value input = node.getInput(0);
  if (node.getOpset() >= 13) {
    llvm::Expected<int64_t> axis = node.getInt("axis", -1);
    if (!axis)
      return axis.takeError();
    return node.setResult(
        node.create<SoftmaxOp>(input, b.getI64IntegerAttr(*axis)));
  }
  auto type = dyn_cast<RankedTensorType>(input.getType());
  if (!type)
    return node.error("Softmax before opset 13 needs an input of known rank");
  int64_t rank = type.getRank();
  llvm::Expected<int64_t> axis =
      node.getAxis("axis", 1, std::max<int64_t>(rank, 1));
  if (!axis)
    return axis.takeError();
  if (*axis == rank - 1 || rank == 0)
    return node.setResult(
        node.create<SoftmaxOp>(input, b.getI64IntegerAttr(-1)));

  llvm::Expected<Value> flat =
      node.create<FlattenOp>(input, b.getI64IntegerAttr(*axis));
  if (!flat)
    return flat.takeError();
  llvm::Expected<Value> normalized =
      node.create<SoftmaxOp>(*flat, b.getI64IntegerAttr(-1));
  if (!normalized)
    return normalized.takeError();
  Value shape;
  if (type.hasStaticShape()) {
    shape = node.createIntegerConstant(type.getShape());
  } else {
    llvm::Expected<Value> dynamicShape =
        node.create<ShapeOp>(input, b.getI64IntegerAttr(0), IntegerAttr());
    if (!dynamicShape)
      return dynamicShape.takeError();
    shape = *dynamicShape;
  }
  return node.setResult(
      node.create<ReshapeOp>(*normalized, shape, b.getBoolAttr(false)));
}

} // namespace

void populateReductionImporters(OpImporterRegistry &registry) {
  registry.add("ReduceSum", importReduce<ReduceSumOp, 13>);
  registry.add("ReduceMean", importReduce<ReduceMeanOp, 18>);
  registry.add("ReduceMax", importReduce<ReduceMaxOp, 18>);
  registry.add("ReduceMin", importReduce<ReduceMinOp, 18>);
  registry.add("ReduceProd", importReduce<ReduceProdOp, 18>);
  registry.add("ReduceLogSumExp", importReduce<ReduceLogSumExpOp, 18>);
  registry.add("Softmax", importSoftmax);
}

} // namespace kiln::onnx_import
