// Imports ONNX's shape and data-movement ops (Reshape, Transpose, Concat,
// Slice, Gather, Unsqueeze, Squeeze, Flatten, Expand, Shape), turning the
// attribute forms of older opsets into constant operands.
#include "NodeImporter.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

using namespace mlir;

namespace kiln::onnx_import {
namespace {

/// Input |index| when |fromInput|, else the INTS attribute |name| as a
/// constant (required unless |optional|; a null value when absent).
llvm::Expected<Value> getIntegerOperand(NodeImporter &node, bool fromInput,
                                        size_t index, llvm::StringRef name,
                                        bool optional) {
  if (fromInput)
    return node.getInput(index);
  auto values = node.getInts(name);
  if (!values)
    return values.takeError();
  if (!*values) {
    if (optional)
      return Value();
    return node.error("missing required attribute '" + name + "'");
  }
  return node.createIntegerConstant(**values);
}

/// Reshape takes `shape` as an input from opset 5 and an attribute before.
llvm::Error importReshape(NodeImporter &node) {
  bool shapeIsInput = node.getOpset() >= 5;
  if (llvm::Error error =
          node.checkInputCount(shapeIsInput ? 2 : 1, shapeIsInput ? 2 : 1))
    return error;
  llvm::Expected<Value> shape =
      getIntegerOperand(node, shapeIsInput, 1, "shape", false);
  if (!shape)
    return shape.takeError();
  llvm::Expected<int64_t> allowZero = node.getInt("allowzero", 0);
  if (!allowZero)
    return allowZero.takeError();
  return node.setResult(node.create<ReshapeOp>(
      node.getInput(0), *shape, node.getBuilder().getBoolAttr(*allowZero)));
}

/// Transpose always gets `perm`; ONNX's default reverses the dimensions.
llvm::Error importTranspose(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(1, 1))
    return error;
  auto perm = node.getInts("perm");
  if (!perm)
    return perm.takeError();
  llvm::SmallVector<int64_t> permutation;
  if (*perm) {
    permutation = **perm;
  } else {
    auto type = dyn_cast<RankedTensorType>(node.getInput(0).getType());
    if (!type)
      return node.error("Transpose without 'perm' needs an input of known "
                        "rank");
    for (int64_t i = type.getRank() - 1; i >= 0; --i)
      permutation.push_back(i);
  }
  return node.setResult(node.create<TransposeOp>(
      node.getInput(0), node.getBuilder().getDenseI64ArrayAttr(permutation)));
}

llvm::Error importConcat(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(1, SIZE_MAX))
    return error;
  llvm::SmallVector<Value> inputs;
  for (size_t i = 0, e = node.getInputCount(); i < e; ++i) {
    if (!node.getInput(i))
      return node.error("input " + std::to_string(i) + " is empty");
    inputs.push_back(node.getInput(i));
  }
  // `axis` is required from opset 4 and defaults to 1 before.
  llvm::Expected<int64_t> axis =
      node.getOpset() >= 4 ? node.getInt("axis") : node.getInt("axis", 1);
  if (!axis)
    return axis.takeError();
  return node.setResult(node.create<ConcatOp>(
      ValueRange(inputs), node.getBuilder().getI64IntegerAttr(*axis)));
}

/// Slice always gets starts, ends, axes and steps as operands: opsets < 10
/// pass the first three as attributes, absent axes are 0..n-1 and absent
/// steps are 1.
llvm::Error importSlice(NodeImporter &node) {
  bool fromInputs = node.getOpset() >= 10;
  if (llvm::Error error =
          node.checkInputCount(fromInputs ? 3 : 1, fromInputs ? 5 : 1))
    return error;
  llvm::Expected<Value> starts =
      getIntegerOperand(node, fromInputs, 1, "starts", false);
  if (!starts)
    return starts.takeError();
  llvm::Expected<Value> ends =
      getIntegerOperand(node, fromInputs, 2, "ends", false);
  if (!ends)
    return ends.takeError();
  llvm::Expected<Value> axes =
      getIntegerOperand(node, fromInputs, 3, "axes", true);
  if (!axes)
    return axes.takeError();
  Value steps = node.getInput(4);
  if (!*axes || !steps) {
    auto startsType = dyn_cast<RankedTensorType>(starts->getType());
    if (!startsType || startsType.getRank() != 1 || startsType.isDynamicDim(0))
      return node.error("Slice without axes or steps needs 'starts' of "
                        "static 1-D shape");
    int64_t count = startsType.getDimSize(0);
    Type element = startsType.getElementType();
    if (!*axes) {
      llvm::SmallVector<int64_t> allAxes;
      for (int64_t i = 0; i < count; ++i)
        allAxes.push_back(i);
      *axes = node.createIntegerConstant(allAxes, element);
    }
    if (!steps)
      steps = node.createIntegerConstant(llvm::SmallVector<int64_t>(count, 1),
                                         element);
  }
  return node.setResult(
      node.create<SliceOp>(node.getInput(0), *starts, *ends, *axes, steps));
}

llvm::Error importGather(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(2, 2))
    return error;
  llvm::Expected<int64_t> axis = node.getInt("axis", 0);
  if (!axis)
    return axis.takeError();
  return node.setResult(
      node.create<GatherOp>(node.getInput(0), node.getInput(1),
                            node.getBuilder().getI64IntegerAttr(*axis)));
}

/// Unsqueeze and Squeeze take `axes` as an input from opset 13 and an
/// attribute before; Unsqueeze requires it, Squeeze does not.
llvm::Error importUnsqueeze(NodeImporter &node) {
  bool axesIsInput = node.getOpset() >= 13;
  if (llvm::Error error =
          node.checkInputCount(axesIsInput ? 2 : 1, axesIsInput ? 2 : 1))
    return error;
  llvm::Expected<Value> axes =
      getIntegerOperand(node, axesIsInput, 1, "axes", false);
  if (!axes)
    return axes.takeError();
  return node.setResult(node.create<UnsqueezeOp>(node.getInput(0), *axes));
}

llvm::Error importSqueeze(NodeImporter &node) {
  bool axesIsInput = node.getOpset() >= 13;
  if (llvm::Error error = node.checkInputCount(1, axesIsInput ? 2 : 1))
    return error;
  llvm::Expected<Value> axes =
      getIntegerOperand(node, axesIsInput, 1, "axes", true);
  if (!axes)
    return axes.takeError();
  return node.setResult(node.create<SqueezeOp>(node.getInput(0), *axes));
}

llvm::Error importFlatten(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(1, 1))
    return error;
  llvm::Expected<int64_t> axis = node.getInt("axis", 1);
  if (!axis)
    return axis.takeError();
  return node.setResult(node.create<FlattenOp>(
      node.getInput(0), node.getBuilder().getI64IntegerAttr(*axis)));
}

llvm::Error importExpand(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(2, 2))
    return error;
  return node.setResult(
      node.create<ExpandOp>(node.getInput(0), node.getInput(1)));
}

/// Shape with the opset-15 `start` and optional `end`.
llvm::Error importShape(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(1, 1))
    return error;
  OpBuilder &b = node.getBuilder();
  llvm::Expected<int64_t> start = node.getInt("start", 0);
  if (!start)
    return start.takeError();
  IntegerAttr end;
  if (node.hasAttribute("end")) {
    llvm::Expected<int64_t> endValue = node.getInt("end");
    if (!endValue)
      return endValue.takeError();
    end = b.getI64IntegerAttr(*endValue);
  }
  return node.setResult(
      node.create<ShapeOp>(node.getInput(0), b.getI64IntegerAttr(*start), end));
}

} // namespace

void populateShapeImporters(OpImporterRegistry &registry) {
  registry.add("Reshape", importReshape);
  registry.add("Transpose", importTranspose);
  registry.add("Concat", importConcat);
  registry.add("Slice", importSlice);
  registry.add("Gather", importGather);
  registry.add("Unsqueeze", importUnsqueeze);
  registry.add("Squeeze", importSqueeze);
  registry.add("Flatten", importFlatten);
  registry.add("Expand", importExpand);
  registry.add("Shape", importShape);
}

} // namespace kiln::onnx_import
