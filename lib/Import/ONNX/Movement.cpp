// Imports ONNX's shape and data-movement ops beyond the basics: Split (as
// slices), Pad, Tile, Range, ConstantOfShape, OneHot, EyeLike, Size, Trilu,
// DepthToSpace, SpaceToDepth. The index-driven ones (gathers, scatters, TopK,
// ReverseSequence, Resize/Upsample, Einsum) are in MovementIndex.cpp.
#include "MovementImport.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

using namespace mlir;

namespace kiln::onnx_import {

/// A STRING attribute, or |defaultValue| when absent.
llvm::Expected<std::string> getString(NodeImporter &node, llvm::StringRef name,
                                      llvm::StringRef defaultValue) {
  const onnx::AttributeProto *attribute = node.findAttribute(name);
  if (!attribute)
    return defaultValue.str();
  if (!attribute->has_s())
    return node.error("attribute '" + name + "' must be STRING, got " +
                      node.getAttributeKindName(name));
  return attribute->s();
}

namespace {

/// A scalar constant of |element| holding |value|.
Value createScalar(NodeImporter &node, Type element, double value) {
  auto type = RankedTensorType::get({}, element);
  Attribute scalar =
      isa<FloatType>(element)
          ? Attribute(FloatAttr::get(element, value))
          : Attribute(IntegerAttr::get(element, APInt(element.getIntOrFloatBitWidth(),
                                                     int64_t(value), true)));
  return node.getBuilder().create<ConstantOp>(
      node.getLoc(), cast<ElementsAttr>(DenseElementsAttr::get(type, scalar)));
}

llvm::Expected<int64_t> requireRank(NodeImporter &node, Value value,
                                    llvm::StringRef what) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type)
    return node.error(what + " needs an input of known rank");
  return type.getRank();
}

//===--- Split ------------------------------------------------------------===//

/// Split becomes one kiln.slice per output. Split sizes come from the
/// attribute (opset < 13), the input (13+) or equal parts (num_outputs in
/// 18, or the output count); a runtime `split` input gives slice bounds
/// computed with reduce_sum/add so the graph stays static when it folds.
llvm::Error importSplit(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(1, 2))
    return error;
  Value input = node.getInput(0);
  llvm::Expected<int64_t> rank = requireRank(node, input, "Split");
  if (!rank)
    return rank.takeError();
  llvm::Expected<int64_t> axis = node.getAxis("axis", 0, *rank);
  if (!axis)
    return axis.takeError();
  OpBuilder &b = node.getBuilder();
  int64_t outputs = node.getOutputCount();
  int64_t dim = cast<RankedTensorType>(input.getType()).getDimSize(*axis);
  std::optional<SmallVector<int64_t>> sizes;
  Value splitInput = node.getInput(1);
  if (splitInput) {
    sizes = getConstantIntegers(splitInput);
  } else {
    auto attribute = node.getInts("split");
    if (!attribute)
      return attribute.takeError();
    if (*attribute) {
      sizes = **attribute;
    } else {
      if (ShapedType::isDynamic(dim))
        return node.error("Split into equal parts needs a static dimension "
                          "along the axis");
      llvm::Expected<int64_t> parts = node.getInt("num_outputs", outputs);
      if (!parts)
        return parts.takeError();
      if (*parts != outputs || outputs < 1)
        return node.error("num_outputs does not match the output count");
      int64_t chunk = (dim + outputs - 1) / outputs;
      if (node.getOpset() < 18 && dim % outputs != 0)
        return node.error("dimension " + std::to_string(dim) +
                          " does not split into " + std::to_string(outputs) +
                          " equal parts");
      sizes.emplace();
      for (int64_t i = 0, left = dim; i < outputs; ++i, left -= chunk)
        sizes->push_back(std::max<int64_t>(0, std::min(chunk, left)));
    }
  }
  if (sizes && int64_t(sizes->size()) != outputs)
    return node.error("split has " + std::to_string(sizes->size()) +
                      " entries for " + std::to_string(outputs) + " outputs");
  Value axes = node.createIntegerConstant({*axis});
  Value steps = node.createIntegerConstant({1});
  Value start = node.createIntegerConstant({0});
  int64_t offset = 0;
  for (int64_t i = 0; i < outputs; ++i) {
    Value end;
    if (sizes) {
      start = node.createIntegerConstant({offset});
      offset += (*sizes)[i];
      end = node.createIntegerConstant({offset});
    } else {
      // end = start + split[i:i+1]
      llvm::Expected<Value> size = node.create<SliceOp>(
          splitInput, node.createIntegerConstant({i}),
          node.createIntegerConstant({i + 1}), node.createIntegerConstant({0}),
          node.createIntegerConstant({1}));
      if (!size)
        return size.takeError();
      llvm::Expected<Value> sum = node.create<AddOp>(start, *size);
      if (!sum)
        return sum.takeError();
      end = *sum;
    }
    llvm::Expected<Value> part =
        node.create<SliceOp>(input, start, end, axes, steps);
    if (!part)
      return part.takeError();
    node.setOutput(i, *part);
    start = end;
  }
  (void)b;
  return llvm::Error::success();
}

//===--- Pad, Tile, generators ------------------------------------------===//

/// Pad: attributes `pads`/`paddings` and `value` before opset 11, inputs
/// `pads`, `constant_value` and (18) `axes` after.
llvm::Error importPad(NodeImporter &node) {
  bool fromInputs = node.getOpset() >= 11;
  if (llvm::Error error = node.checkInputCount(fromInputs ? 2 : 1,
                                               fromInputs ? 4 : 1))
    return error;
  llvm::Expected<std::string> mode = getString(node, "mode", "constant");
  if (!mode)
    return mode.takeError();
  Value data = node.getInput(0);
  Value pads, value, axes;
  if (fromInputs) {
    pads = node.getInput(1);
    value = node.getInput(2);
    axes = node.getInput(3);
  } else {
    auto list = node.getInts(node.hasAttribute("pads") ? "pads" : "paddings");
    if (!list)
      return list.takeError();
    if (!*list)
      return node.error("missing required attribute 'pads'");
    pads = node.createIntegerConstant(**list);
    llvm::Expected<float> constant = node.getFloat("value", 0.0f);
    if (!constant)
      return constant.takeError();
    if (*constant != 0.0f)
      value = createScalar(node, node.getInputElementType(0), *constant);
  }
  return node.setResult(node.create<PadOp>(
      data, pads, value, axes, node.getBuilder().getStringAttr(*mode)));
}

llvm::Error importTile(NodeImporter &node) {
  if (node.getOpset() < 6)
    return node.error("Tile before opset 6 (tiles and axis inputs) is not "
                      "supported");
  if (llvm::Error error = node.checkInputCount(2, 2))
    return error;
  return node.setResult(
      node.create<TileOp>(node.getInput(0), node.getInput(1)));
}

llvm::Error importRange(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(3, 3))
    return error;
  return node.setResult(node.create<RangeOp>(
      node.getInput(0), node.getInput(1), node.getInput(2)));
}

llvm::Error importConstantOfShape(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(1, 1))
    return error;
  OpBuilder &b = node.getBuilder();
  ElementsAttr value = cast<ElementsAttr>(DenseElementsAttr::get(
      RankedTensorType::get({1}, b.getF32Type()), 0.0f));
  if (node.hasAttribute("value")) {
    llvm::Expected<const onnx::TensorProto *> tensor = node.getTensor("value");
    if (!tensor)
      return tensor.takeError();
    llvm::Expected<Value> constant = node.createConstant(**tensor);
    if (!constant)
      return constant.takeError();
    auto op = constant->getDefiningOp<ConstantOp>();
    value = op.getValue();
    op->erase();
    if (value.getNumElements() != 1)
      return node.error("attribute 'value' must hold one element");
    if (!isa<DenseElementsAttr>(value))
      return node.error("attribute 'value' must be an inline tensor");
    value = cast<ElementsAttr>(cast<DenseElementsAttr>(value).reshape(
        RankedTensorType::get({1}, value.getElementType())));
  }
  return node.setResult(
      node.create<ConstantOfShapeOp>(node.getInput(0), value));
}

llvm::Error importOneHot(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(3, 3))
    return error;
  llvm::Expected<int64_t> axis = node.getInt("axis", -1);
  if (!axis)
    return axis.takeError();
  return node.setResult(node.create<OneHotOp>(
      node.getInput(0), node.getInput(1), node.getInput(2),
      node.getBuilder().getI64IntegerAttr(*axis)));
}

llvm::Error importEyeLike(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(1, 1))
    return error;
  Type element = node.getInputElementType(0);
  if (node.hasAttribute("dtype")) {
    llvm::Expected<int64_t> dtype = node.getInt("dtype");
    if (!dtype)
      return dtype.takeError();
    llvm::Expected<Type> converted =
        convertElementType(*node.getContext(), int32_t(*dtype));
    if (!converted)
      return node.error("attribute 'dtype': " +
                        llvm::toString(converted.takeError()));
    element = *converted;
  }
  llvm::Expected<int64_t> k = node.getInt("k", 0);
  if (!k)
    return k.takeError();
  OpBuilder &b = node.getBuilder();
  return node.setResult(node.create<EyeLikeOp>(
      node.getInput(0), TypeAttr::get(element), b.getI64IntegerAttr(*k)));
}

llvm::Error importSize(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(1, 1))
    return error;
  return node.setResult(node.create<SizeOp>(node.getInput(0)));
}

llvm::Error importTrilu(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(1, 2))
    return error;
  llvm::Expected<int64_t> upper = node.getInt("upper", 1);
  if (!upper)
    return upper.takeError();
  return node.setResult(
      node.create<TriluOp>(node.getInput(0), node.getInput(1),
                           node.getBuilder().getBoolAttr(*upper != 0)));
}

llvm::Error importDepthToSpace(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(1, 1))
    return error;
  llvm::Expected<int64_t> block = node.getInt("blocksize");
  if (!block)
    return block.takeError();
  llvm::Expected<std::string> mode = getString(node, "mode", "DCR");
  if (!mode)
    return mode.takeError();
  OpBuilder &b = node.getBuilder();
  return node.setResult(node.create<DepthToSpaceOp>(
      node.getInput(0), b.getI64IntegerAttr(*block), b.getStringAttr(*mode)));
}

llvm::Error importSpaceToDepth(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(1, 1))
    return error;
  llvm::Expected<int64_t> block = node.getInt("blocksize");
  if (!block)
    return block.takeError();
  return node.setResult(node.create<SpaceToDepthOp>(
      node.getInput(0), node.getBuilder().getI64IntegerAttr(*block)));
}

} // namespace

void populateMovementImporters(OpImporterRegistry &registry) {
  registry.add("Split", importSplit);
  registry.add("Pad", importPad);
  registry.add("Tile", importTile);
  registry.add("Range", importRange);
  registry.add("ConstantOfShape", importConstantOfShape);
  registry.add("OneHot", importOneHot);
  registry.add("EyeLike", importEyeLike);
  registry.add("Size", importSize);
  registry.add("Trilu", importTrilu);
  registry.add("DepthToSpace", importDepthToSpace);
  registry.add("SpaceToDepth", importSpaceToDepth);
}

} // namespace kiln::onnx_import
