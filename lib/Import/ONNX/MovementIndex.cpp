// Imports ONNX's index-driven data-movement ops: GatherElements, GatherND,
// Scatter*, TopK (indices + gather_elements), ReverseSequence,
// Resize/Upsample and Einsum.
#include "MovementImport.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/IR/MovementSemantics.h"

using namespace mlir;

namespace kiln::onnx_import {
namespace {

/// Null when |value| is absent or an empty (0-element) tensor, which some
/// models pass for "not given" (Resize's roi and scales).
Value unlessEmpty(Value value) {
  if (!value)
    return value;
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (type && type.hasStaticShape() && type.getNumElements() == 0)
    return Value();
  return value;
}

//===--- Gathers, scatters, TopK, ReverseSequence ------------------------===//

llvm::Error importGatherElements(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(2, 2))
    return error;
  llvm::Expected<int64_t> axis = node.getInt("axis", 0);
  if (!axis)
    return axis.takeError();
  return node.setResult(node.create<GatherElementsOp>(
      node.getInput(0), node.getInput(1),
      node.getBuilder().getI64IntegerAttr(*axis)));
}

llvm::Error importGatherND(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(2, 2))
    return error;
  llvm::Expected<int64_t> batch = node.getInt("batch_dims", 0);
  if (!batch)
    return batch.takeError();
  return node.setResult(node.create<GatherNDOp>(
      node.getInput(0), node.getInput(1),
      node.getBuilder().getI64IntegerAttr(*batch)));
}

/// ScatterElements and the deprecated Scatter (no reduction).
llvm::Error importScatterElements(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(3, 3))
    return error;
  llvm::Expected<int64_t> axis = node.getInt("axis", 0);
  if (!axis)
    return axis.takeError();
  llvm::Expected<std::string> reduction = getString(node, "reduction", "none");
  if (!reduction)
    return reduction.takeError();
  OpBuilder &b = node.getBuilder();
  return node.setResult(node.create<ScatterElementsOp>(
      node.getInput(0), node.getInput(1), node.getInput(2),
      b.getI64IntegerAttr(*axis), b.getStringAttr(*reduction)));
}

llvm::Error importScatterND(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(3, 3))
    return error;
  llvm::Expected<std::string> reduction = getString(node, "reduction", "none");
  if (!reduction)
    return reduction.takeError();
  return node.setResult(node.create<ScatterNDOp>(
      node.getInput(0), node.getInput(1), node.getInput(2),
      node.getBuilder().getStringAttr(*reduction)));
}

/// TopK: `k` is an attribute before opset 10. Output 1 (indices) is
/// kiln.top_k; output 0 (values) gathers the input at those indices.
llvm::Error importTopK(NodeImporter &node) {
  bool kIsInput = node.getOpset() >= 10;
  if (llvm::Error error =
          node.checkInputCount(kIsInput ? 2 : 1, kIsInput ? 2 : 1))
    return error;
  Value k = node.getInput(1);
  if (!kIsInput) {
    llvm::Expected<int64_t> value = node.getInt("k");
    if (!value)
      return value.takeError();
    k = node.createIntegerConstant({*value});
  }
  llvm::Expected<int64_t> axis = node.getInt("axis", -1);
  if (!axis)
    return axis.takeError();
  llvm::Expected<int64_t> largest = node.getInt("largest", 1);
  if (!largest)
    return largest.takeError();
  // `sorted = 0` leaves the order unspecified; kiln always sorts.
  OpBuilder &b = node.getBuilder();
  llvm::Expected<Value> indices =
      node.create<TopKOp>(node.getInput(0), k, b.getI64IntegerAttr(*axis),
                          b.getBoolAttr(*largest != 0));
  if (!indices)
    return indices.takeError();
  llvm::Expected<Value> values = node.create<GatherElementsOp>(
      node.getInput(0), *indices, b.getI64IntegerAttr(*axis));
  if (!values)
    return values.takeError();
  node.setOutput(0, *values);
  if (node.getOutputCount() > 1)
    node.setOutput(1, *indices);
  return llvm::Error::success();
}

llvm::Error importReverseSequence(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(2, 2))
    return error;
  llvm::Expected<int64_t> batch = node.getInt("batch_axis", 1);
  if (!batch)
    return batch.takeError();
  llvm::Expected<int64_t> time = node.getInt("time_axis", 0);
  if (!time)
    return time.takeError();
  OpBuilder &b = node.getBuilder();
  return node.setResult(node.create<ReverseSequenceOp>(
      node.getInput(0), node.getInput(1), b.getI64IntegerAttr(*batch),
      b.getI64IntegerAttr(*time)));
}

//===--- Resize, Upsample, Einsum ----------------------------------------===//

llvm::Error createResize(NodeImporter &node, Value roi, Value scales,
                         Value sizes, llvm::StringRef mode,
                         llvm::StringRef coordinates, llvm::StringRef nearest,
                         float cubicA, bool excludeOutside,
                         float extrapolation) {
  if (!isSupportedResizeMode(mode))
    return node.error("unsupported mode '" + mode +
                      "' (kiln supports nearest, linear and cubic)");
  if (!isSupportedCoordinateMode(coordinates))
    return node.error("unsupported coordinate_transformation_mode '" +
                      coordinates + "'");
  if (!isSupportedNearestMode(nearest))
    return node.error("unsupported nearest_mode '" + nearest + "'");
  if (!scales == !sizes)
    return node.error("exactly one of 'scales' and 'sizes' must be given");
  OpBuilder &b = node.getBuilder();
  return node.setResult(node.create<ResizeOp>(
      node.getInput(0), roi, scales, sizes, b.getStringAttr(mode),
      b.getStringAttr(coordinates), b.getStringAttr(nearest),
      b.getF32FloatAttr(cubicA), b.getBoolAttr(excludeOutside),
      b.getF32FloatAttr(extrapolation)));
}

/// Resize: opset 10 takes (X, scales) with Upsample's asymmetric sampling;
/// 11+ takes (X, roi, scales, sizes) with the coordinate attributes.
llvm::Error importResize(NodeImporter &node) {
  bool opset10 = node.getOpset() < 11;
  if (llvm::Error error = node.checkInputCount(opset10 ? 2 : 1, opset10 ? 2 : 4))
    return error;
  llvm::Expected<int64_t> antialias = node.getInt("antialias", 0);
  if (!antialias)
    return antialias.takeError();
  llvm::Expected<std::string> policy =
      getString(node, "keep_aspect_ratio_policy", "stretch");
  if (!policy)
    return policy.takeError();
  if (*antialias != 0 || *policy != "stretch" || node.hasAttribute("axes"))
    return node.error("Resize with antialias, keep_aspect_ratio_policy or "
                      "axes is not supported");
  llvm::Expected<std::string> mode = getString(node, "mode", "nearest");
  if (!mode)
    return mode.takeError();
  if (opset10)
    return createResize(node, Value(), node.getInput(1), Value(), *mode,
                        "asymmetric", "floor", -0.75f, false, 0.0f);
  llvm::Expected<std::string> coordinates =
      getString(node, "coordinate_transformation_mode", "half_pixel");
  if (!coordinates)
    return coordinates.takeError();
  llvm::Expected<std::string> nearest =
      getString(node, "nearest_mode", "round_prefer_floor");
  if (!nearest)
    return nearest.takeError();
  llvm::Expected<float> cubicA = node.getFloat("cubic_coeff_a", -0.75f);
  if (!cubicA)
    return cubicA.takeError();
  llvm::Expected<int64_t> exclude = node.getInt("exclude_outside", 0);
  if (!exclude)
    return exclude.takeError();
  llvm::Expected<float> extrapolation =
      node.getFloat("extrapolation_value", 0.0f);
  if (!extrapolation)
    return extrapolation.takeError();
  Value roi = *coordinates == "tf_crop_and_resize"
                  ? unlessEmpty(node.getInput(1))
                  : Value();
  if (*coordinates == "tf_crop_and_resize" && !roi)
    return node.error("tf_crop_and_resize needs a 'roi' input");
  return createResize(node, roi, unlessEmpty(node.getInput(2)),
                      unlessEmpty(node.getInput(3)), *mode, *coordinates,
                      *nearest, *cubicA, *exclude != 0, *extrapolation);
}

/// Upsample (deprecated): scales as an attribute (opset 7) or input (9);
/// nearest picks floor(x / scale), linear is asymmetric.
llvm::Error importUpsample(NodeImporter &node) {
  bool scalesIsInput = node.getOpset() >= 9;
  if (node.getOpset() < 7)
    return node.error("Upsample before opset 7 is not supported");
  if (llvm::Error error = node.checkInputCount(scalesIsInput ? 2 : 1,
                                               scalesIsInput ? 2 : 1))
    return error;
  llvm::Expected<std::string> mode = getString(node, "mode", "nearest");
  if (!mode)
    return mode.takeError();
  std::string resizeMode = *mode == "bilinear" ? "linear" : *mode;
  Value scales = node.getInput(1);
  if (!scalesIsInput) {
    llvm::Expected<SmallVector<float>> values = node.getFloats("scales");
    if (!values)
      return values.takeError();
    auto type = RankedTensorType::get({int64_t(values->size())},
                                      node.getBuilder().getF32Type());
    scales = node.getBuilder().create<ConstantOp>(
        node.getLoc(),
        cast<ElementsAttr>(DenseElementsAttr::get(type, ArrayRef(*values))));
  }
  return createResize(node, Value(), scales, Value(), resizeMode, "asymmetric",
                      "floor", -0.75f, false, 0.0f);
}

llvm::Error importEinsum(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(1, SIZE_MAX))
    return error;
  llvm::Expected<std::string> equation = getString(node, "equation", "");
  if (!equation)
    return equation.takeError();
  if (equation->empty())
    return node.error("missing required attribute 'equation'");
  SmallVector<Value> inputs;
  for (size_t i = 0, e = node.getInputCount(); i < e; ++i) {
    if (!node.getInput(i))
      return node.error("input " + std::to_string(i) + " is empty");
    inputs.push_back(node.getInput(i));
  }
  return node.setResult(node.create<EinsumOp>(
      ValueRange(inputs), node.getBuilder().getStringAttr(*equation)));
}

} // namespace

void populateMovementIndexImporters(OpImporterRegistry &registry) {
  registry.add("GatherElements", importGatherElements);
  registry.add("GatherND", importGatherND);
  registry.add("ScatterElements", importScatterElements);
  registry.add("Scatter", importScatterElements);
  registry.add("ScatterND", importScatterND);
  registry.add("TopK", importTopK);
  registry.add("ReverseSequence", importReverseSequence);
  registry.add("Resize", importResize);
  registry.add("Upsample", importUpsample);
  registry.add("Einsum", importEinsum);
}

} // namespace kiln::onnx_import
