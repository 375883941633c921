// Imports ONNX's convolutions and pools: Conv, ConvTranspose, MaxPool,
// AveragePool, GlobalAveragePool, GlobalMaxPool. `auto_pad` and
// `output_shape` become explicit pads here, so they need static spatial dims.
#include "ConvImportSupport.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/IR/WindowGeometry.h"

using namespace mlir;

namespace kiln::onnx_import {

llvm::Expected<llvm::SmallVector<int64_t>> getIntsOr(NodeImporter &node,
                                                     llvm::StringRef name,
                                                     size_t count,
                                                     int64_t defaultValue) {
  auto values = node.getInts(name);
  if (!values)
    return values.takeError();
  if (!*values)
    return llvm::SmallVector<int64_t>(count, defaultValue);
  if ((*values)->size() != count)
    return node.error("attribute '" + name + "' must have " +
                      std::to_string(count) + " values, got " +
                      std::to_string((*values)->size()));
  return **values;
}

llvm::Expected<std::string> getAutoPad(NodeImporter &node) {
  const onnx::AttributeProto *attribute = node.findAttribute("auto_pad");
  if (!attribute)
    return std::string("NOTSET");
  std::string value = attribute->s();
  if (value != "NOTSET" && value != "SAME_UPPER" && value != "SAME_LOWER" &&
      value != "VALID")
    return node.error("unsupported auto_pad '" + value + "'");
  return value;
}

llvm::Expected<RankedTensorType> getWindowInputType(NodeImporter &node,
                                                    size_t index) {
  auto type = dyn_cast<RankedTensorType>(node.getInput(index).getType());
  if (!type || type.getRank() < 3 || type.getRank() > 5)
    return node.error("input " + std::to_string(index) +
                      " must be ranked with 1 to 3 spatial dims");
  return type;
}

llvm::Expected<WindowAttributes>
readWindowAttributes(NodeImporter &node, RankedTensorType inputType,
                     llvm::ArrayRef<int64_t> kernel, bool ceilMode) {
  size_t k = inputType.getRank() - 2;
  WindowAttributes window;
  auto strides = getIntsOr(node, "strides", k, 1);
  if (!strides)
    return strides.takeError();
  auto dilations = getIntsOr(node, "dilations", k, 1);
  if (!dilations)
    return dilations.takeError();
  auto pads = getIntsOr(node, "pads", 2 * k, 0);
  if (!pads)
    return pads.takeError();
  auto autoPad = getAutoPad(node);
  if (!autoPad)
    return autoPad.takeError();
  window.strides = *strides;
  window.dilations = *dilations;
  window.pads = *pads;
  if (*autoPad == "VALID") {
    window.pads.assign(2 * k, 0);
  } else if (*autoPad != "NOTSET") {
    for (size_t i = 0; i < k; ++i) {
      int64_t in = inputType.getDimSize(2 + i);
      if (ShapedType::isDynamic(in) || ShapedType::isDynamic(kernel[i]))
        return node.error("auto_pad " + *autoPad +
                          " needs static spatial and kernel dims");
      if (window.strides[i] < 1)
        return node.error("strides must be >= 1");
      int64_t out = (in + window.strides[i] - 1) / window.strides[i];
      int64_t total = std::max<int64_t>(
          0, (out - 1) * window.strides[i] +
                 dilatedKernelSize(kernel[i], window.dilations[i]) - in);
      int64_t small = total / 2, large = total - small;
      window.pads[i] = *autoPad == "SAME_UPPER" ? small : large;
      window.pads[k + i] = *autoPad == "SAME_UPPER" ? large : small;
    }
  }
  (void)ceilMode;
  return window;
}

namespace {

/// The kernel's spatial dims: the `kernel_shape` attribute, else the
/// weight's dims.
llvm::Expected<SmallVector<int64_t>> getKernelShape(NodeImporter &node,
                                                    size_t k) {
  auto kernel = node.getInts("kernel_shape");
  if (!kernel)
    return kernel.takeError();
  if (*kernel) {
    if ((*kernel)->size() != k)
      return node.error("kernel_shape must have " + std::to_string(k) +
                        " values");
    return **kernel;
  }
  auto weightType = dyn_cast<RankedTensorType>(node.getInput(1).getType());
  if (!weightType || weightType.getRank() != int64_t(k) + 2)
    return node.error("weight must have rank " + std::to_string(k + 2));
  return SmallVector<int64_t>(weightType.getShape().drop_front(2));
}

llvm::Error importConv(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(2, 3))
    return error;
  auto inputType = getWindowInputType(node, 0);
  if (!inputType)
    return inputType.takeError();
  size_t k = inputType->getRank() - 2;
  auto kernel = getKernelShape(node, k);
  if (!kernel)
    return kernel.takeError();
  auto window = readWindowAttributes(node, *inputType, *kernel, false);
  if (!window)
    return window.takeError();
  auto group = node.getInt("group", 1);
  if (!group)
    return group.takeError();
  return node.setResult(createConv(node, node.getInput(0), node.getInput(1),
                                   node.getInput(2), *window, *group));
}

llvm::Expected<Value> createConvImpl(NodeImporter &node, Value input,
                                     Value weight, Value bias,
                                     const WindowAttributes &window,
                                     int64_t group) {
  OpBuilder &b = node.getBuilder();
  return node.create<ConvOp>(
      input, weight, bias, b.getDenseI64ArrayAttr(window.strides),
      b.getDenseI64ArrayAttr(window.pads),
      b.getDenseI64ArrayAttr(window.dilations), b.getI64IntegerAttr(group),
      /*layout=*/StringAttr());
}

/// ConvTranspose: `output_shape` (spatial, or with N and C) or SAME auto_pad
/// fix the total padding per dim, split as the ONNX reference does.
llvm::Error importConvTranspose(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(2, 3))
    return error;
  auto inputType = getWindowInputType(node, 0);
  if (!inputType)
    return inputType.takeError();
  size_t k = inputType->getRank() - 2;
  auto kernel = getKernelShape(node, k);
  if (!kernel)
    return kernel.takeError();
  auto strides = getIntsOr(node, "strides", k, 1);
  if (!strides)
    return strides.takeError();
  auto dilations = getIntsOr(node, "dilations", k, 1);
  if (!dilations)
    return dilations.takeError();
  auto pads = getIntsOr(node, "pads", 2 * k, 0);
  if (!pads)
    return pads.takeError();
  auto outputPadding = getIntsOr(node, "output_padding", k, 0);
  if (!outputPadding)
    return outputPadding.takeError();
  auto autoPad = getAutoPad(node);
  if (!autoPad)
    return autoPad.takeError();
  auto group = node.getInt("group", 1);
  if (!group)
    return group.takeError();
  auto outputShape = node.getInts("output_shape");
  if (!outputShape)
    return outputShape.takeError();
  bool same = *autoPad == "SAME_UPPER" || *autoPad == "SAME_LOWER";
  if (*autoPad == "VALID")
    pads->assign(2 * k, 0);
  if (*outputShape || same) {
    SmallVector<int64_t> target;
    if (*outputShape) {
      target = **outputShape;
      if (target.size() == k + 2)
        target.erase(target.begin(), target.begin() + 2);
      if (target.size() != k)
        return node.error("output_shape must have " + std::to_string(k) +
                          " spatial values");
    }
    for (size_t i = 0; i < k; ++i) {
      int64_t in = inputType->getDimSize(2 + i);
      if (ShapedType::isDynamic(in) || ShapedType::isDynamic((*kernel)[i]))
        return node.error("output_shape and auto_pad need static spatial and "
                          "kernel dims");
      int64_t out = *outputShape ? target[i] : in * (*strides)[i];
      int64_t total = (*strides)[i] * (in - 1) + (*outputPadding)[i] +
                      dilatedKernelSize((*kernel)[i], (*dilations)[i]) - out;
      // Floor division, as the ONNX reference splits a negative total.
      int64_t half = total >= 0 ? total / 2 : -((1 - total) / 2);
      bool upper = *autoPad == "SAME_UPPER";
      (*pads)[i] = upper ? half : total - half;
      (*pads)[k + i] = upper ? total - half : half;
    }
  }
  OpBuilder &b = node.getBuilder();
  return node.setResult(node.create<ConvTransposeOp>(
      node.getInput(0), node.getInput(1), node.getInput(2),
      b.getDenseI64ArrayAttr(*strides), b.getDenseI64ArrayAttr(*pads),
      b.getDenseI64ArrayAttr(*dilations),
      b.getDenseI64ArrayAttr(*outputPadding), b.getI64IntegerAttr(*group)));
}

/// A pool's window, as the attributes MaxPool and AveragePool ops take.
struct PoolAttributes {
  DenseI64ArrayAttr kernel, strides, pads, dilations;
  BoolAttr ceilMode;
};

/// The single input and the window attributes shared by MaxPool and
/// AveragePool.
llvm::Expected<PoolAttributes> readPoolAttributes(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(1, 1))
    return std::move(error);
  auto inputType = getWindowInputType(node, 0);
  if (!inputType)
    return inputType.takeError();
  size_t k = inputType->getRank() - 2;
  PoolAttributes pool;
  auto kernel = node.getInts("kernel_shape");
  if (!kernel)
    return kernel.takeError();
  if (!*kernel || (*kernel)->size() != k)
    return node.error("kernel_shape must have " + std::to_string(k) +
                      " values");
  auto ceilMode = node.getInt("ceil_mode", 0);
  if (!ceilMode)
    return ceilMode.takeError();
  auto window = readWindowAttributes(node, *inputType, **kernel, *ceilMode != 0);
  if (!window)
    return window.takeError();
  OpBuilder &b = node.getBuilder();
  pool.kernel = b.getDenseI64ArrayAttr(**kernel);
  pool.strides = b.getDenseI64ArrayAttr(window->strides);
  pool.pads = b.getDenseI64ArrayAttr(window->pads);
  pool.dilations = b.getDenseI64ArrayAttr(window->dilations);
  pool.ceilMode = b.getBoolAttr(*ceilMode != 0);
  return pool;
}

/// MaxPool: the optional second output (Indices) is kiln.max_pool_indices.
llvm::Error importMaxPool(NodeImporter &node) {
  auto pool = readPoolAttributes(node);
  if (!pool)
    return pool.takeError();
  auto storageOrder = node.getInt("storage_order", 0);
  if (!storageOrder)
    return storageOrder.takeError();
  if (llvm::Error error = node.setResult(node.create<MaxPoolOp>(
          node.getInput(0), pool->kernel, pool->strides, pool->pads,
          pool->dilations, pool->ceilMode, /*layout=*/StringAttr())))
    return error;
  if (!node.isOutputUsed(1))
    return llvm::Error::success();
  auto indices = node.create<MaxPoolIndicesOp>(
      node.getInput(0), pool->kernel, pool->strides, pool->pads,
      pool->dilations, pool->ceilMode,
      node.getBuilder().getI64IntegerAttr(*storageOrder));
  if (!indices)
    return indices.takeError();
  node.setOutput(1, *indices);
  return llvm::Error::success();
}

llvm::Error importAveragePool(NodeImporter &node) {
  auto pool = readPoolAttributes(node);
  if (!pool)
    return pool.takeError();
  auto countIncludePad = node.getInt("count_include_pad", 0);
  if (!countIncludePad)
    return countIncludePad.takeError();
  return node.setResult(node.create<AveragePoolOp>(
      node.getInput(0), pool->kernel, pool->strides, pool->pads,
      pool->dilations, pool->ceilMode,
      node.getBuilder().getBoolAttr(*countIncludePad != 0),
      /*layout=*/StringAttr()));
}

/// GlobalAveragePool / GlobalMaxPool -> reduce_mean / reduce_max over the
/// spatial dims, keeping them as size 1.
template <typename ReduceOpT> llvm::Error importGlobalPool(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(1, 1))
    return error;
  auto type = dyn_cast<RankedTensorType>(node.getInput(0).getType());
  if (!type || type.getRank() < 3)
    return node.error("input must be ranked with at least one spatial dim");
  SmallVector<int64_t> axes;
  for (int64_t i = 2; i < type.getRank(); ++i)
    axes.push_back(i);
  OpBuilder &b = node.getBuilder();
  return node.setResult(
      node.create<ReduceOpT>(node.getInput(0), node.createIntegerConstant(axes),
                             b.getBoolAttr(true), b.getBoolAttr(false)));
}

} // namespace

llvm::Expected<Value> createConv(NodeImporter &node, Value input, Value weight,
                                 Value bias, const WindowAttributes &window,
                                 int64_t group) {
  return createConvImpl(node, input, weight, bias, window, group);
}

void populateConvImporters(OpImporterRegistry &registry) {
  registry.add("Conv", importConv);
  registry.add("ConvTranspose", importConvTranspose);
  registry.add("MaxPool", importMaxPool);
  registry.add("AveragePool", importAveragePool);
  registry.add("GlobalAveragePool", importGlobalPool<ReduceMeanOp>);
  registry.add("GlobalMaxPool", importGlobalPool<ReduceMaxOp>);
}

} // namespace kiln::onnx_import
