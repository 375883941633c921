// Broadcast rewrites of kiln-simplify-graph: a logical op with its identity
// as one operand is the other operand, broadcast; a select is computed at
// the shape its operands vary over, then broadcast. transformers' 4-D
// attention masks are the case in point: where(and(true [1, 1, q, 1],
// pad [b, 1, 1, k]), 0, min) is a [b, 1, 1, k] mask broadcast over the query
// rows, which the attention reads as such (AttentionOp's canonicalisation
// drops the broadcast) instead of a [b, 1, q, k] tensor written and read
// again per layer.
#include "kiln/Transforms/ConstantFolding.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/IR/ShapeUtils.h"

using namespace mlir;

namespace kiln {
namespace {

/// |value| broadcast to the static |type| (itself when it has that type).
Value broadcastTo(PatternRewriter &rewriter, Location loc, Value value,
                  RankedTensorType type) {
  if (value.getType() == type)
    return value;
  auto shapeType =
      RankedTensorType::get({type.getRank()}, rewriter.getI64Type());
  Value shape = rewriter.create<ConstantOp>(
      loc, DenseIntElementsAttr::get(shapeType, type.getShape()));
  return rewriter.create<ExpandOp>(loc, type, value, shape);
}

/// True when |value| is a constant whose every element is |truth|.
bool isBoolSplat(Value value, bool truth) {
  auto constant = value.getDefiningOp<ConstantOp>();
  if (!constant)
    return false;
  auto elements = dyn_cast<DenseIntElementsAttr>(constant.getValue());
  return elements && elements.getElementType().isInteger(1) &&
         elements.isSplat() && elements.getSplatValue<bool>() == truth;
}

// and(x, true) -> x and or(x, false) -> x, broadcast to the result's shape
// (either operand order).
template <typename Op, bool kIdentity>
struct LogicalIdentity : OpRewritePattern<Op> {
  using OpRewritePattern<Op>::OpRewritePattern;
  LogicalResult matchAndRewrite(Op op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type || !type.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "result shape is not static");
    Value lhs = op->getOperand(0), rhs = op->getOperand(1);
    Value kept = isBoolSplat(rhs, kIdentity)   ? lhs
                 : isBoolSplat(lhs, kIdentity) ? rhs
                                               : Value();
    if (!kept)
      return rewriter.notifyMatchFailure(op, "no operand is the identity");
    rewriter.replaceOp(op, broadcastTo(rewriter, op.getLoc(), kept, type));
    return success();
  }
};

// where(expand(c), a, b) -> expand(where(c, a, b)) when the select's
// operands, their broadcasts undone, vary over fewer elements than its
// result: each element is then selected once, and the broadcast is a view.
struct SelectAtOperandShape : OpRewritePattern<WhereOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(WhereOp op,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(op.getType());
    if (!type || !type.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "result shape is not static");
    SmallVector<Value> operands;
    std::optional<SmallVector<int64_t>> shape = SmallVector<int64_t>{};
    bool expanded = false;
    for (Value operand : op->getOperands()) {
      if (auto expand = operand.getDefiningOp<ExpandOp>()) {
        operand = expand.getInput();
        expanded = true;
      }
      auto operandType = dyn_cast<RankedTensorType>(operand.getType());
      if (!operandType || !operandType.hasStaticShape())
        return rewriter.notifyMatchFailure(op, "an operand is not static");
      shape = broadcastShapes(*shape, operandType.getShape());
      if (!shape)
        return rewriter.notifyMatchFailure(op, "operands do not broadcast");
      operands.push_back(operand);
    }
    if (!expanded ||
        ShapedType::getNumElements(*shape) >= type.getNumElements())
      return rewriter.notifyMatchFailure(op, "no smaller shape to select at");
    Value select = rewriter.create<WhereOp>(
        op.getLoc(), RankedTensorType::get(*shape, type.getElementType()),
        operands[0], operands[1], operands[2]);
    rewriter.replaceOp(op, broadcastTo(rewriter, op.getLoc(), select, type));
    return success();
  }
};

} // namespace

void populateBroadcastPatterns(RewritePatternSet &patterns) {
  patterns.add<LogicalIdentity<AndOp, true>, LogicalIdentity<OrOp, false>,
               SelectAtOperandShape>(patterns.getContext());
}

} // namespace kiln
