// Type inference and folds of the movement ops (KilnMovementOps.td).
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/IR/TensorLimits.h"
#include "kiln/Dialect/Kiln/IR/MovementSemantics.h"

#include "mlir/IR/Matchers.h"

#include <cmath>

using namespace mlir;
using namespace kiln;

namespace {
Type elementOf(Value value) { return getElementTypeOrSelf(value.getType()); }

/// The values of a constant operand as doubles (floats or integers).
std::optional<SmallVector<double>> getConstantDoubles(Value value) {
  if (!value)
    return std::nullopt;
  if (isa<IntegerType>(elementOf(value))) {
    auto ints = getConstantIntegers(value);
    if (!ints)
      return std::nullopt;
    return SmallVector<double>(ints->begin(), ints->end());
  }
  DenseElementsAttr attr;
  if (!matchPattern(value, m_Constant(&attr)) ||
      !isa<FloatType>(attr.getElementType()))
    return std::nullopt;
  SmallVector<double> values;
  for (APFloat v : attr.getValues<APFloat>())
    values.push_back(v.convertToDouble());
  return values;
}

/// "0" for a dynamic dim where the product is unknown.
int64_t mulDims(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) || ShapedType::isDynamic(b)
             ? ShapedType::kDynamic
             : a * b;
}
} // namespace

LogicalResult RangeOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> location,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &inferred) {
  Type element = elementOf(adaptor.getStart());
  if (elementOf(adaptor.getLimit()) != element ||
      elementOf(adaptor.getDelta()) != element)
    return emitOptionalError(location, "start, limit and delta must share one "
                                       "element type");
  int64_t count = ShapedType::kDynamic;
  auto start = getConstantDoubles(adaptor.getStart());
  auto limit = getConstantDoubles(adaptor.getLimit());
  auto delta = getConstantDoubles(adaptor.getDelta());
  if (start && limit && delta && start->size() == 1 && limit->size() == 1 &&
      delta->size() == 1) {
    if ((*delta)[0] == 0)
      return emitOptionalError(location, "delta must not be 0");
    count = std::max<int64_t>(
        int64_t(std::ceil(((*limit)[0] - (*start)[0]) / (*delta)[0])), 0);
  }
  inferred.push_back(RankedTensorType::get({count}, element));
  return success();
}

LogicalResult ConstantOfShapeOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  ElementsAttr value = adaptor.getValue();
  if (value.getNumElements() != 1)
    return emitOptionalError(location, "value must hold one element, got ",
                             value.getNumElements());
  Type element = value.getElementType();
  auto shape = getPartialIntegers(adaptor.getShape());
  if (!shape) {
    std::optional<int64_t> rank = staticLength(adaptor.getShape());
    if (failed(checkRank(location, rank)))
      return failure();
    inferred.push_back(dynamicTensor(rank, element));
    return success();
  }
  for (int64_t dim : *shape)
    if (dim < 0 && !ShapedType::isDynamic(dim))
      return emitOptionalError(location, "invalid dimension ", dim, " in shape");
  inferred.push_back(RankedTensorType::get(*shape, element));
  return success();
}

LogicalResult EyeLikeOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> location,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  auto type = tensorOf(adaptor.getInput());
  if (type.hasRank() && type.getRank() != 2)
    return emitOptionalError(location, "input must be 2-D, got rank ",
                             type.getRank());
  if (!type.hasRank()) {
    inferred.push_back(dynamicTensor(2, adaptor.getDtype()));
    return success();
  }
  inferred.push_back(RankedTensorType::get(type.getShape(), adaptor.getDtype()));
  return success();
}

LogicalResult SizeOp::inferReturnTypes(MLIRContext *context,
                                       std::optional<Location>, Adaptor,
                                       SmallVectorImpl<Type> &inferred) {
  inferred.push_back(RankedTensorType::get({}, IntegerType::get(context, 64)));
  return success();
}

// size(x) -> constant, when x has a static shape
OpFoldResult SizeOp::fold(FoldAdaptor) {
  auto type = dyn_cast<RankedTensorType>(getInput().getType());
  auto resultType = dyn_cast<RankedTensorType>(getType());
  if (!type || !type.hasStaticShape() || !resultType)
    return {};
  return DenseIntElementsAttr::get(resultType, {type.getNumElements()});
}

LogicalResult OneHotOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> location,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  Type element = elementOf(adaptor.getValues());
  auto type = tensorOf(adaptor.getIndices());
  if (!type.hasRank()) {
    inferred.push_back(UnrankedTensorType::get(element));
    return success();
  }
  int64_t rank = type.getRank() + 1;
  std::optional<int64_t> axis = normalizeAxis(adaptor.getAxis(), rank);
  if (!axis)
    return emitOptionalError(location, "axis ", adaptor.getAxis(),
                             " is out of range for rank ", rank);
  int64_t depth = ShapedType::kDynamic;
  if (auto values = getConstantDoubles(adaptor.getDepth())) {
    if (values->size() != 1 || (*values)[0] < 1)
      return emitOptionalError(location, "depth must be one positive value");
    depth = int64_t((*values)[0]);
  }
  SmallVector<int64_t> shape(type.getShape());
  shape.insert(shape.begin() + *axis, depth);
  inferred.push_back(RankedTensorType::get(shape, element));
  return success();
}

LogicalResult PadOp::inferReturnTypes(MLIRContext *,
                                      std::optional<Location> location,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &inferred) {
  auto type = tensorOf(adaptor.getData());
  Type element = type.getElementType();
  StringRef mode = adaptor.getMode();
  if (mode != "constant" && mode != "reflect" && mode != "edge" &&
      mode != "wrap")
    return emitOptionalError(location, "unknown pad mode '", mode, "'");
  if (Value value = adaptor.getConstantValue())
    if (elementOf(value) != element)
      return emitOptionalError(location, "constant_value must have the "
                                         "element type of data");
  if (!type.hasRank()) {
    inferred.push_back(UnrankedTensorType::get(element));
    return success();
  }
  int64_t rank = type.getRank();
  auto pads = getConstantIntegers(adaptor.getPads());
  SmallVector<int64_t> axes;
  if (Value axesValue = adaptor.getAxes()) {
    auto values = getConstantIntegers(axesValue);
    if (!values) {
      inferred.push_back(dynamicTensor(rank, element));
      return success();
    }
    std::string problem;
    std::optional<SmallVector<int64_t>> distinct =
        normalizeDistinctAxes(*values, rank, &problem);
    if (!distinct)
      return emitOptionalError(location, problem);
    axes = std::move(*distinct);
  } else {
    for (int64_t i = 0; i < rank; ++i)
      axes.push_back(i);
  }
  if (!pads) {
    inferred.push_back(dynamicTensor(rank, element));
    return success();
  }
  if (pads->size() != 2 * axes.size())
    return emitOptionalError(location, "pads has ", pads->size(),
                             " entries for ", axes.size(), " axes");
  SmallVector<int64_t> shape(type.getShape());
  for (auto [i, axis] : llvm::enumerate(axes))
    if (!ShapedType::isDynamic(shape[axis])) {
      shape[axis] += (*pads)[i] + (*pads)[i + axes.size()];
      if (shape[axis] < 0)
        return emitOptionalError(location, "pads crop dimension ", axis,
                                 " below zero");
    }
  inferred.push_back(RankedTensorType::get(shape, element));
  return success();
}

// pad(x : T) to T, T static, every pad amount 0 -> x, in any mode. (Amounts
// of opposite signs that keep a dim's length shift it and stay.) Swin's
// window partition pads by (W - H mod W) mod W, zero at every stage of the
// standard resolutions.
OpFoldResult PadOp::fold(FoldAdaptor) {
  auto type = dyn_cast<RankedTensorType>(getType());
  if (!type || !type.hasStaticShape() || getData().getType() != type)
    return {};
  std::optional<SmallVector<int64_t>> amounts = getConstantAmounts();
  if (!amounts ||
      llvm::any_of(*amounts, [](int64_t amount) { return amount != 0; }))
    return {};
  return getData();
}

std::optional<SmallVector<int64_t>> PadOp::getConstantAmounts() {
  auto type = dyn_cast<RankedTensorType>(getData().getType());
  std::optional<SmallVector<int64_t>> pads = getConstantIntegers(getPads());
  if (!type || !pads)
    return std::nullopt;
  int64_t rank = type.getRank();
  SmallVector<int64_t> axes;
  if (getAxes()) {
    std::optional<SmallVector<int64_t>> list = getConstantIntegers(getAxes());
    std::optional<SmallVector<int64_t>> distinct =
        list ? normalizeDistinctAxes(*list, rank) : std::nullopt;
    if (!distinct)
      return std::nullopt;
    axes = std::move(*distinct);
  } else {
    axes = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  }
  if (pads->size() != 2 * axes.size())
    return std::nullopt;
  SmallVector<int64_t> amounts(2 * rank, 0);
  for (auto [i, axis] : llvm::enumerate(axes)) {
    amounts[axis] = (*pads)[i];
    amounts[rank + axis] = (*pads)[i + axes.size()];
  }
  return amounts;
}

LogicalResult TileOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location> location,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &inferred) {
  auto type = tensorOf(adaptor.getInput());
  Type element = type.getElementType();
  if (!type.hasRank()) {
    inferred.push_back(UnrankedTensorType::get(element));
    return success();
  }
  auto repeats = getPartialIntegers(adaptor.getRepeats());
  if (!repeats) {
    inferred.push_back(dynamicTensor(type.getRank(), element));
    return success();
  }
  if (int64_t(repeats->size()) != type.getRank())
    return emitOptionalError(location, "repeats has ", repeats->size(),
                             " entries for a rank-", type.getRank(), " input");
  SmallVector<int64_t> shape;
  for (auto [dim, repeat] : llvm::zip(type.getShape(), *repeats)) {
    if (repeat < 0 && !ShapedType::isDynamic(repeat))
      return emitOptionalError(location, "repeats must not be negative");
    shape.push_back(mulDims(dim, repeat));
  }
  inferred.push_back(RankedTensorType::get(shape, element));
  return success();
}

LogicalResult TriluOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> location,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &inferred) {
  auto type = tensorOf(adaptor.getInput());
  if (type.hasRank() && type.getRank() < 2)
    return emitOptionalError(location, "input must have rank >= 2");
  inferred.push_back(type);
  return success();
}

namespace {
/// Shared by DepthToSpace (|toSpace|) and SpaceToDepth.
LogicalResult inferBlockRearrange(std::optional<Location> location,
                                  TensorType type, int64_t block, bool toSpace,
                                  SmallVectorImpl<Type> &inferred) {
  if (block < 1)
    return emitOptionalError(location, "blocksize must be positive");
  if (!type.hasRank()) {
    inferred.push_back(dynamicTensor(4, type.getElementType()));
    return success();
  }
  if (type.getRank() != 4)
    return emitOptionalError(location, "input must be 4-D (NCHW), got rank ",
                             type.getRank());
  SmallVector<int64_t> shape(type.getShape());
  auto divide = [&](int64_t &dim, int64_t by) -> LogicalResult {
    if (ShapedType::isDynamic(dim))
      return success();
    if (dim % by != 0)
      return emitOptionalError(location, "dimension ", dim,
                               " is not divisible by ", by);
    dim /= by;
    return success();
  };
  if (toSpace) {
    if (failed(divide(shape[1], block * block)))
      return failure();
    shape[2] = mulDims(shape[2], block);
    shape[3] = mulDims(shape[3], block);
  } else {
    if (failed(divide(shape[2], block)) || failed(divide(shape[3], block)))
      return failure();
    shape[1] = mulDims(shape[1], block * block);
  }
  inferred.push_back(RankedTensorType::get(shape, type.getElementType()));
  return success();
}
} // namespace

LogicalResult DepthToSpaceOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  if (adaptor.getMode() != "DCR" && adaptor.getMode() != "CRD")
    return emitOptionalError(location, "mode must be DCR or CRD, got '",
                             adaptor.getMode(), "'");
  return inferBlockRearrange(location, tensorOf(adaptor.getInput()),
                             adaptor.getBlocksize(), true, inferred);
}

LogicalResult SpaceToDepthOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  return inferBlockRearrange(location, tensorOf(adaptor.getInput()),
                             adaptor.getBlocksize(), false, inferred);
}

LogicalResult ReverseSequenceOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  auto type = tensorOf(adaptor.getInput());
  if (type.hasRank()) {
    int64_t batch = adaptor.getBatchAxis(), time = adaptor.getTimeAxis();
    if (!normalizeAxis(batch, type.getRank()) ||
        !normalizeAxis(time, type.getRank()) ||
        normalizeAxis(batch, type.getRank()) ==
            normalizeAxis(time, type.getRank()))
      return emitOptionalError(location, "batch_axis and time_axis must be two "
                                         "different dims of the input");
  }
  inferred.push_back(type);
  return success();
}
