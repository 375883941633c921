// Imports ONNX's reductions (ReduceSum, ReduceMean, ReduceMax) and Softmax,
// normalising the attribute forms of older opsets into the newest form.
#include "AlongAxis.h"
#include "NodeImporter.h"
#include "ReduceImport.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

using namespace mlir;

namespace kiln::onnx_import {

llvm::Expected<ReduceOperands> readReduceOperands(NodeImporter &node,
                                                  int64_t axesInputOpset) {
  bool axesIsInput = node.getOpset() >= axesInputOpset;
  if (llvm::Error error = node.checkInputCount(1, axesIsInput ? 2 : 1))
    return std::move(error);
  llvm::Expected<int64_t> keepDims = node.getInt("keepdims", 1);
  if (!keepDims)
    return keepDims.takeError();
  ReduceOperands reduce;
  int64_t noopWithEmptyAxes = 0;
  if (axesIsInput) {
    reduce.axes = node.getInput(1);
    llvm::Expected<int64_t> noop = node.getInt("noop_with_empty_axes", 0);
    if (!noop)
      return noop.takeError();
    noopWithEmptyAxes = *noop;
  } else {
    auto axesAttribute = node.getInts("axes");
    if (!axesAttribute)
      return axesAttribute.takeError();
    if (*axesAttribute && !(*axesAttribute)->empty())
      reduce.axes = node.createIntegerConstant(**axesAttribute);
  }
  OpBuilder &b = node.getBuilder();
  reduce.keepDims = b.getBoolAttr(*keepDims != 0);
  reduce.noopWithEmptyAxes = b.getBoolAttr(noopWithEmptyAxes != 0);
  return reduce;
}

namespace {

/// ReduceSum takes `axes` as an input from opset 13, the others from 18.
template <typename OpTy, int64_t axesInputOpset>
llvm::Error importReduce(NodeImporter &node) {
  llvm::Expected<ReduceOperands> reduce =
      readReduceOperands(node, axesInputOpset);
  if (!reduce)
    return reduce.takeError();
  return node.setResult(node.create<OpTy>(node.getInput(0), reduce->axes,
                                          reduce->keepDims,
                                          reduce->noopWithEmptyAxes));
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
