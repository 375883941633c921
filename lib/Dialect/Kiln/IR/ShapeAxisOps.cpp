// Type inference and folds of kiln's axis-driven shape ops: slice, gather,
// unsqueeze, squeeze and expand.
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/IR/OpBuilders.h"
#include "kiln/Dialect/Kiln/IR/TensorLimits.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace kiln;

//===----------------------------------------------------------------------===//
// Slice, Gather
//===----------------------------------------------------------------------===//

LogicalResult SliceOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> location,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &inferred) {
  auto type = tensorOf(adaptor.getData());
  Type element = type.getElementType();
  if (!type.hasRank()) {
    inferred.push_back(UnrankedTensorType::get(element));
    return success();
  }
  int64_t rank = type.getRank();
  auto axes = getConstantIntegers(adaptor.getAxes());
  if (!axes) {
    inferred.push_back(dynamicTensor(rank, element));
    return success();
  }
  auto starts = getConstantIntegers(adaptor.getStarts());
  auto ends = getConstantIntegers(adaptor.getEnds());
  auto steps = getConstantIntegers(adaptor.getSteps());
  SmallVector<int64_t> shape(type.getShape());
  for (auto [i, axis] : llvm::enumerate(*axes)) {
    std::optional<int64_t> dimIndex = normalizeAxis(axis, rank);
    if (!dimIndex)
      return emitOptionalError(location, "axis ", axis,
                               " is out of range for rank ", rank);
    int64_t dim = type.getDimSize(*dimIndex);
    if (!starts || !ends || !steps || ShapedType::isDynamic(dim) ||
        i >= starts->size() || i >= ends->size() || i >= steps->size()) {
      shape[*dimIndex] = ShapedType::kDynamic;
      continue;
    }
    int64_t step = (*steps)[i];
    if (step == 0)
      return emitOptionalError(location, "slice step must not be 0");
    auto clampIndex = [&](int64_t value, bool forward) {
      if (value < 0)
        value += dim;
      return forward ? std::clamp<int64_t>(value, 0, dim)
                     : std::clamp<int64_t>(value, -1, dim - 1);
    };
    int64_t start = clampIndex((*starts)[i], step > 0);
    int64_t end = clampIndex((*ends)[i], step > 0);
    int64_t count = step > 0 ? (end - start + step - 1) / step
                             : (start - end + (-step) - 1) / (-step);
    shape[*dimIndex] = std::max<int64_t>(count, 0);
  }
  inferred.push_back(RankedTensorType::get(shape, element));
  return success();
}

// slice(x : T) to T, T static, every step positive -> x. A positive step
// that keeps a dim's length keeps every element in order (step 1 from 0, or
// a dim of 1); a negative one would reverse it.
OpFoldResult SliceOp::fold(FoldAdaptor) {
  auto type = dyn_cast<RankedTensorType>(getType());
  if (!type || !type.hasStaticShape() || getData().getType() != type)
    return {};
  std::optional<SmallVector<int64_t>> steps = getConstantIntegers(getSteps());
  if (!steps || llvm::any_of(*steps, [](int64_t step) { return step <= 0; }))
    return {};
  return getData();
}

LogicalResult GatherOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> location,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  auto data = tensorOf(adaptor.getData());
  auto indices = tensorOf(adaptor.getIndices());
  if (!data.hasRank() || !indices.hasRank()) {
    inferred.push_back(UnrankedTensorType::get(data.getElementType()));
    return success();
  }
  std::optional<int64_t> axis = normalizeAxis(adaptor.getAxis(), data.getRank());
  if (!axis)
    return emitOptionalError(location, "axis ", adaptor.getAxis(),
                             " is out of range for rank ", data.getRank());
  SmallVector<int64_t> shape(data.getShape().take_front(*axis));
  llvm::append_range(shape, indices.getShape());
  llvm::append_range(shape, data.getShape().drop_front(*axis + 1));
  inferred.push_back(RankedTensorType::get(shape, data.getElementType()));
  return success();
}

namespace {
// gather(x, i, axis) with x float, i a constant scalar and x's dim static ->
// squeeze(slice(x, [i], [i + 1], [axis], [1]), [axis]). Index data stays a
// gather: shape arithmetic matches gathers of kiln.shape.
struct GatherOfOneIndex : OpRewritePattern<GatherOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GatherOp op,
                                PatternRewriter &rewriter) const override {
    auto data = dyn_cast<RankedTensorType>(op.getData().getType());
    auto indices = dyn_cast<RankedTensorType>(op.getIndices().getType());
    if (!data || !indices || indices.getRank() != 0 ||
        !isa<FloatType>(data.getElementType()))
      return rewriter.notifyMatchFailure(op, "not a float gather of a scalar");
    std::optional<int64_t> axis = normalizeAxis(op.getAxis(), data.getRank());
    std::optional<SmallVector<int64_t>> index =
        getConstantIntegers(op.getIndices());
    if (!axis || !index || index->size() != 1 ||
        data.isDynamicDim(*axis))
      return rewriter.notifyMatchFailure(op, "index or dim not constant");
    int64_t dim = data.getDimSize(*axis), at = index->front();
    if (at < 0)
      at += dim;
    if (at < 0 || at >= dim)
      return rewriter.notifyMatchFailure(op, "index out of range");
    Location loc = op.getLoc();
    SmallVector<int64_t> sliced(data.getShape());
    sliced[*axis] = 1;
    Value slice = rewriter.create<SliceOp>(
        loc, RankedTensorType::get(sliced, data.getElementType()),
        op.getData(), createI64Constant(rewriter, loc, {at}),
        createI64Constant(rewriter, loc, {at + 1}),
        createI64Constant(rewriter, loc, {*axis}), createI64Constant(rewriter, loc, {1}));
    rewriter.replaceOpWithNewOp<SqueezeOp>(op, op.getType(), slice,
                                           createI64Constant(rewriter, loc, {*axis}));
    return success();
  }
};
} // namespace

void GatherOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                           MLIRContext *context) {
  results.add<GatherOfOneIndex>(context);
}

//===----------------------------------------------------------------------===//
// Unsqueeze, Squeeze, Expand
//===----------------------------------------------------------------------===//

LogicalResult UnsqueezeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> location,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  auto type = tensorOf(adaptor.getData());
  Type element = type.getElementType();
  std::optional<int64_t> count = staticLength(adaptor.getAxes());
  auto axes = getConstantIntegers(adaptor.getAxes());
  if (!type.hasRank() || !axes) {
    std::optional<int64_t> rank;
    if (type.hasRank() && count)
      rank = type.getRank() + *count;
    if (failed(checkRank(location, rank)))
      return failure();
    inferred.push_back(dynamicTensor(rank, element));
    return success();
  }
  int64_t rank = type.getRank() + axes->size();
  SmallVector<bool> inserted(rank, false);
  for (int64_t axis : *axes) {
    std::optional<int64_t> normalized = normalizeAxis(axis, rank);
    if (!normalized || inserted[*normalized])
      return emitOptionalError(location, "invalid or repeated axis ", axis,
                               " for result rank ", rank);
    inserted[*normalized] = true;
  }
  SmallVector<int64_t> shape;
  auto inputDims = type.getShape().begin();
  for (int64_t i = 0; i < rank; ++i)
    shape.push_back(inserted[i] ? 1 : *inputDims++);
  inferred.push_back(RankedTensorType::get(shape, element));
  return success();
}

LogicalResult SqueezeOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> location,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  auto type = tensorOf(adaptor.getData());
  Type element = type.getElementType();
  if (!type.hasRank()) {
    inferred.push_back(UnrankedTensorType::get(element));
    return success();
  }
  int64_t rank = type.getRank();
  SmallVector<bool> removed(rank, false);
  if (Value axesValue = adaptor.getAxes()) {
    auto axes = getConstantIntegers(axesValue);
    if (!axes) {
      std::optional<int64_t> count = staticLength(axesValue);
      // Axes known only at run time: their count still fixes the rank.
      if (count && *count > rank)
        return emitOptionalError(location, "squeezes ", *count,
                                 " axes of a tensor of rank ", rank);
      inferred.push_back(dynamicTensor(
          count ? std::optional<int64_t>(rank - *count) : std::nullopt, element));
      return success();
    }
    for (int64_t axis : *axes) {
      std::optional<int64_t> normalized = normalizeAxis(axis, rank);
      if (!normalized)
        return emitOptionalError(location, "axis ", axis,
                                 " is out of range for rank ", rank);
      int64_t dim = type.getDimSize(*normalized);
      if (!ShapedType::isDynamic(dim) && dim != 1)
        return emitOptionalError(location, "cannot squeeze dimension ", axis,
                                 " of size ", dim);
      removed[*normalized] = true;
    }
  } else {
    if (!type.hasStaticShape()) {
      inferred.push_back(UnrankedTensorType::get(element));
      return success();
    }
    for (int64_t i = 0; i < rank; ++i)
      removed[i] = type.getDimSize(i) == 1;
  }
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i)
    if (!removed[i])
      shape.push_back(type.getDimSize(i));
  inferred.push_back(RankedTensorType::get(shape, element));
  return success();
}

LogicalResult ExpandOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> location,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  auto type = tensorOf(adaptor.getInput());
  Type element = type.getElementType();
  auto target = getPartialIntegers(adaptor.getShape());
  if (!type.hasRank() || !target) {
    std::optional<int64_t> length = staticLength(adaptor.getShape());
    std::optional<int64_t> rank;
    if (type.hasRank() && length)
      rank = std::max(type.getRank(), *length);
    if (failed(checkRank(location, rank)))
      return failure();
    inferred.push_back(dynamicTensor(rank, element));
    return success();
  }
  for (int64_t dim : *target)
    if (dim < 0 && !ShapedType::isDynamic(dim))
      return emitOptionalError(location, "invalid dimension ", dim, " in shape");
  std::optional<SmallVector<int64_t>> shape =
      broadcastShapes(type.getShape(), *target);
  if (!shape)
    return emitOptionalError(location, "input ", type,
                             " does not broadcast to the requested shape");
  inferred.push_back(RankedTensorType::get(*shape, element));
  return success();
}

// expand(x : T) to T, when T is static -> x
OpFoldResult ExpandOp::fold(FoldAdaptor) {
  auto type = dyn_cast<RankedTensorType>(getType());
  if (type && type.hasStaticShape() && getInput().getType() == type)
    return getInput();
  return {};
}
