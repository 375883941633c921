// kiln-assign-layout: runs the convolutions cuDNN takes in NHWC (what fp16
// tensor cores want) and sinks the layout transposes so that activations
// stay channels-last from one convolution to the next.
//
// Algorithm:
//  1. Every ungrouped NCHW kiln.conv that cuDNN could run
//     (fitsLibraryConvolution) and whose weight is a weight expression
//     (computed from constants only) becomes
//       transpose(conv_nhwc(transpose(x, [0,2,3,1]),
//                           transpose(w, [0,2,3,1])), [0,3,1,2]).
//     The weight transpose is a weight transform: folded when small, part of
//     the init program (kiln-outline-init) otherwise.
//  2. If step 1 changed anything, to a fixed point:
//     - transpose(transpose(x, p), q) composes, and an identity transpose
//       folds away (kiln.transpose's canonicalisation);
//     - a pointwise op whose operands are transposes with one permutation of
//       same-shaped values (single-element operands aside) runs on the
//       untransposed values, with one transpose after it.
//  Pools and reductions keep their transposes.
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Transforms/FusionRules.h"
#include "kiln/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNASSIGNLAYOUT
#include "kiln/Transforms/Passes.h.inc"

namespace {
constexpr int64_t kToChannelsLast[] = {0, 2, 3, 1};
constexpr int64_t kToChannelsFirst[] = {0, 3, 1, 2};

/// True when |value| is computed from kiln.constants only (no arguments, no
/// regions): a weight that folds or moves into the init program.
bool isWeightExpression(Value value, int depth = 0) {
  Operation *op = value.getDefiningOp();
  if (!op || op->getNumRegions() != 0 || depth > 32)
    return false;
  if (isa<ConstantOp>(op))
    return true;
  return op->getNumOperands() != 0 &&
         llvm::all_of(op->getOperands(), [&](Value operand) {
           return isWeightExpression(operand, depth + 1);
         });
}

Value transpose(OpBuilder &builder, Location loc, Value value,
                ArrayRef<int64_t> perm) {
  return builder.create<TransposeOp>(loc, value,
                                     builder.getDenseI64ArrayAttr(perm));
}

/// Step 1: conv(x, w) -> transpose(conv_nhwc(x', w')). Convolutions of one
/// input share its transpose (|inputs|), placed right after the input.
void makeChannelsLast(ConvOp conv, DenseMap<Value, Value> &inputs) {
  OpBuilder builder(conv);
  Location loc = conv.getLoc();
  Value &input = inputs[conv.getInput()];
  if (!input) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointAfterValue(conv.getInput());
    input = transpose(builder, loc, conv.getInput(), kToChannelsLast);
  }
  Value weight = transpose(builder, loc, conv.getWeight(), kToChannelsLast);
  auto nhwc = cast<ConvOp>(builder.clone(*conv));
  nhwc.getInputMutable().assign(input);
  nhwc.getWeightMutable().assign(weight);
  nhwc.setLayoutAttr(builder.getStringAttr("NHWC"));
  auto type = cast<RankedTensorType>(conv.getType());
  nhwc.getResult().setType(RankedTensorType::get(
      {type.getDimSize(0), type.getDimSize(2), type.getDimSize(3),
       type.getDimSize(1)},
      type.getElementType()));
  conv.getResult().replaceAllUsesWith(
      transpose(builder, loc, nhwc.getResult(), kToChannelsFirst));
  conv.erase();
}

bool isSingleElement(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && type.hasStaticShape() && type.getNumElements() == 1;
}

// op(transpose(a, p), transpose(b, p)) -> transpose(op(a, b), p)
struct SinkTransposeThroughPointwise : RewritePattern {
  SinkTransposeThroughPointwise(MLIRContext *context)
      : RewritePattern(MatchAnyOpTypeTag(), /*benefit=*/1, context) {}

  LogicalResult matchAndRewrite(Operation *op,
                                PatternRewriter &rewriter) const override {
    // Quantisation and batch norm have a channel axis: not elementwise in
    // the sense of a layout change.
    if (classifyForFusion(op) != FusionClass::Pointwise ||
        isa<BatchNormOp, QuantizeLinearOp, DequantizeLinearOp>(op) ||
        op->getNumResults() != 1 || op->getNumRegions() != 0)
      return rewriter.notifyMatchFailure(op, "not a pointwise op");
    auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!resultType || !resultType.hasStaticShape())
      return rewriter.notifyMatchFailure(op, "result is not static");
    ArrayRef<int64_t> perm;
    RankedTensorType sourceType;
    for (Value operand : op->getOperands()) {
      auto transposed = operand.getDefiningOp<TransposeOp>();
      if (!transposed) {
        if (isSingleElement(operand))
          continue;
        return rewriter.notifyMatchFailure(op, "an operand is no transpose");
      }
      auto type = dyn_cast<RankedTensorType>(transposed.getData().getType());
      if (!type || !type.hasStaticShape() ||
          operand.getType() != RankedTensorType::get(resultType.getShape(),
                                                     type.getElementType()))
        return rewriter.notifyMatchFailure(op, "a transpose is broadcast");
      if (!sourceType) {
        perm = transposed.getPerm();
        sourceType = type;
      } else if (transposed.getPerm() != perm ||
                 type.getShape() != sourceType.getShape()) {
        return rewriter.notifyMatchFailure(op, "transposes differ");
      }
    }
    if (!sourceType)
      return rewriter.notifyMatchFailure(op, "no transposed operand");
    Operation *sunk = rewriter.clone(*op);
    for (OpOperand &operand : sunk->getOpOperands())
      if (auto transposed = operand.get().getDefiningOp<TransposeOp>())
        operand.set(transposed.getData());
    sunk->getResult(0).setType(RankedTensorType::get(
        sourceType.getShape(), resultType.getElementType()));
    rewriter.replaceOp(
        op, transpose(rewriter, op->getLoc(), sunk->getResult(0), perm));
    return success();
  }
};

struct AssignLayoutPass : impl::KilnAssignLayoutBase<AssignLayoutPass> {
  using KilnAssignLayoutBase::KilnAssignLayoutBase;

  void runOnOperation() override {
    SmallVector<ConvOp> convs;
    getOperation().walk([&](ConvOp conv) {
      Type element = cast<ShapedType>(conv.getType()).getElementType();
      if (halfOnly && !element.isF16() && !element.isBF16())
        return;
      // Grouped convolutions stay NCHW: not every cuDNN algorithm takes them
      // channels-last.
      if (!conv.isChannelsLast() && conv.getGroup() == 1 &&
          fitsLibraryConvolution(conv) &&
          isWeightExpression(conv.getWeight()))
        convs.push_back(conv);
    });
    if (convs.empty())
      return;
    DenseMap<Value, Value> inputs;
    for (ConvOp conv : convs)
      makeChannelsLast(conv, inputs);

    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    TransposeOp::getCanonicalizationPatterns(patterns, context);
    patterns.add<SinkTransposeThroughPointwise>(context);
    if (failed(applyPatternsAndFoldGreedily(getOperation(),
                                            std::move(patterns)))) {
      getOperation().emitError("kiln-assign-layout: the transpose sinking "
                               "did not reach a fixed point");
      signalPassFailure();
    }
  }
};
} // namespace

} // namespace kiln
