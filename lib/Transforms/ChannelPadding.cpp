// Zero-padding of small input channel counts for NHWC f16/bf16 convolutions
// (see ChannelPadding.h; used by kiln-assign-layout).
#include "ChannelPadding.h"

#include "kiln/Dialect/Kiln/IR/ShapeUtils.h"

using namespace mlir;

namespace kiln {

std::optional<int64_t> paddedInputChannels(ConvOp conv) {
  auto type = dyn_cast<RankedTensorType>(conv.getInput().getType());
  if (!type || type.getRank() != 4 || !type.hasStaticShape() ||
      conv.getGroup() != 1)
    return std::nullopt;
  Type element = type.getElementType();
  int64_t channels = type.getDimSize(1);
  // Only small counts: a large one that is no multiple of 8 would grow by a
  // smaller share, and cuDNN has NHWC kernels for it that lose less.
  if ((!element.isF16() && !element.isBF16()) || channels >= kChannelAlignment)
    return std::nullopt;
  return kChannelAlignment;
}

Value padWithZeros(OpBuilder &builder, Location loc, Value value, int64_t dim,
                   int64_t size) {
  auto type = cast<RankedTensorType>(value.getType());
  int64_t rank = type.getRank();
  SmallVector<int64_t> pads(2 * rank, 0);
  pads[rank + dim] = size - type.getDimSize(dim);
  auto padsType = RankedTensorType::get({2 * rank}, builder.getI64Type());
  Value padsValue = builder.create<ConstantOp>(
      loc, DenseElementsAttr::get(padsType, ArrayRef(pads)));
  return builder.create<PadOp>(
      loc, value, padsValue, /*constant_value=*/Value(),
      /*axes=*/Value(), builder.getStringAttr("constant"));
}

namespace {

// transpose(pad(transpose(x, q)), p) -> pad(transpose(transpose(x, q), p))
struct SinkTransposeThroughPad : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(TransposeOp transpose,
                                PatternRewriter &rewriter) const override {
    auto pad = transpose.getData().getDefiningOp<PadOp>();
    if (!pad || pad.getMode() != "constant" || pad.getAxes() ||
        !pad.getData().getDefiningOp<TransposeOp>() || !pad->hasOneUse())
      return rewriter.notifyMatchFailure(transpose,
                                         "no constant pad of a transpose");
    std::optional<SmallVector<int64_t>> pads =
        getConstantIntegers(pad.getPads());
    ArrayRef<int64_t> perm = transpose.getPerm();
    int64_t rank = perm.size();
    if (!pads || int64_t(pads->size()) != 2 * rank)
      return rewriter.notifyMatchFailure(transpose, "pads are not constant");
    // Output dim i of the transpose is dim perm[i] of the padded value.
    SmallVector<int64_t> permuted(2 * rank);
    for (int64_t i = 0; i < rank; ++i) {
      permuted[i] = (*pads)[perm[i]];
      permuted[rank + i] = (*pads)[rank + perm[i]];
    }
    Location loc = transpose.getLoc();
    Value moved = rewriter.create<TransposeOp>(loc, pad.getData(),
                                               transpose.getPermAttr());
    auto padsType = RankedTensorType::get({2 * rank}, rewriter.getI64Type());
    Value padsValue = rewriter.create<ConstantOp>(
        loc, DenseElementsAttr::get(padsType, ArrayRef(permuted)));
    rewriter.replaceOpWithNewOp<PadOp>(transpose, moved, padsValue,
                                       pad.getConstantValue(), Value(),
                                       pad.getModeAttr());
    return success();
  }
};

} // namespace

void populateChannelPaddingPatterns(RewritePatternSet &patterns) {
  patterns.add<SinkTransposeThroughPad>(patterns.getContext());
}

} // namespace kiln
