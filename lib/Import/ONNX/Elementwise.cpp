// Imports ONNX's elementwise ops: unary math, broadcasting binary arithmetic
// and comparisons, Pow, Where and Gelu.
#include "ElementwiseImport.h"
#include "NodeImporter.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

namespace kiln::onnx_import {
namespace {

llvm::Error importWhere(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(3, 3))
    return error;
  return node.setResult(node.create<WhereOp>(node.getInput(0), node.getInput(1),
                                             node.getInput(2)));
}

/// Gelu (opset 20): `approximate` is "none" (erf) or "tanh".
llvm::Error importGelu(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(1, 1))
    return error;
  std::string approximate = "none";
  if (const onnx::AttributeProto *attribute =
          node.findAttribute("approximate")) {
    if (!attribute->has_s())
      return node.error("attribute 'approximate' must be a string");
    approximate = attribute->s();
  }
  if (approximate != "none" && approximate != "tanh")
    return node.error("attribute 'approximate' must be 'none' or 'tanh', got '" +
                      approximate + "'");
  return node.setResult(node.create<GeluOp>(
      node.getInput(0), node.getBuilder().getStringAttr(approximate)));
}

} // namespace

void populateElementwiseImporters(OpImporterRegistry &registry) {
  registry.add("Abs", importUnary<AbsOp>);
  registry.add("Erf", importUnary<ErfOp>);
  registry.add("Exp", importUnary<ExpOp>);
  registry.add("Gelu", importGelu);
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
