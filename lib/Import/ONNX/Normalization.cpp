// Imports ONNX's derived reductions (ReduceL1/L2/SumSquare/LogSum, decomposed
// exactly into kiln.reduce_sum), ArgMax/ArgMin, LogSoftmax, Hardmax, CumSum,
// the normalisations and the two losses.
#include "AlongAxis.h"
#include "NodeImporter.h"
#include "ReduceImport.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"

using namespace mlir;

namespace kiln::onnx_import {
namespace {

/// A 0-D float constant of |element| type.
Value createScalar(NodeImporter &node, Type element, double value) {
  auto type = RankedTensorType::get({}, element);
  auto attribute = DenseElementsAttr::get(type, FloatAttr::get(element, value));
  return node.getBuilder().create<ConstantOp>(node.getLoc(),
                                              cast<ElementsAttr>(attribute));
}

/// A STRING attribute, or |defaultValue| when absent.
llvm::Expected<std::string> getString(NodeImporter &node, StringRef name,
                                      StringRef defaultValue) {
  const onnx::AttributeProto *attribute = node.findAttribute(name);
  if (!attribute)
    return defaultValue.str();
  if (attribute->type() != onnx::AttributeProto::STRING)
    return node.error("attribute '" + name + "' must be a STRING, got " +
                      node.getAttributeKindName(name));
  return attribute->s();
}

enum class DerivedReduction { L1, L2, SumSquare, LogSum };

/// ReduceL1 = sum(|x|), ReduceL2 = sqrt(sum(x*x)), ReduceSumSquare =
/// sum(x*x), ReduceLogSum = log(sum(x)): each is kiln.reduce_sum with the
/// same axes/keepdims/noop flags between pointwise ops, which is exactly the
/// ONNX definition (including noop_with_empty_axes and empty reductions).
template <DerivedReduction kind>
llvm::Error importDerivedReduction(NodeImporter &node) {
  llvm::Expected<ReduceOperands> reduce = readReduceOperands(node, 18);
  if (!reduce)
    return reduce.takeError();
  Value data = node.getInput(0);
  Value summand = data;
  if (kind != DerivedReduction::LogSum) {
    llvm::Expected<Value> term = kind == DerivedReduction::L1
                                     ? node.create<AbsOp>(data)
                                     : node.create<MulOp>(data, data);
    if (!term)
      return term.takeError();
    summand = *term;
  }
  llvm::Expected<Value> sum = node.create<ReduceSumOp>(
      summand, reduce->axes, reduce->keepDims, reduce->noopWithEmptyAxes);
  if (!sum)
    return sum.takeError();
  if (kind == DerivedReduction::L2)
    return node.setResult(node.create<SqrtOp>(*sum));
  if (kind == DerivedReduction::LogSum)
    return node.setResult(node.create<LogOp>(*sum));
  return node.setResult(*sum);
}

template <typename OpTy> llvm::Error importArgReduce(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(1, 1))
    return error;
  llvm::Expected<int64_t> axis = node.getInt("axis", 0);
  llvm::Expected<int64_t> keepDims = node.getInt("keepdims", 1);
  llvm::Expected<int64_t> last = node.getInt("select_last_index", 0);
  if (!axis)
    return axis.takeError();
  if (!keepDims)
    return keepDims.takeError();
  if (!last)
    return last.takeError();
  OpBuilder &b = node.getBuilder();
  return node.setResult(node.create<OpTy>(
      node.getInput(0), b.getI64IntegerAttr(*axis),
      b.getBoolAttr(*keepDims != 0), b.getBoolAttr(*last != 0)));
}


llvm::Error importCumSum(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(2, 2))
    return error;
  llvm::Expected<int64_t> exclusive = node.getInt("exclusive", 0);
  llvm::Expected<int64_t> reverse = node.getInt("reverse", 0);
  if (!exclusive)
    return exclusive.takeError();
  if (!reverse)
    return reverse.takeError();
  OpBuilder &b = node.getBuilder();
  return node.setResult(node.create<CumSumOp>(
      node.getInput(0), node.getInput(1), b.getBoolAttr(*exclusive != 0),
      b.getBoolAttr(*reverse != 0)));
}

/// LayerNormalization: Y is kiln.layer_norm; the optional Mean and InvStdDev
/// outputs are fp32 statistics over dims axis.. computed with reductions.
llvm::Error importLayerNormalization(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(2, 3))
    return error;
  llvm::Expected<int64_t> axisAttr = node.getInt("axis", -1);
  llvm::Expected<float> epsilon = node.getFloat("epsilon", 1e-5f);
  llvm::Expected<int64_t> stashType = node.getInt("stash_type", 1);
  if (!axisAttr)
    return axisAttr.takeError();
  if (!epsilon)
    return epsilon.takeError();
  if (!stashType)
    return stashType.takeError();
  if (*stashType != onnx::TensorProto::FLOAT)
    return node.error("stash_type " + std::to_string(*stashType) +
                      " is not supported (only 1, float)");
  OpBuilder &b = node.getBuilder();
  Value input = node.getInput(0);
  llvm::Expected<Value> y = node.create<LayerNormOp>(
      input, node.getInput(1), node.getInput(2), b.getI64IntegerAttr(*axisAttr),
      b.getF32FloatAttr(*epsilon));
  if (!y)
    return y.takeError();
  node.setOutput(0, *y);
  if (!node.isOutputUsed(1) && !node.isOutputUsed(2))
    return llvm::Error::success();

  auto type = dyn_cast<RankedTensorType>(input.getType());
  if (!type)
    return node.error("the Mean/InvStdDev outputs need an input of known rank");
  int64_t rank = type.getRank();
  llvm::Expected<int64_t> axis = node.getAxis("axis", -1, rank);
  if (!axis)
    return axis.takeError();
  SmallVector<int64_t> axesList;
  for (int64_t i = *axis; i < rank; ++i)
    axesList.push_back(i);
  Value axes = node.createIntegerConstant(axesList);
  Type f32 = b.getF32Type();
  Value x = input;
  if (type.getElementType() != f32) {
    llvm::Expected<Value> cast = node.create<CastOp>(input, TypeAttr::get(f32));
    if (!cast)
      return cast.takeError();
    x = *cast;
  }
  auto reduceMean = [&](Value value) {
    return node.create<ReduceMeanOp>(value, axes, b.getBoolAttr(true),
                                     b.getBoolAttr(false));
  };
  llvm::Expected<Value> mean = reduceMean(x);
  if (!mean)
    return mean.takeError();
  node.setOutput(1, *mean);
  llvm::Expected<Value> centred = node.create<SubOp>(x, *mean);
  if (!centred)
    return centred.takeError();
  llvm::Expected<Value> squared = node.create<MulOp>(*centred, *centred);
  if (!squared)
    return squared.takeError();
  llvm::Expected<Value> variance = reduceMean(*squared);
  if (!variance)
    return variance.takeError();
  llvm::Expected<Value> shifted =
      node.create<AddOp>(*variance, createScalar(node, f32, *epsilon));
  if (!shifted)
    return shifted.takeError();
  llvm::Expected<Value> deviation = node.create<SqrtOp>(*shifted);
  if (!deviation)
    return deviation.takeError();
  llvm::Expected<Value> inverse = node.create<ReciprocalOp>(*deviation);
  if (!inverse)
    return inverse.takeError();
  node.setOutput(2, *inverse);
  return llvm::Error::success();
}

llvm::Error importInstanceNormalization(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(3, 3))
    return error;
  llvm::Expected<float> epsilon = node.getFloat("epsilon", 1e-5f);
  if (!epsilon)
    return epsilon.takeError();
  return node.setResult(node.create<InstanceNormOp>(
      node.getInput(0), node.getInput(1), node.getInput(2),
      node.getBuilder().getF32FloatAttr(*epsilon)));
}

/// BatchNormalization in inference mode; training mode (opset 14's
/// training_mode, or is_test = 0 before opset 7) and the running-statistics
/// outputs are rejected, as is the per-activation form (spatial = 0).
llvm::Error importBatchNormalization(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(5, 5))
    return error;
  llvm::Expected<float> epsilon = node.getFloat("epsilon", 1e-5f);
  llvm::Expected<int64_t> training = node.getInt("training_mode", 0);
  llvm::Expected<int64_t> isTest = node.getInt("is_test", 1);
  llvm::Expected<int64_t> spatial = node.getInt("spatial", 1);
  if (!epsilon)
    return epsilon.takeError();
  if (!training)
    return training.takeError();
  if (!isTest)
    return isTest.takeError();
  if (!spatial)
    return spatial.takeError();
  if (*training != 0 || (node.getOpset() < 7 && *isTest == 0))
    return node.error("training mode is not supported (kiln compiles "
                      "inference only)");
  if (*spatial == 0)
    return node.error("spatial = 0 is not supported");
  for (size_t i = 1; i < node.getOutputCount(); ++i)
    if (node.isOutputUsed(i))
      return node.error("output " + std::to_string(i) +
                        " (a training statistic) is not supported");
  return node.setResult(node.create<BatchNormOp>(
      node.getInput(0), node.getInput(1), node.getInput(2), node.getInput(3),
      node.getInput(4), node.getBuilder().getF32FloatAttr(*epsilon)));
}

/// MeanVarianceNormalization as its ONNX function body: (x - E[x]) /
/// (sqrt(E[x^2] - E[x]^2) + 1e-9), the means over `axes` (default [0,2,3]).
llvm::Error importMeanVarianceNormalization(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(1, 1))
    return error;
  auto axesAttribute = node.getInts("axes");
  if (!axesAttribute)
    return axesAttribute.takeError();
  SmallVector<int64_t> axesList =
      *axesAttribute ? **axesAttribute : SmallVector<int64_t>{0, 2, 3};
  OpBuilder &b = node.getBuilder();
  Value x = node.getInput(0);
  Value axes = node.createIntegerConstant(axesList);
  auto reduceMean = [&](Value value) {
    return node.create<ReduceMeanOp>(value, axes, b.getBoolAttr(true),
                                     b.getBoolAttr(false));
  };
  llvm::Expected<Value> mean = reduceMean(x);
  if (!mean)
    return mean.takeError();
  llvm::Expected<Value> meanSquared = node.create<MulOp>(*mean, *mean);
  llvm::Expected<Value> squared = node.create<MulOp>(x, x);
  if (!meanSquared)
    return meanSquared.takeError();
  if (!squared)
    return squared.takeError();
  llvm::Expected<Value> meanOfSquares = reduceMean(*squared);
  if (!meanOfSquares)
    return meanOfSquares.takeError();
  llvm::Expected<Value> variance =
      node.create<SubOp>(*meanOfSquares, *meanSquared);
  if (!variance)
    return variance.takeError();
  llvm::Expected<Value> deviation = node.create<SqrtOp>(*variance);
  if (!deviation)
    return deviation.takeError();
  Type element = cast<TensorType>(x.getType()).getElementType();
  llvm::Expected<Value> denominator =
      node.create<AddOp>(*deviation, createScalar(node, element, 1e-9));
  llvm::Expected<Value> centred = node.create<SubOp>(x, *mean);
  if (!denominator)
    return denominator.takeError();
  if (!centred)
    return centred.takeError();
  return node.setResult(node.create<DivOp>(*centred, *denominator));
}

llvm::Error importLRN(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(1, 1))
    return error;
  llvm::Expected<int64_t> size = node.getInt("size");
  llvm::Expected<float> alpha = node.getFloat("alpha", 1e-4f);
  llvm::Expected<float> beta = node.getFloat("beta", 0.75f);
  llvm::Expected<float> bias = node.getFloat("bias", 1.0f);
  if (!size)
    return size.takeError();
  if (!alpha)
    return alpha.takeError();
  if (!beta)
    return beta.takeError();
  if (!bias)
    return bias.takeError();
  OpBuilder &b = node.getBuilder();
  return node.setResult(node.create<LRNOp>(
      node.getInput(0), b.getI64IntegerAttr(*size), b.getF32FloatAttr(*alpha),
      b.getF32FloatAttr(*beta), b.getF32FloatAttr(*bias)));
}

/// The shared attributes of the two losses.
llvm::Expected<std::pair<StringAttr, IntegerAttr>>
getLossAttributes(NodeImporter &node) {
  llvm::Expected<std::string> reduction = getString(node, "reduction", "mean");
  if (!reduction)
    return reduction.takeError();
  if (*reduction != "none" && *reduction != "sum" && *reduction != "mean")
    return node.error("reduction must be none, sum or mean, got '" +
                      *reduction + "'");
  OpBuilder &b = node.getBuilder();
  IntegerAttr ignoreIndex;
  if (node.hasAttribute("ignore_index")) {
    llvm::Expected<int64_t> value = node.getInt("ignore_index");
    if (!value)
      return value.takeError();
    ignoreIndex = b.getI64IntegerAttr(*value);
  }
  return std::make_pair(b.getStringAttr(*reduction), ignoreIndex);
}

llvm::Error importNegativeLogLikelihoodLoss(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(2, 3))
    return error;
  auto attributes = getLossAttributes(node);
  if (!attributes)
    return attributes.takeError();
  return node.setResult(node.create<NLLLossOp>(
      node.getInput(0), node.getInput(1), node.getInput(2), attributes->first,
      attributes->second));
}

/// SoftmaxCrossEntropyLoss = nll_loss(log_softmax(scores, axis 1), labels),
/// as in its ONNX function body; the log_prob output is the log_softmax.
llvm::Error importSoftmaxCrossEntropyLoss(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(2, 3))
    return error;
  auto attributes = getLossAttributes(node);
  if (!attributes)
    return attributes.takeError();
  llvm::Expected<Value> logProb = node.create<LogSoftmaxOp>(
      node.getInput(0), node.getBuilder().getI64IntegerAttr(1));
  if (!logProb)
    return logProb.takeError();
  if (node.getOutputCount() > 1)
    node.setOutput(1, *logProb);
  return node.setResult(
      node.create<NLLLossOp>(*logProb, node.getInput(1), node.getInput(2),
                             attributes->first, attributes->second));
}

} // namespace

void populateNormalizationImporters(OpImporterRegistry &registry) {
  registry.add("ReduceL1", importDerivedReduction<DerivedReduction::L1>);
  registry.add("ReduceL2", importDerivedReduction<DerivedReduction::L2>);
  registry.add("ReduceSumSquare",
               importDerivedReduction<DerivedReduction::SumSquare>);
  registry.add("ReduceLogSum",
               importDerivedReduction<DerivedReduction::LogSum>);
  registry.add("ArgMax", importArgReduce<ArgMaxOp>);
  registry.add("ArgMin", importArgReduce<ArgMinOp>);
  registry.add("LogSoftmax", importAlongAxis<LogSoftmaxOp>);
  registry.add("Hardmax", importAlongAxis<HardmaxOp>);
  registry.add("CumSum", importCumSum);
  registry.add("LayerNormalization", importLayerNormalization);
  registry.add("InstanceNormalization", importInstanceNormalization);
  registry.add("BatchNormalization", importBatchNormalization);
  registry.add("MeanVarianceNormalization", importMeanVarianceNormalization);
  registry.add("LRN", importLRN);
  registry.add("NegativeLogLikelihoodLoss", importNegativeLogLikelihoodLoss);
  registry.add("SoftmaxCrossEntropyLoss", importSoftmaxCrossEntropyLoss);
}

} // namespace kiln::onnx_import
