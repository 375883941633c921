// Type inference, verifiers and canonicalisation of kiln.gelu and
// kiln.attention (KilnCompositeOps.td).
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "mlir/IR/PatternMatch.h"

#include <cmath>

using namespace mlir;
using namespace kiln;

namespace {
bool dimsConflict(int64_t a, int64_t b) {
  return !ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b;
}
int64_t mergeDims(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) ? b : a;
}
} // namespace

LogicalResult GeluOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &inferred) {
  inferred.push_back(adaptor.getInput().getType());
  return success();
}

LogicalResult GeluOp::verify() {
  if (getApproximate() != "none" && getApproximate() != "tanh")
    return emitOpError("approximate must be \"none\" or \"tanh\", got \"")
           << getApproximate() << "\"";
  return success();
}

LogicalResult AttentionOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> location,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  auto query = cast<TensorType>(adaptor.getQuery().getType());
  auto key = cast<TensorType>(adaptor.getKey().getType());
  auto value = cast<TensorType>(adaptor.getValue().getType());
  Type element = query.getElementType();
  for (Value operand :
       {adaptor.getKey(), adaptor.getValue(), adaptor.getMask()})
    if (operand && getElementTypeOrSelf(operand.getType()) != element)
      return emitOptionalError(location,
                               "operands must have the element type of the "
                               "query, got ",
                               operand.getType());
  if (!query.hasRank() || !key.hasRank() || !value.hasRank()) {
    inferred.push_back(UnrankedTensorType::get(element));
    return success();
  }
  int64_t rank = query.getRank();
  if (rank < 2 || key.getRank() != rank || value.getRank() != rank)
    return emitOptionalError(location,
                             "query, key and value must have one rank >= 2, "
                             "got ",
                             query, ", ", key, " and ", value);
  ArrayRef<int64_t> q = query.getShape(), k = key.getShape(),
                    v = value.getShape();
  if (dimsConflict(q[rank - 1], k[rank - 1]))
    return emitOptionalError(location,
                             "query and key head sizes differ: ", q[rank - 1],
                             " vs ", k[rank - 1]);
  if (dimsConflict(k[rank - 2], v[rank - 2]))
    return emitOptionalError(location,
                             "key and value lengths differ: ", k[rank - 2],
                             " vs ", v[rank - 2]);
  std::optional<SmallVector<int64_t>> batch =
      broadcastShapes(q.drop_back(2), k.drop_back(2));
  if (batch)
    batch = broadcastShapes(*batch, v.drop_back(2));
  if (!batch)
    return emitOptionalError(location, "batch dims of ", query, ", ", key,
                             " and ", value, " do not broadcast");
  if (Value mask = adaptor.getMask()) {
    auto maskType = cast<TensorType>(mask.getType());
    if (maskType.hasRank()) {
      SmallVector<int64_t> scores = *batch;
      scores.push_back(q[rank - 2]);
      scores.push_back(mergeDims(k[rank - 2], v[rank - 2]));
      ArrayRef<int64_t> m = maskType.getShape();
      bool fits = int64_t(m.size()) <= rank;
      for (size_t i = 0; fits && i < m.size(); ++i) {
        int64_t target = scores[rank - m.size() + i];
        fits = m[i] == 1 || ShapedType::isDynamic(m[i]) ||
               !dimsConflict(m[i], target);
        // A static mask dim > 1 against a dynamic scores dim could only be
        // checked at run time; it is accepted (the evaluator checks it).
      }
      if (!fits)
        return emitOptionalError(location, "mask ", maskType,
                                 " does not broadcast to the scores ",
                                 RankedTensorType::get(scores, element));
    }
  }
  SmallVector<int64_t> shape = *batch;
  shape.push_back(q[rank - 2]);
  shape.push_back(v[rank - 1]);
  inferred.push_back(RankedTensorType::get(shape, element));
  return success();
}

namespace {
/// The value of a one-element float kiln.constant, as a double.
std::optional<double> scalarConstant(Value value) {
  auto constant = value.getDefiningOp<ConstantOp>();
  if (!constant)
    return std::nullopt;
  auto elements = dyn_cast<DenseFPElementsAttr>(constant.getValue());
  if (!elements || elements.getNumElements() != 1)
    return std::nullopt;
  return (*elements.getValues<APFloat>().begin()).convertToDouble();
}

/// The kiln.mul by a constant scalar that |operand| is made from through
/// views (reshape, transpose, squeeze, unsqueeze, flatten, slice), each with
/// no other use, when the mul has no other use and the product keeps the
/// other factor's type; its scaled factor's operand index and the constant.
struct ViewedScale {
  MulOp mul;
  unsigned scaled;
  double factor;
};
std::optional<ViewedScale> findViewedScale(Value operand) {
  Value value = operand;
  while (Operation *op = value.getDefiningOp()) {
    if (!value.hasOneUse())
      return std::nullopt;
    if (auto mul = dyn_cast<MulOp>(op)) {
      for (unsigned side : {0u, 1u}) {
        std::optional<double> factor =
            scalarConstant(mul->getOperand(1 - side));
        if (factor && std::isfinite(*factor) &&
            mul->getOperand(side).getType() == mul.getType())
          return ViewedScale{mul, side, *factor};
      }
      return std::nullopt;
    }
    if (!isa<ReshapeOp, TransposeOp, SqueezeOp, UnsqueezeOp, FlattenOp,
             SliceOp>(op))
      return std::nullopt;
    value = op->getOperand(0);
  }
  return std::nullopt;
}

// attention(views(q * c), k, v) -> attention(views(q), k, v) {scale = scale *
// c}, and the same for k, when c is a constant scalar, the product has q's
// type and neither it nor a view has another use: a scalar commutes with
// views and softmax(scale * (c q) k^T) = softmax((scale c) q k^T). torch's
// nn.MultiheadAttention scales q by d^-1/2 before its head split (older
// exports) or q and k by d^-1/4 after it.
struct FoldOperandScale : OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    for (Value operand : {op.getQuery(), op.getKey()}) {
      std::optional<ViewedScale> scale = findViewedScale(operand);
      if (!scale)
        continue;
      rewriter.modifyOpInPlace(op, [&] {
        op.setScale(APFloat(
            float(double(op.getScale().convertToFloat()) * scale->factor)));
      });
      rewriter.replaceOp(scale->mul, scale->mul->getOperand(scale->scaled));
      return success();
    }
    return rewriter.notifyMatchFailure(op, "no operand scaled by a constant");
  }
};

// attention(q, k, v, expand(m)) -> attention(q, k, v, m): the mask
// broadcasts to the scores either way, and the kernel reads m's entries at
// its broadcast indices instead of a tensor expanded for it (transformers'
// [b, 1, q, k] padding masks, after kiln-simplify-graph's broadcast rewrites).
struct ReadMaskUnexpanded : OpRewritePattern<AttentionOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(AttentionOp op,
                                PatternRewriter &rewriter) const override {
    Value mask = op.getMask();
    auto expand = mask ? mask.getDefiningOp<ExpandOp>() : ExpandOp();
    if (!expand || !isa<RankedTensorType>(expand.getInput().getType()))
      return rewriter.notifyMatchFailure(op, "the mask is not an expand");
    rewriter.modifyOpInPlace(
        op, [&] { op.getMaskMutable().assign(expand.getInput()); });
    return success();
  }
};
} // namespace

void AttentionOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<FoldOperandScale, ReadMaskUnexpanded>(context);
}
