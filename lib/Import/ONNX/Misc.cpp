// Imports ONNX's Constant, Identity, Dropout (inference: an identity) and Cast.
#include "NodeImporter.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace kiln::onnx_import {
namespace {

/// A Constant node holds exactly one of value, value_float(s), value_int(s)
/// (or the unsupported string and sparse forms).
llvm::Error importConstant(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(0, 0))
    return error;
  if (node.getNode().attribute_size() != 1)
    return node.error("expected exactly one value attribute, got " +
                      std::to_string(node.getNode().attribute_size()));
  llvm::StringRef name = node.getNode().attribute(0).name();
  OpBuilder &b = node.getBuilder();
  auto create = [&](DenseElementsAttr value) {
    return node.setResult(
        b.create<ConstantOp>(node.getLoc(), cast<ElementsAttr>(value))
            .getResult());
  };
  if (name == "value") {
    llvm::Expected<const onnx::TensorProto *> tensor = node.getTensor(name);
    if (!tensor)
      return tensor.takeError();
    return node.setResult(node.createConstant(**tensor));
  }
  if (name == "value_float") {
    llvm::Expected<float> value = node.getFloat(name, 0.0f);
    if (!value)
      return value.takeError();
    return create(DenseElementsAttr::get(
        RankedTensorType::get({}, b.getF32Type()), *value));
  }
  if (name == "value_floats") {
    auto values = node.getFloats(name);
    if (!values)
      return values.takeError();
    return create(DenseElementsAttr::get(
        RankedTensorType::get({int64_t(values->size())}, b.getF32Type()),
        llvm::ArrayRef<float>(*values)));
  }
  if (name == "value_int") {
    llvm::Expected<int64_t> value = node.getInt(name);
    if (!value)
      return value.takeError();
    return create(DenseElementsAttr::get(
        RankedTensorType::get({}, b.getIntegerType(64)), *value));
  }
  if (name == "value_ints") {
    auto values = node.getInts(name);
    if (!values)
      return values.takeError();
    return node.setResult(node.createIntegerConstant(**values));
  }
  if (name == "value_string" || name == "value_strings")
    return node.error("unsupported element type STRING in '" + name + "'");
  if (name == "sparse_value")
    return node.error("sparse constants ('sparse_value') are not supported");
  return node.error("unknown attribute '" + name + "'");
}

llvm::Error importIdentity(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(1, 1))
    return error;
  return node.setResult(node.create<IdentityOp>(node.getInput(0)));
}

/// Dropout is an identity at inference; its mask output (output 1) is not
/// supported when anything reads it. Opset 12 adds the optional `ratio` and
/// `training_mode` inputs; training mode must be absent or a constant false.
llvm::Error importDropout(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(1, 3))
    return error;
  if (node.isOutputUsed(1))
    return node.error("the mask output of Dropout is used; only inference "
                      "Dropout (mask unused) is supported");
  if (Value trainingMode = node.getInput(2)) {
    DenseElementsAttr value;
    if (!matchPattern(trainingMode, m_Constant(&value)) ||
        value.getNumElements() != 1 || !value.getElementType().isInteger(1) ||
        *value.value_begin<bool>())
      return node.error("training-mode Dropout (a 'training_mode' input that "
                        "is not a constant false) is not supported");
  }
  return node.setResult(node.create<IdentityOp>(node.getInput(0)));
}

/// Cast's `to` is a data type number; before opset 6 it was its name.
llvm::Error importCast(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(1, 1))
    return error;
  const onnx::AttributeProto *to = node.findAttribute("to");
  if (!to)
    return node.error("missing required attribute 'to'");
  int32_t dataType = -1;
  if (to->has_s() && !to->has_i()) {
    for (int32_t candidate = 1; candidate < 32 && dataType < 0; ++candidate)
      if (getDataTypeName(candidate) == to->s())
        dataType = candidate;
    if (dataType < 0)
      return node.error("attribute 'to' names unknown type '" + to->s() + "'");
  } else {
    llvm::Expected<int64_t> value = node.getInt("to");
    if (!value)
      return value.takeError();
    dataType = int32_t(*value);
  }
  llvm::Expected<Type> element =
      convertElementType(*node.getContext(), dataType);
  if (!element)
    return node.error("attribute 'to': " + llvm::toString(element.takeError()));
  return node.setResult(
      node.create<CastOp>(node.getInput(0), TypeAttr::get(*element)));
}

} // namespace

void populateMiscImporters(OpImporterRegistry &registry) {
  registry.add("Constant", importConstant);
  registry.add("Identity", importIdentity);
  registry.add("Dropout", importDropout);
  registry.add("Cast", importCast);
}

} // namespace kiln::onnx_import
