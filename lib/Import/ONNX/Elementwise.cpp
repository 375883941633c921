// Imports ONNX's elementwise ops: unary math, broadcasting binary arithmetic
// and comparisons, Pow and Where.
#include "NodeImporter.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

namespace kiln::onnx_import {
namespace {

/// Unary ops; opsets < 6 carry a `consumed_inputs` attribute that is ignored.
template <typename OpTy> llvm::Error importUnary(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(1, 1))
    return error;
  return node.setResult(node.create<OpTy>(node.getInput(0)));
}

/// Before opset 7, binary ops broadcast only with `broadcast = 1`, aligning
/// the right operand at `axis`; without `axis` that matches NumPy's rules,
/// which every later opset uses.
llvm::Error checkLegacyBroadcast(NodeImporter &node) {
  if (node.getOpset() >= 7 || !node.hasAttribute("axis"))
    return llvm::Error::success();
  return node.error("legacy broadcasting with an 'axis' attribute "
                    "(opset < 7) is not supported");
}

/// Binary ops with NumPy broadcasting.
template <typename OpTy> llvm::Error importBinary(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(2, 2))
    return error;
  if (llvm::Error error = checkLegacyBroadcast(node))
    return error;
  return node.setResult(node.create<OpTy>(node.getInput(0), node.getInput(1)));
}

llvm::Error importWhere(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(3, 3))
    return error;
  return node.setResult(node.create<WhereOp>(node.getInput(0), node.getInput(1),
                                             node.getInput(2)));
}

} // namespace

void populateElementwiseImporters(OpImporterRegistry &registry) {
  registry.add("Abs", importUnary<AbsOp>);
  registry.add("Erf", importUnary<ErfOp>);
  registry.add("Exp", importUnary<ExpOp>);
  registry.add("Log", importUnary<LogOp>);
  registry.add("Neg", importUnary<NegOp>);
  registry.add("Not", importUnary<NotOp>);
  registry.add("Reciprocal", importUnary<ReciprocalOp>);
  registry.add("Relu", importUnary<ReluOp>);
  registry.add("Sigmoid", importUnary<SigmoidOp>);
  registry.add("Sqrt", importUnary<SqrtOp>);
  registry.add("Tanh", importUnary<TanhOp>);

  registry.add("Add", importBinary<AddOp>);
  registry.add("Sub", importBinary<SubOp>);
  registry.add("Mul", importBinary<MulOp>);
  registry.add("Div", importBinary<DivOp>);
  registry.add("Pow", importBinary<PowOp>);
  registry.add("Equal", importBinary<EqualOp>);
  registry.add("Less", importBinary<LessOp>);
  registry.add("Greater", importBinary<GreaterOp>);
  registry.add("Where", importWhere);
}

} // namespace kiln::onnx_import
