// Type inference and verifiers of kiln's further reductions, arg-reductions,
// log-softmax/hardmax/cumsum, normalisations and losses (KilnNormOps.td).
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

using namespace mlir;
using namespace kiln;

namespace {

bool dimsConflict(int64_t a, int64_t b) {
  return !ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b;
}

/// Same type as |input| after checking that |axis| is in range.
LogicalResult inferAlongAxis(std::optional<Location> location, Value input,
                             int64_t axis, SmallVectorImpl<Type> &inferred) {
  auto type = cast<TensorType>(input.getType());
  if (type.hasRank() &&
      !normalizeAxis(axis, std::max<int64_t>(type.getRank(), 1)))
    return emitOptionalError(location, "axis ", axis,
                             " is out of range for rank ", type.getRank());
  inferred.push_back(type);
  return success();
}

/// Checks that |value| (named |what|) has |element| as element type and, when
/// ranked, rank |rank| (any rank when negative).
LogicalResult checkOperand(std::optional<Location> location, Value value,
                           StringRef what, Type element, int64_t rank = -1) {
  auto type = cast<TensorType>(value.getType());
  if (type.getElementType() != element)
    return emitOptionalError(location, what, " must have element type ",
                             element, ", got ", type);
  if (rank >= 0 && type.hasRank() && type.getRank() != rank)
    return emitOptionalError(location, what, " must have rank ", rank, ", got ",
                             type);
  return success();
}

/// Checks a per-channel operand `[C]` against dim 1 of |input|.
LogicalResult checkChannelOperand(std::optional<Location> location,
                                  TensorType input, Value value,
                                  StringRef what) {
  if (failed(checkOperand(location, value, what, input.getElementType(), 1)))
    return failure();
  auto type = cast<TensorType>(value.getType());
  if (type.hasRank() && input.hasRank() && input.getRank() >= 2 &&
      dimsConflict(type.getDimSize(0), input.getDimSize(1)))
    return emitOptionalError(location, what, " has ", type.getDimSize(0),
                             " elements for ", input.getDimSize(1),
                             " channels");
  return success();
}

/// The result of a normalisation over channel axis 1 (instance, batch and
/// local response norms): the input's type, which must have rank >= 2, with
/// each of |channelOperands| a vector of the input's channels.
LogicalResult
inferChannelNormType(std::optional<Location> location, Value input,
                     ArrayRef<std::pair<Value, StringRef>> channelOperands,
                     SmallVectorImpl<Type> &inferred) {
  auto type = cast<TensorType>(input.getType());
  if (type.hasRank() && type.getRank() < 2)
    return emitOptionalError(location, "input must have rank >= 2, got ", type);
  for (auto [value, what] : channelOperands)
    if (failed(checkChannelOperand(location, type, value, what)))
      return failure();
  inferred.push_back(type);
  return success();
}

} // namespace

#define KILN_REDUCTION_INFERENCE(OpT)                                          \
  LogicalResult OpT::inferReturnTypes(                                         \
      MLIRContext *, std::optional<Location> location, Adaptor adaptor,        \
      SmallVectorImpl<Type> &inferred) {                                       \
    return inferReductionType(location, adaptor.getData(), adaptor.getAxes(),  \
                              adaptor.getKeepdims(),                           \
                              adaptor.getNoopWithEmptyAxes(), inferred);       \
  }
KILN_REDUCTION_INFERENCE(ReduceMinOp)
KILN_REDUCTION_INFERENCE(ReduceProdOp)
KILN_REDUCTION_INFERENCE(ReduceLogSumExpOp)
#undef KILN_REDUCTION_INFERENCE

namespace {
template <typename AdaptorT>
LogicalResult
inferArgReduceType(MLIRContext *context, std::optional<Location> location,
                   AdaptorT adaptor, SmallVectorImpl<Type> &inferred) {
  auto type = cast<TensorType>(adaptor.getData().getType());
  Type i64 = IntegerType::get(context, 64);
  if (!type.hasRank()) {
    inferred.push_back(UnrankedTensorType::get(i64));
    return success();
  }
  int64_t rank = type.getRank();
  std::optional<int64_t> axis =
      normalizeAxis(adaptor.getAxis(), std::max<int64_t>(rank, 1));
  if (!axis)
    return emitOptionalError(location, "axis ", adaptor.getAxis(),
                             " is out of range for rank ", rank);
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    if (i != *axis)
      shape.push_back(type.getDimSize(i));
    else if (adaptor.getKeepdims())
      shape.push_back(1);
  }
  inferred.push_back(RankedTensorType::get(shape, i64));
  return success();
}
} // namespace

LogicalResult ArgMaxOp::inferReturnTypes(MLIRContext *context,
                                         std::optional<Location> location,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  return inferArgReduceType(context, location, adaptor, inferred);
}
LogicalResult ArgMinOp::inferReturnTypes(MLIRContext *context,
                                         std::optional<Location> location,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  return inferArgReduceType(context, location, adaptor, inferred);
}

LogicalResult LogSoftmaxOp::inferReturnTypes(MLIRContext *,
                                             std::optional<Location> location,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &inferred) {
  return inferAlongAxis(location, adaptor.getInput(), adaptor.getAxis(),
                        inferred);
}
LogicalResult HardmaxOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> location,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  return inferAlongAxis(location, adaptor.getInput(), adaptor.getAxis(),
                        inferred);
}

LogicalResult CumSumOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> location,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  auto axisType = cast<TensorType>(adaptor.getAxis().getType());
  if (axisType.hasStaticShape() && axisType.getNumElements() != 1)
    return emitOptionalError(location, "axis must hold one value, got ",
                             axisType);
  auto type = cast<TensorType>(adaptor.getInput().getType());
  if (std::optional<SmallVector<int64_t>> axis =
          getConstantIntegers(adaptor.getAxis()))
    if (type.hasRank() && axis->size() == 1)
      return inferAlongAxis(location, adaptor.getInput(), (*axis)[0], inferred);
  inferred.push_back(type);
  return success();
}

LogicalResult LayerNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> location,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  auto type = cast<TensorType>(adaptor.getInput().getType());
  Type element = type.getElementType();
  if (failed(checkOperand(location, adaptor.getScale(), "scale", element)) ||
      (adaptor.getBias() &&
       failed(checkOperand(location, adaptor.getBias(), "bias", element))))
    return failure();
  if (type.hasRank()) {
    int64_t rank = type.getRank();
    std::optional<int64_t> axis = normalizeAxis(adaptor.getAxis(), rank);
    if (!axis)
      return emitOptionalError(location, "axis ", adaptor.getAxis(),
                               " is out of range for rank ", rank);
    // scale and bias broadcast to the normalised dims x.shape[axis:].
    for (Value operand : {adaptor.getScale(), adaptor.getBias()}) {
      if (!operand)
        continue;
      auto operandType = cast<TensorType>(operand.getType());
      if (!operandType.hasRank())
        continue;
      ArrayRef<int64_t> normalized = type.getShape().drop_front(*axis);
      std::optional<SmallVector<int64_t>> merged =
          broadcastShapes(normalized, operandType.getShape());
      if (!merged || merged->size() != normalized.size())
        return emitOptionalError(
            location, operandType,
            " does not broadcast to the normalised dims of ", type);
    }
  }
  inferred.push_back(type);
  return success();
}

LogicalResult InstanceNormOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  return inferChannelNormType(
      location, adaptor.getInput(),
      {{adaptor.getScale(), "scale"}, {adaptor.getBias(), "bias"}}, inferred);
}

LogicalResult BatchNormOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> location,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  return inferChannelNormType(location, adaptor.getInput(),
                              {{adaptor.getScale(), "scale"},
                               {adaptor.getBias(), "bias"},
                               {adaptor.getMean(), "mean"},
                               {adaptor.getVariance(), "variance"}},
                              inferred);
}

LogicalResult LRNOp::inferReturnTypes(MLIRContext *,
                                      std::optional<Location> location,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &inferred) {
  if (failed(inferChannelNormType(location, adaptor.getInput(), {}, inferred)))
    return failure();
  if (adaptor.getSize() < 1)
    return emitOptionalError(location, "size must be >= 1, got ",
                             adaptor.getSize());
  return success();
}

LogicalResult NLLLossOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> location,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  auto type = cast<TensorType>(adaptor.getInput().getType());
  auto targetType = cast<TensorType>(adaptor.getTarget().getType());
  Type element = type.getElementType();
  if (adaptor.getWeight() &&
      failed(checkOperand(location, adaptor.getWeight(), "weight", element, 1)))
    return failure();
  if (type.hasRank() && type.getRank() < 2)
    return emitOptionalError(location, "input must have rank >= 2, got ", type);
  if (type.hasRank() && targetType.hasRank()) {
    if (targetType.getRank() != type.getRank() - 1)
      return emitOptionalError(location, "target of type ", targetType,
                               " must have rank ", type.getRank() - 1);
    for (int64_t i = 0; i < targetType.getRank(); ++i)
      if (dimsConflict(targetType.getDimSize(i),
                       type.getDimSize(i == 0 ? 0 : i + 1)))
        return emitOptionalError(location, "target of type ", targetType,
                                 " does not match input ", type);
  }
  if (adaptor.getReduction() != "none") {
    inferred.push_back(RankedTensorType::get({}, element));
    return success();
  }
  if (!targetType.hasRank()) {
    inferred.push_back(UnrankedTensorType::get(element));
    return success();
  }
  SmallVector<int64_t> shape(targetType.getShape());
  if (type.hasRank())
    for (int64_t i = 0; i < int64_t(shape.size()); ++i)
      if (ShapedType::isDynamic(shape[i]))
        shape[i] = type.getDimSize(i == 0 ? 0 : i + 1);
  inferred.push_back(RankedTensorType::get(shape, element));
  return success();
}

LogicalResult NLLLossOp::verify() {
  StringRef reduction = getReduction();
  if (reduction != "none" && reduction != "sum" && reduction != "mean")
    return emitOpError() << "reduction must be none, sum or mean, got '"
                         << reduction << "'";
  return success();
}
