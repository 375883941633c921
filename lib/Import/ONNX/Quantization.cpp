// Imports ONNX's quantisation ops: QuantizeLinear and DequantizeLinear become
// kiln ops; DynamicQuantizeLinear, MatMulInteger, ConvInteger, QLinearMatMul
// and QLinearConv are decomposed into kiln ops with the ONNX reference's
// arithmetic (int32 products, f32 scale ratio, f64 requantisation).
#include "ConvImportSupport.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

using namespace mlir;

namespace kiln::onnx_import {
namespace {

/// A constant of |type| (a scalar when |shape| is empty) filled with |value|.
Value createSplat(NodeImporter &node, Type element, ArrayRef<int64_t> shape,
                  double value) {
  auto type = RankedTensorType::get(shape, element);
  Attribute scalar =
      isa<FloatType>(element)
          ? Attribute(FloatAttr::get(element, value))
          : Attribute(IntegerAttr::get(element, static_cast<int64_t>(value)));
  return node.getBuilder().create<ConstantOp>(
      node.getLoc(), cast<ElementsAttr>(DenseElementsAttr::get(type, scalar)));
}

/// The zero point input |index|, or a zero of |element| shaped like |scale|.
llvm::Expected<Value> getZeroPoint(NodeImporter &node, size_t index,
                                   Value scale, Type element) {
  if (Value zero = node.getInput(index))
    return zero;
  auto scaleType = dyn_cast<RankedTensorType>(scale.getType());
  if (!scaleType || !scaleType.hasStaticShape())
    return node.error("an absent zero point needs a scale of static shape");
  return createSplat(node, element, scaleType.getShape(), 0);
}

llvm::Error checkNoBlocks(NodeImporter &node) {
  auto blockSize = node.getInt("block_size", 0);
  if (!blockSize)
    return blockSize.takeError();
  if (*blockSize != 0)
    return node.error("blocked quantisation (block_size " +
                      std::to_string(*blockSize) + ") is not supported");
  return llvm::Error::success();
}

llvm::Error importQuantizeLinear(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(2, 3))
    return error;
  if (llvm::Error error = checkNoBlocks(node))
    return error;
  auto axis = node.getInt("axis", 1);
  if (!axis)
    return axis.takeError();
  auto outputType = node.getInt("output_dtype", 0);
  if (!outputType)
    return outputType.takeError();
  OpBuilder &b = node.getBuilder();
  Type element = b.getIntegerType(8, /*isSigned=*/false);
  if (*outputType == onnx::TensorProto::INT8)
    element = b.getIntegerType(8);
  else if (*outputType != 0 && *outputType != onnx::TensorProto::UINT8)
    return node.error("output_dtype " + std::to_string(*outputType) +
                      " is not supported (only int8 and uint8)");
  auto zero = getZeroPoint(node, 2, node.getInput(1), element);
  if (!zero)
    return zero.takeError();
  return node.setResult(node.create<QuantizeLinearOp>(
      node.getInput(0), node.getInput(1), *zero, b.getI64IntegerAttr(*axis)));
}

llvm::Error importDequantizeLinear(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(2, 3))
    return error;
  if (llvm::Error error = checkNoBlocks(node))
    return error;
  auto axis = node.getInt("axis", 1);
  if (!axis)
    return axis.takeError();
  auto zero =
      getZeroPoint(node, 2, node.getInput(1), node.getInputElementType(0));
  if (!zero)
    return zero.takeError();
  return node.setResult(node.create<DequantizeLinearOp>(
      node.getInput(0), node.getInput(1), *zero,
      node.getBuilder().getI64IntegerAttr(*axis)));
}

/// DynamicQuantizeLinear (uint8):
///   max0 = relu(reduce_max(x)), negMin0 = relu(reduce_max(-x))  (0 included)
///   scale = (max0 + negMin0) / 255
///   zero = quantize_linear(negMin0, scale, 0)  (= sat(round(0 - min0/scale)))
///   y = quantize_linear(x, scale, zero)
llvm::Error importDynamicQuantizeLinear(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(1, 1))
    return error;
  OpBuilder &b = node.getBuilder();
  Value x = node.getInput(0);
  Type element = node.getInputElementType(0);
  auto reduceMax = [&](Value v) {
    return node.create<ReduceMaxOp>(v, Value(), b.getBoolAttr(false),
                                    b.getBoolAttr(false));
  };
  auto max = reduceMax(x);
  if (!max)
    return max.takeError();
  auto negX = node.create<NegOp>(x);
  if (!negX)
    return negX.takeError();
  auto negMin = reduceMax(*negX);
  if (!negMin)
    return negMin.takeError();
  auto max0 = node.create<ReluOp>(*max);
  if (!max0)
    return max0.takeError();
  auto negMin0 = node.create<ReluOp>(*negMin);
  if (!negMin0)
    return negMin0.takeError();
  auto range = node.create<AddOp>(*max0, *negMin0);
  if (!range)
    return range.takeError();
  auto scale = node.create<DivOp>(*range, createSplat(node, element, {}, 255));
  if (!scale)
    return scale.takeError();
  Type u8 = b.getIntegerType(8, /*isSigned=*/false);
  auto axis = b.getI64IntegerAttr(1);
  auto zero = node.create<QuantizeLinearOp>(*negMin0, *scale,
                                            createSplat(node, u8, {}, 0), axis);
  if (!zero)
    return zero.takeError();
  auto y = node.create<QuantizeLinearOp>(x, *scale, *zero, axis);
  if (!y)
    return y.takeError();
  node.setOutput(0, *y);
  node.setOutput(1, *scale);
  node.setOutput(2, *zero);
  return llvm::Error::success();
}

/// cast(v, i32) - cast(zero, i32), with a 1-D zero point reshaped so that it
/// applies along dim |zeroAxis| of a rank-|rank| value (no reshape when
/// |zeroAxis| is the last dim).
llvm::Expected<Value> subtractZeroPoint(NodeImporter &node, Value v, Value zero,
                                        int64_t zeroAxis) {
  OpBuilder &b = node.getBuilder();
  Type i32 = b.getIntegerType(32);
  auto wide = node.create<CastOp>(v, TypeAttr::get(i32));
  if (!wide || !zero)
    return wide;
  auto wideZero = node.create<CastOp>(zero, TypeAttr::get(i32));
  if (!wideZero)
    return wideZero.takeError();
  Value z = *wideZero;
  auto zeroType = dyn_cast<RankedTensorType>(z.getType());
  auto vType = dyn_cast<RankedTensorType>(v.getType());
  if (!zeroType || !vType)
    return node.error("operands must be ranked");
  if (zeroType.getRank() == 1 && zeroAxis >= 0 &&
      zeroAxis != vType.getRank() - 1) {
    SmallVector<int64_t> axes;
    for (int64_t i = zeroAxis + 1; i < vType.getRank(); ++i)
      axes.push_back(i - zeroAxis);
    auto reshaped =
        node.create<UnsqueezeOp>(z, node.createIntegerConstant(axes));
    if (!reshaped)
      return reshaped.takeError();
    z = *reshaped;
  }
  return node.create<SubOp>(*wide, z);
}

/// matmul(a - a_zero, b - b_zero) in i32; a's zero point is per row (dim -2).
llvm::Expected<Value> createMatMulInteger(NodeImporter &node, Value a, Value b,
                                          Value aZero, Value bZero) {
  auto aType = dyn_cast<RankedTensorType>(a.getType());
  if (!aType)
    return node.error("A must be ranked");
  auto lhs = subtractZeroPoint(node, a, aZero, aType.getRank() - 2);
  if (!lhs)
    return lhs.takeError();
  auto rhs = subtractZeroPoint(node, b, bZero, -1);
  if (!rhs)
    return rhs.takeError();
  return node.create<MatMulOp>(*lhs, *rhs);
}

llvm::Error importMatMulInteger(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(2, 4))
    return error;
  return node.setResult(createMatMulInteger(node, node.getInput(0),
                                            node.getInput(1), node.getInput(2),
                                            node.getInput(3)));
}

/// conv(x - x_zero, w - w_zero (per output channel), bias) in i32.
llvm::Expected<Value> createConvInteger(NodeImporter &node, Value x, Value w,
                                        Value xZero, Value wZero, Value bias) {
  auto inputType = getWindowInputType(node, 0);
  if (!inputType)
    return inputType.takeError();
  auto weightType = dyn_cast<RankedTensorType>(w.getType());
  if (!weightType || weightType.getRank() != inputType->getRank())
    return node.error("weight must have the input's rank");
  auto window = readWindowAttributes(
      node, *inputType, weightType.getShape().drop_front(2), false);
  if (!window)
    return window.takeError();
  auto group = node.getInt("group", 1);
  if (!group)
    return group.takeError();
  auto lhs = subtractZeroPoint(node, x, xZero, -1);
  if (!lhs)
    return lhs.takeError();
  auto rhs = subtractZeroPoint(node, w, wZero, 0);
  if (!rhs)
    return rhs.takeError();
  return createConv(node, *lhs, *rhs, bias, *window, *group);
}

llvm::Error importConvInteger(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(2, 4))
    return error;
  return node.setResult(createConvInteger(node, node.getInput(0),
                                          node.getInput(1), node.getInput(2),
                                          node.getInput(3), Value()));
}

/// quantize_linear(f64(acc) * f64(in_scale * w_scale / y_scale), 1, y_zero):
/// the reference multiplies the int32 accumulator by the f32 ratio in f64.
llvm::Expected<Value> requantize(NodeImporter &node, Value acc, Value inScale,
                                 Value wScale, Value yScale, Value yZero,
                                 int64_t wScaleAxis) {
  OpBuilder &b = node.getBuilder();
  Value scale = wScale;
  auto wScaleType = dyn_cast<RankedTensorType>(wScale.getType());
  auto accType = dyn_cast<RankedTensorType>(acc.getType());
  if (!wScaleType || !accType)
    return node.error("operands must be ranked");
  if (wScaleType.getRank() == 1 && wScaleAxis != accType.getRank() - 1) {
    SmallVector<int64_t> axes;
    for (int64_t i = wScaleAxis + 1; i < accType.getRank(); ++i)
      axes.push_back(i - wScaleAxis);
    auto reshaped =
        node.create<UnsqueezeOp>(wScale, node.createIntegerConstant(axes));
    if (!reshaped)
      return reshaped.takeError();
    scale = *reshaped;
  }
  auto product = node.create<MulOp>(inScale, scale);
  if (!product)
    return product.takeError();
  auto ratio = node.create<DivOp>(*product, yScale);
  if (!ratio)
    return ratio.takeError();
  Type f64 = b.getF64Type();
  auto wideRatio = node.create<CastOp>(*ratio, TypeAttr::get(f64));
  if (!wideRatio)
    return wideRatio.takeError();
  auto wideAcc = node.create<CastOp>(acc, TypeAttr::get(f64));
  if (!wideAcc)
    return wideAcc.takeError();
  auto real = node.create<MulOp>(*wideAcc, *wideRatio);
  if (!real)
    return real.takeError();
  return node.create<QuantizeLinearOp>(*real, createSplat(node, f64, {}, 1.0),
                                       yZero, b.getI64IntegerAttr(1));
}

llvm::Error importQLinearMatMul(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(8, 8))
    return error;
  auto acc = createMatMulInteger(node, node.getInput(0), node.getInput(3),
                                 node.getInput(2), node.getInput(5));
  if (!acc)
    return acc.takeError();
  // a_scale may be per row: make it broadcast like a's zero point.
  Value aScale = node.getInput(1);
  auto aScaleType = dyn_cast<RankedTensorType>(aScale.getType());
  if (aScaleType && aScaleType.getRank() == 1 &&
      aScaleType.getDimSize(0) != 1) {
    auto reshaped =
        node.create<UnsqueezeOp>(aScale, node.createIntegerConstant({1}));
    if (!reshaped)
      return reshaped.takeError();
    aScale = *reshaped;
  }
  auto accType = cast<RankedTensorType>(acc->getType());
  return node.setResult(requantize(node, *acc, aScale, node.getInput(4),
                                   node.getInput(6), node.getInput(7),
                                   accType.getRank() - 1));
}

llvm::Error importQLinearConv(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(8, 9))
    return error;
  auto acc =
      createConvInteger(node, node.getInput(0), node.getInput(3),
                        node.getInput(2), node.getInput(5), node.getInput(8));
  if (!acc)
    return acc.takeError();
  return node.setResult(requantize(node, *acc, node.getInput(1),
                                   node.getInput(4), node.getInput(6),
                                   node.getInput(7), /*wScaleAxis=*/1));
}

} // namespace

void populateQuantizationImporters(OpImporterRegistry &registry) {
  registry.add("QuantizeLinear", importQuantizeLinear);
  registry.add("DequantizeLinear", importDequantizeLinear);
  registry.add("DynamicQuantizeLinear", importDynamicQuantizeLinear);
  registry.add("MatMulInteger", importMatMulInteger);
  registry.add("ConvInteger", importConvInteger);
  registry.add("QLinearMatMul", importQLinearMatMul);
  registry.add("QLinearConv", importQLinearConv);
}

} // namespace kiln::onnx_import
