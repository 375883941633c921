// Imports ONNX's reductions (ReduceSum, ReduceMean, ReduceMax) and Softmax,
// normalising the attribute forms of older opsets into the newest form.
#include "AlongAxis.h"
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


} // namespace

void populateReductionImporters(OpImporterRegistry &registry) {
  registry.add("ReduceSum", importReduce<ReduceSumOp, 13>);
  registry.add("ReduceMean", importReduce<ReduceMeanOp, 18>);
  registry.add("ReduceMax", importReduce<ReduceMaxOp, 18>);
  registry.add("ReduceMin", importReduce<ReduceMinOp, 18>);
  registry.add("ReduceProd", importReduce<ReduceProdOp, 18>);
  registry.add("ReduceLogSumExp", importReduce<ReduceLogSumExpOp, 18>);
  registry.add("Softmax", importAlongAxis<SoftmaxOp>);
}

} // namespace kiln::onnx_import
