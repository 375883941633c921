// kiln-assign-layout: runs the convolutions cuDNN takes in NHWC (what fp16
// tensor cores want) and sinks the layout transposes so that activations
// stay channels-last from one convolution to the next.
//
// Algorithm:
//  1. Every NCHW kiln.conv that cuDNN could run, grouped ones included,
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
//       untransposed values, with one transpose after it; a broadcast
//       operand joins when taking it to that layout is a view (its dims
//       larger than 1 keep their order: squeeze-excite's [N, C, 1, 1]
//       channel scale is [N, 1, 1, C] against NHWC), so the scale of a
//       channels-last activation needs no NCHW copy of it;
//     - a 2-D max or average pool of transpose(x, [0,3,1,2]) runs
//       channels-last on x (layout = "NHWC"), with the transpose after it;
//     - a reduction (sum, mean, max) with constant axes of
//       transpose(x, [0,3,1,2]) reduces x over the permuted axes, and only
//       its result is transposed (a global average pool of an NHWC value
//       reduces axes [1, 2]), unless that makes a strided reduction of more
//       than kMaxSerialReduction elements per output that is not a column
//       reduction (one run of axes before kept innermost ones, of a static
//       float tensor: the channels-last window template's);
//     - a concat of values that are all transpose(x_i, [0,3,1,2]) concats
//       the x_i (the channel concat of NHWC values is along their last
//       dim), and a slice of one with constant axes slices x;
//     - an inference batch norm of transpose(x, [0,3,1,2]) with constant
//       parameters becomes (input - mean) * factor + bias with [C, 1, 1]
//       operands, pointwise, which the rule above takes to x's layout.
//  3. A transpose of an activation that moves only size-1 dims (the
//     [N, 1, 1, C] -> [N, C, 1, 1] after a global pool) keeps the element
//     order: it becomes a kiln.reshape, a view that costs no kernel.
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/IR/OpBuilders.h"
#include "kiln/Dialect/Kiln/IR/ShapeUtils.h"
#include "kiln/Transforms/BatchNormFactor.h"
#include "kiln/Transforms/ConstantFolding.h"
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
/// The longest reduction over non-trailing axes that replaces a transpose
/// (ResNet's global pool reduces 7 x 7 per output).
constexpr int64_t kMaxSerialReduction = 1024;

/// |value| when it is transpose(x, [0,3,1,2]), the layout transpose that
/// step 1 puts after a channels-last op: that transpose; else null.
TransposeOp layoutTransposeOf(Value value) {
  auto transposed = value.getDefiningOp<TransposeOp>();
  return transposed &&
                 transposed.getPerm() == ArrayRef<int64_t>(kToChannelsFirst)
             ? transposed
             : TransposeOp();
}

/// The NHWC type of the NCHW |type|'s value: transpose(result, [0,3,1,2])
/// has |type|.
RankedTensorType channelsLastType(RankedTensorType type) {
  SmallVector<int64_t> shape(4);
  for (int64_t i = 0; i < 4; ++i)
    shape[kToChannelsFirst[i]] = type.getDimSize(i);
  return RankedTensorType::get(shape, type.getElementType());
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
    input = createTranspose(builder, loc, conv.getInput(), kToChannelsLast);
  }
  Value weight = createTranspose(builder, loc, conv.getWeight(), kToChannelsLast);
  auto nhwc = cast<ConvOp>(builder.clone(*conv));
  nhwc.getInputMutable().assign(input);
  nhwc.getWeightMutable().assign(weight);
  nhwc.setLayoutAttr(builder.getStringAttr("NHWC"));
  nhwc.getResult().setType(
      channelsLastType(cast<RankedTensorType>(conv.getType())));
  conv.getResult().replaceAllUsesWith(
      createTranspose(builder, loc, nhwc.getResult(), kToChannelsFirst));
  conv.erase();
}

bool isSingleElement(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && type.hasStaticShape() && type.getNumElements() == 1;
}

/// The permutation that undoes |perm|.
SmallVector<int64_t> inversePermutation(ArrayRef<int64_t> perm) {
  SmallVector<int64_t> inverse(perm.size());
  for (auto [i, p] : llvm::enumerate(perm))
    inverse[p] = static_cast<int64_t>(i);
  return inverse;
}

/// |type|'s shape left-padded with 1s to |rank| dims, as broadcasting reads
/// it.
SmallVector<int64_t> broadcastShape(RankedTensorType type, int64_t rank) {
  SmallVector<int64_t> shape(rank - type.getRank(), 1);
  llvm::append_range(shape, type.getShape());
  return shape;
}

/// Whether |operand| (of at most |perm|'s rank, broadcast to it) taken
/// through the inverse of |perm| is only a view: its dims larger than 1 keep
/// their order. A per-sample channel scale [N, C, 1, 1] (or a layer scale
/// [C, 1, 1]) against NCHW is [N, 1, 1, C] against NHWC.
bool transposesToView(Value operand, ArrayRef<int64_t> perm) {
  auto type = dyn_cast<RankedTensorType>(operand.getType());
  auto rank = static_cast<int64_t>(perm.size());
  if (!type || !type.hasStaticShape() || type.getRank() > rank)
    return false;
  SmallVector<int64_t> shape = broadcastShape(type, rank);
  // Dim i of the source layout is dim perm^-1(i) here; walk the source
  // layout and check the non-1 dims appear in increasing order.
  int64_t last = -1;
  for (int64_t dim : inversePermutation(perm)) {
    if (shape[dim] == 1)
      continue;
    if (dim < last)
      return false;
    last = dim;
  }
  return true;
}

/// |value| with |rank| dims: a reshape adding leading 1s when it has fewer.
Value withRank(OpBuilder &builder, Location loc, Value value, int64_t rank) {
  auto type = cast<RankedTensorType>(value.getType());
  if (type.getRank() == rank)
    return value;
  return createReshape(builder, loc, value, broadcastShape(type, rank));
}

// op(transpose(x, p), transpose(y, p), s) -> transpose(op(x, y, s'), p) for
// a pointwise op: the op runs in the layout its transposed operands come
// from. A broadcast operand s that is not a transpose joins when taking it
// to that layout is a view (transposesToView: squeeze-excite's channel scale,
// a per-channel bias), so a channels-last network's squeeze-excite block
// needs no NCHW copy of its activation.
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
    // A run-time extent (a ranged batch, issue 18) moves with its dim like
    // any other; shapes compare with it as `?`.
    if (!resultType)
      return rewriter.notifyMatchFailure(op, "result is not ranked");
    ArrayRef<int64_t> perm;
    RankedTensorType sourceType;
    SmallVector<Value> broadcast;
    for (Value operand : op->getOperands()) {
      auto transposed = operand.getDefiningOp<TransposeOp>();
      auto type =
          transposed
              ? dyn_cast<RankedTensorType>(transposed.getData().getType())
              : RankedTensorType();
      if (!transposed || !type ||
          operand.getType() != RankedTensorType::get(resultType.getShape(),
                                                     type.getElementType())) {
        if (isSingleElement(operand))
          continue;
        // Only an operand that is broadcast joins: one of the result's shape
        // would let the op sink back and forth between two layouts that
        // differ only in where size-1 dims sit.
        auto operandType = dyn_cast<RankedTensorType>(operand.getType());
        if (!operandType || operandType.getRank() > resultType.getRank() ||
            ArrayRef<int64_t>(broadcastShape(
                operandType, resultType.getRank())) == resultType.getShape())
          return rewriter.notifyMatchFailure(op, "an operand is no transpose");
        broadcast.push_back(operand);
        continue;
      }
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
    for (Value operand : broadcast)
      if (!transposesToView(operand, perm))
        return rewriter.notifyMatchFailure(
            op, "an operand is neither a transpose nor a broadcast view");
    SmallVector<int64_t> inverse = inversePermutation(perm);
    // The broadcast operands in the new layout, built before the clone
    // that uses them.
    DenseMap<Value, Value> relaid;
    for (Value value : broadcast)
      if (!relaid.count(value))
        relaid[value] = createTranspose(
            rewriter, op->getLoc(),
            withRank(rewriter, op->getLoc(), value, resultType.getRank()),
            inverse);
    Operation *sunk = rewriter.clone(*op);
    for (OpOperand &operand : sunk->getOpOperands()) {
      Value value = operand.get();
      auto transposed = value.getDefiningOp<TransposeOp>();
      if (Value view = relaid.lookup(value))
        operand.set(view);
      else if (transposed && transposed.getPerm() == perm &&
               transposed.getData().getType().getShape() ==
                   sourceType.getShape())
        operand.set(transposed.getData());
    }
    sunk->getResult(0).setType(RankedTensorType::get(
        sourceType.getShape(), resultType.getElementType()));
    rewriter.replaceOp(
        op, createTranspose(rewriter, op->getLoc(), sunk->getResult(0), perm));
    return success();
  }
};

// pool(transpose(x, [0,3,1,2])) -> transpose(pool_nhwc(x), [0,3,1,2])
template <typename PoolOpT>
struct SinkTransposeThroughPool : OpRewritePattern<PoolOpT> {
  using OpRewritePattern<PoolOpT>::OpRewritePattern;

  LogicalResult matchAndRewrite(PoolOpT pool,
                                PatternRewriter &rewriter) const override {
    TransposeOp transposed = layoutTransposeOf(pool.getInput());
    if (pool.isChannelsLast() || !transposed)
      return rewriter.notifyMatchFailure(pool, "input is no NHWC transpose");
    auto type = dyn_cast<RankedTensorType>(pool.getType());
    if (!type || type.getRank() != 4)
      return rewriter.notifyMatchFailure(pool, "not a 2-D pool");
    auto nhwc = cast<PoolOpT>(rewriter.clone(*pool));
    nhwc.getInputMutable().assign(transposed.getData());
    nhwc.setLayoutAttr(rewriter.getStringAttr("NHWC"));
    nhwc.getResult().setType(channelsLastType(type));
    rewriter.replaceOp(pool, createTranspose(rewriter, pool.getLoc(),
                                       nhwc.getResult(), kToChannelsFirst));
    return success();
  }
};

// reduce(transpose(x, p), axes) -> transpose(reduce(x, p[axes]), q)
template <typename ReduceOpT>
struct SinkTransposeThroughReduction : OpRewritePattern<ReduceOpT> {
  using OpRewritePattern<ReduceOpT>::OpRewritePattern;

  LogicalResult matchAndRewrite(ReduceOpT reduce,
                                PatternRewriter &rewriter) const override {
    // Only the layout transposes: a transpose the model itself has may feed
    // a row reduction that would lose its row form.
    TransposeOp transposed = layoutTransposeOf(reduce.getData());
    if (!transposed || !reduce.getAxes())
      return rewriter.notifyMatchFailure(reduce, "no NHWC transpose or axes");
    auto sourceType =
        dyn_cast<RankedTensorType>(transposed.getData().getType());
    std::optional<SmallVector<int64_t>> axes =
        getConstantIntegers(reduce.getAxes());
    if (!sourceType || !axes || axes->empty())
      return rewriter.notifyMatchFailure(reduce, "axes are not constant");
    int64_t rank = sourceType.getRank();
    ArrayRef<int64_t> perm = transposed.getPerm();
    SmallVector<bool> reduced(rank, false); // Per dim of the transposed value.
    for (int64_t axis : *axes) {
      std::optional<int64_t> normalized = normalizeAxis(axis, rank);
      if (!normalized)
        return rewriter.notifyMatchFailure(reduce, "an axis is out of range");
      reduced[*normalized] = true;
    }
    // The source dims reduced, and the rank each kept source dim has in the
    // reduced value (all of them with keepdims).
    SmallVector<bool> sourceReduced(rank, false);
    for (int64_t i = 0; i < rank; ++i)
      sourceReduced[perm[i]] = reduced[i];
    SmallVector<int64_t> sourceAxes, keptRank(rank, -1);
    for (int64_t d = 0, kept = 0; d < rank; ++d) {
      if (sourceReduced[d])
        sourceAxes.push_back(d);
      if (!sourceReduced[d] || reduce.getKeepdims())
        keptRank[d] = kept++;
    }
    // Reduced axes that do not end the source make a serial loop per output
    // (not a row kernel): keep the transpose when that loop would be long,
    // unless the axes are one run before kept innermost axes, a column
    // reduction, which the channels-last window template reduces by
    // vectors of channels (a squeeze-excite mean over 112 x 112 pixels).
    bool trailing = sourceAxes.front() == rank - int64_t(sourceAxes.size());
    bool column = sourceAxes.back() - sourceAxes.front() + 1 ==
                      int64_t(sourceAxes.size()) &&
                  sourceType.hasStaticShape() &&
                  isa<FloatType>(sourceType.getElementType());
    int64_t reducedElements = 1;
    bool longLoop = false;
    for (int64_t d : sourceAxes) {
      int64_t size = sourceType.getDimSize(d);
      longLoop |= ShapedType::isDynamic(size);
      if (!ShapedType::isDynamic(size))
        reducedElements *= size;
    }
    if (!trailing && !column &&
        (longLoop || reducedElements > kMaxSerialReduction))
      return rewriter.notifyMatchFailure(reduce, "long strided reduction");
    SmallVector<int64_t> resultPerm;
    for (int64_t i = 0; i < rank; ++i)
      if (keptRank[perm[i]] >= 0)
        resultPerm.push_back(keptRank[perm[i]]);
    Location loc = reduce.getLoc();
    Value sourceAxesValue = createI64Constant(rewriter, loc, sourceAxes);
    Value sunk = rewriter.create<ReduceOpT>(
        loc, transposed.getData(), sourceAxesValue, reduce.getKeepdimsAttr(),
        reduce.getNoopWithEmptyAxesAttr());
    rewriter.replaceOp(reduce, createTranspose(rewriter, loc, sunk, resultPerm));
    return success();
  }
};

// concat(transpose(x1, p), ..., transpose(xn, p), a)
//   -> transpose(concat(x1, ..., xn, p[a]), p)
// for the layout transpose p = [0,3,1,2]: the channel concat of NHWC values
// is a concat along their last dim (DenseNet's dense blocks, SqueezeNet's
// fire modules, Inception's branches), so their activations need no NCHW
// copy.
struct SinkTransposeThroughConcat : OpRewritePattern<ConcatOp> {
  using OpRewritePattern<ConcatOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(ConcatOp concat,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(concat.getType());
    if (!type || !type.hasStaticShape() || type.getRank() != 4)
      return rewriter.notifyMatchFailure(concat, "not a static 4-D concat");
    SmallVector<Value> sources;
    for (Value input : concat.getInputs()) {
      TransposeOp transposed = layoutTransposeOf(input);
      if (!transposed)
        return rewriter.notifyMatchFailure(concat,
                                           "an input is no NHWC transpose");
      sources.push_back(transposed.getData());
    }
    std::optional<int64_t> axis = normalizeAxis(concat.getAxis(), 4);
    if (!axis)
      return rewriter.notifyMatchFailure(concat, "axis out of range");
    Location loc = concat.getLoc();
    Value sunk = rewriter.create<ConcatOp>(
        loc, channelsLastType(type), sources,
        rewriter.getI64IntegerAttr(kToChannelsFirst[*axis]));
    rewriter.replaceOp(concat,
                       createTranspose(rewriter, loc, sunk, kToChannelsFirst));
    return success();
  }
};

// slice(transpose(x, p), starts, ends, axes, steps)
//   -> transpose(slice(x, starts, ends, p[axes], steps), p)
// for the layout transpose p = [0,3,1,2] and constant axes: ShuffleNet's
// channel split of an NHWC value slices its last dim.
struct SinkTransposeThroughSlice : OpRewritePattern<SliceOp> {
  using OpRewritePattern<SliceOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(SliceOp slice,
                                PatternRewriter &rewriter) const override {
    TransposeOp transposed = layoutTransposeOf(slice.getData());
    auto type = dyn_cast<RankedTensorType>(slice.getType());
    if (!transposed || !type || !type.hasStaticShape())
      return rewriter.notifyMatchFailure(slice, "input is no NHWC transpose");
    std::optional<SmallVector<int64_t>> axes =
        axesBeforeTranspose(slice, transposed);
    if (!axes)
      return rewriter.notifyMatchFailure(slice, "axes are not constant or "
                                                "an axis is out of range");
    rewriter.replaceOp(
        slice, createSliceBeforeTranspose(rewriter, slice, transposed, *axes));
    return success();
  }
};

// batch_norm(transpose(x, [0,3,1,2]), s, b, m, v) with constant parameters
//   -> (transpose(x, [0,3,1,2]) - m') * f' + b'
// with f = s / sqrt(v + epsilon) and m', f', b' of shape [C, 1, 1]: an
// inference batch norm that no convolution absorbs (kiln-fold-batch-norm:
// DenseNet's pre-activation norms after a concat) is pointwise with
// per-channel operands, which SinkTransposeThroughPointwise takes to x's
// layout as views. The mean is subtracted before scaling, as the op
// defines, so a large mean does not cancel against the bias in f16.
struct DecomposeChannelsLastBatchNorm : OpRewritePattern<BatchNormOp> {
  using OpRewritePattern<BatchNormOp>::OpRewritePattern;

  LogicalResult matchAndRewrite(BatchNormOp norm,
                                PatternRewriter &rewriter) const override {
    auto type = dyn_cast<RankedTensorType>(norm.getType());
    if (!layoutTransposeOf(norm.getInput()) || !type || !type.hasStaticShape())
      return rewriter.notifyMatchFailure(norm, "input is no NHWC transpose");
    auto channelType =
        RankedTensorType::get({type.getDimSize(1)}, type.getElementType());
    for (Value parameter :
         {norm.getScale(), norm.getBias(), norm.getMean(), norm.getVariance()})
      if (parameter.getType() != channelType || !isWeightExpression(parameter))
        return rewriter.notifyMatchFailure(
            norm, "a parameter is not a constant [C] of the input's type");
    Location loc = norm.getLoc();
    SmallVector<int64_t> columnShape{type.getDimSize(1), 1, 1};
    auto column = [&](Value channel) {
      return createReshape(rewriter, loc, channel, columnShape);
    };
    Value factor = buildBatchNormFactor(rewriter, loc, norm);
    Value centred = rewriter.create<SubOp>(loc, type, norm.getInput(),
                                           column(norm.getMean()));
    Value scaled = rewriter.create<MulOp>(loc, type, centred, column(factor));
    rewriter.replaceOpWithNewOp<AddOp>(norm, type, scaled,
                                       column(norm.getBias()));
    return success();
  }
};

/// Step 3: whether |op| only moves size-1 dims (the others keep their order).
bool movesOnlyUnitDims(TransposeOp op) {
  // A run-time extent (issue 18) is a dim larger than 1; one at most, which
  // the reshape gives as -1.
  auto type = dyn_cast<RankedTensorType>(op.getData().getType());
  if (!type || type.getNumDynamicDims() > 1)
    return false;
  int64_t previous = -1;
  for (int64_t p : op.getPerm()) {
    if (type.getDimSize(p) == 1)
      continue;
    if (p < previous)
      return false;
    previous = p;
  }
  return true;
}

/// Step 3: transpose(x) -> reshape(x) where only size-1 dims move. Weight
/// transposes stay weight transforms (folded, or run once at load).
void replaceUnitDimTransposes(func::FuncOp function) {
  SmallVector<TransposeOp> transposes;
  function.walk([&](TransposeOp op) {
    if (movesOnlyUnitDims(op) && !isWeightExpression(op.getData()))
      transposes.push_back(op);
  });
  for (TransposeOp op : transposes) {
    OpBuilder builder(op);
    Value view = createReshape(builder, op.getLoc(), op.getData(),
                               cast<RankedTensorType>(op.getType()).getShape());
    op.getResult().replaceAllUsesWith(view);
    op.erase();
  }
}

struct AssignLayoutPass : impl::KilnAssignLayoutBase<AssignLayoutPass> {
  using KilnAssignLayoutBase::KilnAssignLayoutBase;

  void runOnOperation() override {
    SmallVector<ConvOp> convs;
    getOperation().walk([&](ConvOp conv) {
      Type element = cast<ShapedType>(conv.getType()).getElementType();
      if (halfOnly && !element.isF16() && !element.isBF16())
        return;
      // Grouped convolutions too: an NCHW one among NHWC neighbours costs a
      // transpose of its input and of its output (MobileNet-V2 at batch 8:
      // 35 transposes, 0.66 ms; channels-last 1, 0.58 ms; with its depthwise
      // convolutions generated, isLibraryConvolution, 0.41 ms, H200).
      if (!conv.isChannelsLast() && fitsLibraryConvolution(conv) &&
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
    patterns.add<SinkTransposeThroughPool<MaxPoolOp>,
                 SinkTransposeThroughPool<AveragePoolOp>>(context);
    patterns.add<SinkTransposeThroughConcat, SinkTransposeThroughSlice,
                 DecomposeChannelsLastBatchNorm>(context);
    patterns.add<SinkTransposeThroughReduction<ReduceSumOp>,
                 SinkTransposeThroughReduction<ReduceMeanOp>,
                 SinkTransposeThroughReduction<ReduceMaxOp>>(context);
    if (failed(applyPatternsAndFoldGreedily(getOperation(),
                                            std::move(patterns)))) {
      getOperation().emitError("kiln-assign-layout: the transpose sinking "
                               "did not reach a fixed point");
      signalPassFailure();
      return;
    }
    replaceUnitDimTransposes(getOperation());
  }
};
} // namespace

} // namespace kiln
