// Imports ONNX's elementwise math and logic ops: trigonometry, rounding,
// activations with attributes, Mod, logic, BitShift, variadic Max/Min/Sum/Mean
// (as chains of binary ops), Clip (attribute and input forms) and CastLike.
#include "ElementwiseImport.h"
#include "NodeImporter.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include <limits>

using namespace mlir;

namespace kiln::onnx_import {
namespace {

/// Activations whose float attributes map one-to-one onto the op's
/// attributes, given as (ONNX name, default) pairs in the op's order.
template <typename OpTy, size_t N>
llvm::Error
importActivation(NodeImporter &node,
                 const std::pair<const char *, float> (&params)[N]) {
  if (llvm::Error error = node.checkInputCount(1, 1))
    return error;
  SmallVector<FloatAttr, 2> attrs;
  for (const auto &[name, defaultValue] : params) {
    llvm::Expected<float> value = node.getFloat(name, defaultValue);
    if (!value)
      return value.takeError();
    attrs.push_back(node.getBuilder().getF32FloatAttr(*value));
  }
  if constexpr (N == 1)
    return node.setResult(node.create<OpTy>(node.getInput(0), attrs[0]));
  else
    return node.setResult(
        node.create<OpTy>(node.getInput(0), attrs[0], attrs[1]));
}

llvm::Error importElu(NodeImporter &node) {
  return importActivation<EluOp>(node, {{"alpha", 1.0f}});
}
llvm::Error importSelu(NodeImporter &node) {
  return importActivation<SeluOp>(node,
                                  {{"alpha", 1.67326319217681884765625f},
                                   {"gamma", 1.05070102214813232421875f}});
}
llvm::Error importCelu(NodeImporter &node) {
  return importActivation<CeluOp>(node, {{"alpha", 1.0f}});
}
llvm::Error importLeakyRelu(NodeImporter &node) {
  return importActivation<LeakyReluOp>(node, {{"alpha", 0.01f}});
}
llvm::Error importHardSigmoid(NodeImporter &node) {
  return importActivation<HardSigmoidOp>(node,
                                         {{"alpha", 0.2f}, {"beta", 0.5f}});
}
llvm::Error importThresholdedRelu(NodeImporter &node) {
  return importActivation<ThresholdedReluOp>(node, {{"alpha", 1.0f}});
}
llvm::Error importShrink(NodeImporter &node) {
  return importActivation<ShrinkOp>(node, {{"bias", 0.0f}, {"lambd", 0.5f}});
}

llvm::Error importIsInf(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(1, 1))
    return error;
  llvm::Expected<int64_t> positive = node.getInt("detect_positive", 1);
  if (!positive)
    return positive.takeError();
  llvm::Expected<int64_t> negative = node.getInt("detect_negative", 1);
  if (!negative)
    return negative.takeError();
  OpBuilder &b = node.getBuilder();
  return node.setResult(node.create<IsInfOp>(node.getInput(0),
                                             b.getBoolAttr(*positive != 0),
                                             b.getBoolAttr(*negative != 0)));
}

llvm::Error importMod(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(2, 2))
    return error;
  llvm::Expected<int64_t> fmod = node.getInt("fmod", 0);
  if (!fmod)
    return fmod.takeError();
  if (*fmod != 0 && *fmod != 1)
    return node.error("attribute 'fmod' must be 0 or 1, got " +
                      std::to_string(*fmod));
  return node.setResult(
      node.create<ModOp>(node.getInput(0), node.getInput(1),
                         node.getBuilder().getBoolAttr(*fmod == 1)));
}

llvm::Error importBitShift(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(2, 2))
    return error;
  const onnx::AttributeProto *direction = node.findAttribute("direction");
  if (!direction || !direction->has_s())
    return node.error("missing required string attribute 'direction'");
  std::string value = direction->s();
  if (value != "LEFT" && value != "RIGHT")
    return node.error("attribute 'direction' must be LEFT or RIGHT, got '" +
                      value + "'");
  return node.setResult(node.create<BitShiftOp>(
      node.getInput(0), node.getInput(1),
      node.getBuilder().getStringAttr(value == "LEFT" ? "left" : "right")));
}

/// A 0-D `kiln.constant` of |elementType| holding |value|, or the type's
/// lowest (|value| = -inf) or highest (+inf) value for integers.
llvm::Expected<Value> createScalar(NodeImporter &node, Type elementType,
                                   double value) {
  auto type = RankedTensorType::get({}, elementType);
  Attribute element;
  if (isa<FloatType>(elementType)) {
    element = FloatAttr::get(elementType, value);
  } else if (auto integer = dyn_cast<IntegerType>(elementType)) {
    unsigned width = integer.getWidth();
    bool isUnsigned = integer.isUnsigned();
    APInt bits;
    if (std::isinf(value) && value < 0)
      bits = isUnsigned ? APInt::getMinValue(width)
                        : APInt::getSignedMinValue(width);
    else if (std::isinf(value))
      bits = isUnsigned ? APInt::getMaxValue(width)
                        : APInt::getSignedMaxValue(width);
    else
      bits = APInt(width, static_cast<int64_t>(value), /*isSigned=*/true);
    element = IntegerAttr::get(elementType, bits);
  } else {
    return node.error("unsupported element type for a scalar constant");
  }
  auto attr = DenseElementsAttr::get(type, ArrayRef<Attribute>{element});
  return node.getBuilder()
      .create<ConstantOp>(node.getLoc(), cast<ElementsAttr>(attr))
      .getResult();
}

/// Clip: bounds are attributes before opset 11 and optional inputs from
/// then on; an absent bound is the element type's lowest or highest value.
llvm::Error importClip(NodeImporter &node) {
  bool inputForm = node.getOpset() >= 11;
  if (llvm::Error error = node.checkInputCount(1, inputForm ? 3 : 1))
    return error;
  Value input = node.getInput(0);
  Type element = node.getInputElementType(0);
  const double inf = std::numeric_limits<double>::infinity();
  Value bounds[2];
  const char *names[2] = {"min", "max"};
  for (int i = 0; i < 2; ++i) {
    if (inputForm && node.getInput(1 + i)) {
      bounds[i] = node.getInput(1 + i);
      continue;
    }
    double value = i == 0 ? -inf : inf;
    if (!inputForm && node.hasAttribute(names[i])) {
      llvm::Expected<float> attr = node.getFloat(names[i], 0.0f);
      if (!attr)
        return attr.takeError();
      value = *attr;
    }
    llvm::Expected<Value> bound = createScalar(node, element, value);
    if (!bound)
      return bound.takeError();
    bounds[i] = *bound;
  }
  return node.setResult(node.create<ClipOp>(input, bounds[0], bounds[1]));
}

/// Max, Min, Sum: a balanced tree of the binary op, pairing neighbours level
/// by level (one input is an identity). A left-to-right chain of N inputs
/// was an expression N deep, which NVRTC compiles in superlinear time
/// (5,000 inputs: 33 s); the tree is log2(N) deep. Max and Min are
/// associative and commutative (NaN wins either way); integer sums wrap, so
/// only float Sum rounds differently, as pairwise summation does.
template <typename OpTy>
llvm::Expected<Value> balancedTree(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(1, 1u << 16))
    return std::move(error);
  llvm::SmallVector<Value> level;
  for (size_t i = 0; i < node.getInputCount(); ++i) {
    if (!node.getInput(i))
      return node.error("input " + std::to_string(i) + " is absent");
    level.push_back(node.getInput(i));
  }
  if (level.size() == 1)
    return node.create<IdentityOp>(level[0]);
  while (level.size() > 1) {
    llvm::SmallVector<Value> next;
    for (size_t i = 0; i + 1 < level.size(); i += 2) {
      llvm::Expected<Value> pair = node.create<OpTy>(level[i], level[i + 1]);
      if (!pair)
        return pair.takeError();
      next.push_back(*pair);
    }
    if (level.size() % 2)
      next.push_back(level.back());
    level = std::move(next);
  }
  return level[0];
}

template <typename OpTy> llvm::Error importVariadic(NodeImporter &node) {
  return node.setResult(balancedTree<OpTy>(node));
}

/// Mean: the sum tree divided by the input count.
llvm::Error importMean(NodeImporter &node) {
  llvm::Expected<Value> sum = balancedTree<AddOp>(node);
  if (!sum)
    return sum.takeError();
  if (node.getInputCount() == 1)
    return node.setResult(*sum);
  llvm::Expected<Value> count = createScalar(
      node, getElementTypeOrSelf(sum->getType()), double(node.getInputCount()));
  if (!count)
    return count.takeError();
  return node.setResult(node.create<DivOp>(*sum, *count));
}

/// CastLike: a Cast to the element type of the second input.
llvm::Error importCastLike(NodeImporter &node) {
  if (llvm::Error error = node.checkInputCount(2, 2))
    return error;
  return node.setResult(node.create<CastOp>(
      node.getInput(0), TypeAttr::get(node.getInputElementType(1))));
}

} // namespace

void populateMathImporters(OpImporterRegistry &registry) {
  registry.add("Acos", importUnary<AcosOp>);
  registry.add("Acosh", importUnary<AcoshOp>);
  registry.add("Asin", importUnary<AsinOp>);
  registry.add("Asinh", importUnary<AsinhOp>);
  registry.add("Atan", importUnary<AtanOp>);
  registry.add("Atanh", importUnary<AtanhOp>);
  registry.add("Cos", importUnary<CosOp>);
  registry.add("Cosh", importUnary<CoshOp>);
  registry.add("Sin", importUnary<SinOp>);
  registry.add("Sinh", importUnary<SinhOp>);
  registry.add("Tan", importUnary<TanOp>);
  registry.add("Ceil", importUnary<CeilOp>);
  registry.add("Floor", importUnary<FloorOp>);
  registry.add("Round", importUnary<RoundOp>);
  registry.add("Sign", importUnary<SignOp>);
  registry.add("IsNaN", importUnary<IsNaNOp>);
  registry.add("Softplus", importUnary<SoftplusOp>);
  registry.add("Softsign", importUnary<SoftsignOp>);
  registry.add("HardSwish", importUnary<HardSwishOp>);
  registry.add("IsInf", importIsInf);

  registry.add("Elu", importElu);
  registry.add("Selu", importSelu);
  registry.add("Celu", importCelu);
  registry.add("LeakyRelu", importLeakyRelu);
  registry.add("HardSigmoid", importHardSigmoid);
  registry.add("ThresholdedRelu", importThresholdedRelu);
  registry.add("Shrink", importShrink);

  registry.add("And", importBinary<AndOp>);
  registry.add("Or", importBinary<OrOp>);
  registry.add("Xor", importBinary<XorOp>);
  registry.add("GreaterOrEqual", importBinary<GreaterOrEqualOp>);
  registry.add("LessOrEqual", importBinary<LessOrEqualOp>);
  registry.add("PRelu", importBinary<PReluOp>);
  registry.add("Mod", importMod);
  registry.add("BitShift", importBitShift);

  registry.add("Max", importVariadic<MaxOp>);
  registry.add("Min", importVariadic<MinOp>);
  registry.add("Sum", importVariadic<AddOp>);
  registry.add("Mean", importMean);
  registry.add("Clip", importClip);
  registry.add("CastLike", importCastLike);
}

} // namespace kiln::onnx_import
