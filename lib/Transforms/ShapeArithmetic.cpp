// Rewrites of shape arithmetic whose result is static even though the shape
// it reads is partly dynamic (e.g. the hidden size of a [batch, seq, 768]
// tensor in a model exported with symbolic batch and seq).
#include "kiln/Transforms/ConstantFolding.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

using namespace mlir;

namespace kiln {
namespace {

/// The dims that kiln.shape |op| returns (dynamic ones as kDynamic).
SmallVector<int64_t> selectedDims(ShapeOp op) {
  auto type = cast<RankedTensorType>(op.getData().getType());
  int64_t rank = type.getRank();
  auto clampIndex = [&](int64_t index) {
    if (index < 0)
      index += rank;
    return std::clamp<int64_t>(index, 0, rank);
  };
  int64_t first = clampIndex(op.getStart());
  int64_t last = op.getEnd() ? clampIndex(*op.getEnd()) : rank;
  if (last < first)
    last = first;
  return SmallVector<int64_t>(type.getShape().slice(first, last - first));
}

/// Replaces |op| by an i64 constant of |values| shaped like its result.
LogicalResult replaceWithI64Constant(PatternRewriter &rewriter, Operation *op,
                                     ArrayRef<int64_t> values) {
  auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!type || !type.hasStaticShape() ||
      type.getNumElements() != int64_t(values.size()))
    return rewriter.notifyMatchFailure(op, "result shape is not static");
  rewriter.replaceOpWithNewOp<ConstantOp>(
      op, DenseIntElementsAttr::get(type, values));
  return success();
}

// gather(shape(x), constant indices) -> constant, when the gathered dims of x
// are static
struct FoldGatherOfShape : OpRewritePattern<GatherOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(GatherOp op,
                                PatternRewriter &rewriter) const override {
    auto shape = op.getData().getDefiningOp<ShapeOp>();
    if (!shape || !isa<RankedTensorType>(shape.getData().getType()))
      return rewriter.notifyMatchFailure(op, "not a gather of a ranked shape");
    std::optional<SmallVector<int64_t>> indices =
        getConstantIntegers(op.getIndices());
    if (!indices)
      return rewriter.notifyMatchFailure(op, "indices are not constant");
    SmallVector<int64_t> dims = selectedDims(shape);
    SmallVector<int64_t> values;
    for (int64_t index : *indices) {
      std::optional<int64_t> position = normalizeAxis(index, dims.size());
      if (!position || ShapedType::isDynamic(dims[*position]))
        return rewriter.notifyMatchFailure(op, "gathers a dynamic dim");
      values.push_back(dims[*position]);
    }
    return replaceWithI64Constant(rewriter, op, values);
  }
};

// slice(shape(x), constant starts/ends/axes/steps) -> constant, when the
// sliced dims of x are static
struct FoldSliceOfShape : OpRewritePattern<SliceOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(SliceOp op,
                                PatternRewriter &rewriter) const override {
    auto shape = op.getData().getDefiningOp<ShapeOp>();
    if (!shape || !isa<RankedTensorType>(shape.getData().getType()))
      return rewriter.notifyMatchFailure(op, "not a slice of a ranked shape");
    auto starts = getConstantIntegers(op.getStarts());
    auto ends = getConstantIntegers(op.getEnds());
    auto steps = getConstantIntegers(op.getSteps());
    if (!starts || !ends || !steps || starts->size() != 1 ||
        ends->size() != 1 || steps->size() != 1 || (*steps)[0] == 0)
      return rewriter.notifyMatchFailure(op, "not a constant 1-D slice");
    SmallVector<int64_t> dims = selectedDims(shape);
    int64_t size = dims.size(), step = (*steps)[0];
    auto clampIndex = [&](int64_t value) {
      if (value < 0)
        value += size;
      return step > 0 ? std::clamp<int64_t>(value, 0, size)
                      : std::clamp<int64_t>(value, -1, size - 1);
    };
    SmallVector<int64_t> values;
    for (int64_t i = clampIndex((*starts)[0]), end = clampIndex((*ends)[0]);
         step > 0 ? i < end : i > end; i += step) {
      if (ShapedType::isDynamic(dims[i]))
        return rewriter.notifyMatchFailure(op, "slices a dynamic dim");
      values.push_back(dims[i]);
    }
    return replaceWithI64Constant(rewriter, op, values);
  }
};

} // namespace

void populateShapeArithmeticPatterns(RewritePatternSet &patterns) {
  patterns.add<FoldGatherOfShape, FoldSliceOfShape>(patterns.getContext());
}

} // namespace kiln
