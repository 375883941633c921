// Type inference and folds of kiln's reshaping ops: reshape, transpose, concat
// and flatten. Slice, gather, (un)squeeze and expand are in ShapeAxisOps.cpp;
// shape and constant in ShapeConstantOps.cpp.
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/IR/OpBuilders.h"
#include "kiln/Dialect/Kiln/IR/TensorLimits.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace kiln;

namespace {
Type elementOf(Value value) { return getElementTypeOrSelf(value.getType()); }
} // namespace

//===----------------------------------------------------------------------===//
// Reshape
//===----------------------------------------------------------------------===//

LogicalResult ReshapeOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> location,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  Type element = elementOf(adaptor.getData());
  std::optional<SmallVector<int64_t>> target =
      getPartialIntegers(adaptor.getShape());
  if (!target) {
    std::optional<int64_t> rank = staticLength(adaptor.getShape());
    if (failed(checkRank(location, rank)))
      return failure();
    inferred.push_back(dynamicTensor(rank, element));
    return success();
  }
  auto inputType = tensorOf(adaptor.getData());
  SmallVector<int64_t> shape;
  int64_t inferredIndex = -1;
  for (auto [i, dim] : llvm::enumerate(*target)) {
    if (ShapedType::isDynamic(dim)) {
      shape.push_back(ShapedType::kDynamic); // Known only at run time.
    } else if (dim == -1) {
      if (inferredIndex >= 0)
        return emitOptionalError(location, "shape has more than one -1");
      inferredIndex = i;
      shape.push_back(ShapedType::kDynamic);
    } else if (dim == 0 && !adaptor.getAllowzero()) {
      if (!inputType.hasRank() || int64_t(i) >= inputType.getRank()) {
        if (inputType.hasRank())
          return emitOptionalError(location, "shape copies dim ", i,
                                   " of a rank-", inputType.getRank(), " input");
        shape.push_back(ShapedType::kDynamic);
      } else {
        shape.push_back(inputType.getDimSize(i));
      }
    } else if (dim < 0) {
      return emitOptionalError(location, "invalid dimension ", dim, " in shape");
    } else {
      shape.push_back(dim);
    }
  }
  std::optional<int64_t> total =
      inputType.hasRank() ? getStaticElementCount(inputType.getShape())
                          : std::nullopt;
  if (inferredIndex >= 0 && total) {
    int64_t known = 1;
    bool allKnown = true;
    for (auto [i, dim] : llvm::enumerate(shape))
      if (int64_t(i) != inferredIndex) {
        if (ShapedType::isDynamic(dim))
          allKnown = false;
        else
          known *= dim;
      }
    if (allKnown) {
      if (known == 0 || *total % known != 0)
        return emitOptionalError(location, "cannot reshape ", *total,
                                 " elements into shape with -1");
      shape[inferredIndex] = *total / known;
    }
  }
  std::optional<int64_t> resultCount = getStaticElementCount(shape);
  if (total && resultCount && *total != *resultCount)
    return emitOptionalError(location, "cannot reshape ", inputType, " (",
                             *total, " elements) into ", *resultCount,
                             " elements");
  inferred.push_back(RankedTensorType::get(shape, element));
  return success();
}

// reshape(x : T) to T, when T is static -> x
OpFoldResult ReshapeOp::fold(FoldAdaptor) {
  auto type = dyn_cast<RankedTensorType>(getType());
  if (type && type.hasStaticShape() && getData().getType() == type)
    return getData();
  return {};
}

namespace {
// reshape(reshape(x, s1), s2) -> reshape(x, s2) when s2 holds no 0 (a 0 would
// copy a dim of the intermediate, not of x).
struct FoldReshapeChain : OpRewritePattern<ReshapeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(ReshapeOp op,
                                PatternRewriter &rewriter) const override {
    auto producer = op.getData().getDefiningOp<ReshapeOp>();
    if (!producer)
      return rewriter.notifyMatchFailure(op, "input is not a reshape");
    std::optional<SmallVector<int64_t>> shape =
        getConstantIntegers(op.getShape());
    if (!op.getAllowzero() && (!shape || llvm::is_contained(*shape, 0)))
      return rewriter.notifyMatchFailure(op, "shape may copy input dims");
    rewriter.modifyOpInPlace(
        op, [&] { op.getDataMutable().assign(producer.getData()); });
    return success();
  }
};
} // namespace

void ReshapeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                            MLIRContext *context) {
  results.add<FoldReshapeChain>(context);
}

//===----------------------------------------------------------------------===//
// Transpose, Concat, Flatten
//===----------------------------------------------------------------------===//

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> location,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  auto type = tensorOf(adaptor.getData());
  ArrayRef<int64_t> perm = adaptor.getPerm();
  if (!type.hasRank()) {
    inferred.push_back(dynamicTensor(int64_t(perm.size()), type.getElementType()));
    return success();
  }
  if (int64_t(perm.size()) != type.getRank())
    return emitOptionalError(location, "perm has ", perm.size(),
                             " entries for a rank-", type.getRank(), " input");
  SmallVector<bool> seen(perm.size(), false);
  SmallVector<int64_t> shape;
  for (int64_t p : perm) {
    if (p < 0 || p >= type.getRank() || seen[p])
      return emitOptionalError(location, "perm is not a permutation");
    seen[p] = true;
    shape.push_back(type.getDimSize(p));
  }
  inferred.push_back(RankedTensorType::get(shape, type.getElementType()));
  return success();
}

// transpose(x) with the identity permutation -> x
OpFoldResult TransposeOp::fold(FoldAdaptor) {
  for (auto [i, p] : llvm::enumerate(getPerm()))
    if (int64_t(i) != p)
      return {};
  if (getData().getType() != getType())
    return {};
  return getData();
}

namespace {
// transpose(transpose(x, p1), p2) -> transpose(x, p1[p2[i]])
struct ComposeTransposes : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto producer = op.getData().getDefiningOp<TransposeOp>();
    if (!producer)
      return rewriter.notifyMatchFailure(op, "input is not a transpose");
    SmallVector<int64_t> perm;
    for (int64_t p : op.getPerm())
      perm.push_back(producer.getPerm()[p]);
    rewriter.modifyOpInPlace(op, [&] {
      op.getDataMutable().assign(producer.getData());
      op.setPerm(perm);
    });
    return success();
  }
};

// transpose(mul(transpose(x, p1), c), p2) -> mul(transpose(x, p1[p2[i]]), c)
// when c is a one-element constant and the mul has no other use: a scalar
// factor commutes with any permutation, so the transposes meet and compose
// (the recogniser's k^T * scale, transposed back for kiln.attention).
struct HoistScalarMul : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto mul = op.getData().getDefiningOp<MulOp>();
    if (!mul || !mul->hasOneUse())
      return rewriter.notifyMatchFailure(op, "input is not a single-use mul");
    for (unsigned side : {0u, 1u}) {
      auto inner = mul->getOperand(side).getDefiningOp<TransposeOp>();
      Value factor = mul->getOperand(1 - side);
      auto factorType = dyn_cast<RankedTensorType>(factor.getType());
      if (!inner || inner.getType() != mul.getType() || !factorType ||
          !factorType.hasStaticShape() || factorType.getNumElements() != 1 ||
          factorType.getRank() > op.getType().getRank() ||
          !factor.getDefiningOp<ConstantOp>())
        continue;
      SmallVector<int64_t> perm;
      for (int64_t p : op.getPerm())
        perm.push_back(inner.getPerm()[p]);
      Value moved = rewriter.create<TransposeOp>(
          op.getLoc(), inner.getData(), rewriter.getDenseI64ArrayAttr(perm));
      rewriter.replaceOpWithNewOp<MulOp>(op, op.getType(), moved, factor);
      return success();
    }
    return rewriter.notifyMatchFailure(op, "no transposed operand and scalar");
  }
};

// A split of a transpose: every user of transpose(x, p) a slice with
// constant axes -> each slice(transpose(x, p), axes a) becomes
// transpose(slice(x, axes p[a]), p). Swin's joint projection is transposed
// to [3, B W, h, N, d] before q, k and v are taken from it; as one shared
// transpose it had to be written out (a kernel of its own) for consumers in
// different kernels, each piece with its own transpose joins its consumer
// (read through it, as the attention and row kernels read transposes).
struct SplitOfTranspose : OpRewritePattern<TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(TransposeOp op,
                                PatternRewriter &rewriter) const override {
    if (op->hasOneUse() || op->use_empty())
      return rewriter.notifyMatchFailure(op, "not a split");
    SmallVector<std::pair<SliceOp, SmallVector<int64_t>>> slices;
    // Every use is a slice's data (so each slice is visited once: one that
    // also took its starts or ends from the transpose is not a piece).
    for (OpOperand &use : op->getUses()) {
      auto slice = dyn_cast<SliceOp>(use.getOwner());
      std::optional<SmallVector<int64_t>> axes =
          slice && use.getOperandNumber() == 0 &&
                  isa<RankedTensorType>(slice.getType())
              ? axesBeforeTranspose(slice, op)
              : std::nullopt;
      if (!axes)
        return rewriter.notifyMatchFailure(op, "a use is not the data of a "
                                               "slice with constant axes in "
                                               "range");
      slices.push_back({slice, std::move(*axes)});
    }
    for (auto &[slice, axes] : slices) {
      rewriter.setInsertionPoint(slice);
      rewriter.replaceOp(slice,
                         createSliceBeforeTranspose(rewriter, slice, op, axes));
    }
    return success();
  }
};
} // namespace

std::optional<SmallVector<int64_t>>
kiln::axesBeforeTranspose(SliceOp slice, TransposeOp transpose) {
  std::optional<SmallVector<int64_t>> axes =
      getConstantIntegers(slice.getAxes());
  if (!axes)
    return std::nullopt;
  ArrayRef<int64_t> perm = transpose.getPerm();
  for (int64_t &axis : *axes) {
    std::optional<int64_t> normalized = normalizeAxis(axis, perm.size());
    if (!normalized)
      return std::nullopt;
    axis = perm[*normalized];
  }
  return axes;
}

Value kiln::createSliceBeforeTranspose(OpBuilder &builder, SliceOp slice,
                                       TransposeOp transpose,
                                       ArrayRef<int64_t> axes) {
  Location loc = slice.getLoc();
  auto type = cast<RankedTensorType>(slice.getType());
  ArrayRef<int64_t> perm = transpose.getPerm();
  SmallVector<int64_t> shape(perm.size());
  for (auto [a, p] : llvm::enumerate(perm))
    shape[p] = type.getDimSize(a);
  auto axesType = cast<RankedTensorType>(slice.getAxes().getType());
  unsigned width = axesType.getElementType().getIntOrFloatBitWidth();
  SmallVector<APInt> values;
  for (int64_t axis : axes)
    values.push_back(APInt(width, axis, /*isSigned=*/true));
  Value mapped = builder.create<ConstantOp>(
      loc,
      DenseElementsAttr::get(RankedTensorType::get({int64_t(axes.size())},
                                                   axesType.getElementType()),
                             values));
  Value piece = builder.create<SliceOp>(
      loc, RankedTensorType::get(shape, type.getElementType()),
      transpose.getData(), slice.getStarts(), slice.getEnds(), mapped,
      slice.getSteps());
  return builder.create<TransposeOp>(loc, type, piece, transpose.getPermAttr());
}

void TransposeOp::getCanonicalizationPatterns(RewritePatternSet &results,
                                              MLIRContext *context) {
  results.add<ComposeTransposes, HoistScalarMul, SplitOfTranspose>(context);
}

LogicalResult ConcatOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> location,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  ValueRange inputs = adaptor.getInputs();
  if (inputs.empty())
    return emitOptionalError(location, "needs at least one input");
  Type element = elementOf(inputs.front());
  std::optional<SmallVector<int64_t>> shape;
  std::optional<int64_t> axis;
  for (Value input : inputs) {
    auto type = tensorOf(input);
    if (type.getElementType() != element)
      return emitOptionalError(location, "inputs must share one element type");
    if (!type.hasRank())
      continue;
    if (!shape) {
      axis = normalizeAxis(adaptor.getAxis(), type.getRank());
      if (!axis)
        return emitOptionalError(location, "axis ", adaptor.getAxis(),
                                 " is out of range for rank ", type.getRank());
      shape = SmallVector<int64_t>(type.getShape());
      (*shape)[*axis] = 0;
    }
    if (int64_t(shape->size()) != type.getRank())
      return emitOptionalError(location, "inputs must have the same rank");
    for (int64_t i = 0; i < type.getRank(); ++i) {
      int64_t dim = type.getDimSize(i);
      int64_t &out = (*shape)[i];
      if (i == *axis) {
        out = (ShapedType::isDynamic(out) || ShapedType::isDynamic(dim))
                  ? ShapedType::kDynamic
                  : out + dim;
      } else if (ShapedType::isDynamic(out)) {
        out = dim;
      } else if (!ShapedType::isDynamic(dim) && dim != out) {
        return emitOptionalError(location, "dimension ", i,
                                 " differs between inputs: ", out, " vs ", dim);
      }
    }
  }
  bool anyUnranked = llvm::any_of(
      inputs, [](Value v) { return !tensorOf(v).hasRank(); });
  if (!shape) {
    inferred.push_back(UnrankedTensorType::get(element));
  } else {
    if (anyUnranked)
      (*shape)[*axis] = ShapedType::kDynamic;
    inferred.push_back(RankedTensorType::get(*shape, element));
  }
  return success();
}

LogicalResult FlattenOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> location,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  auto type = tensorOf(adaptor.getInput());
  if (!type.hasRank()) {
    inferred.push_back(dynamicTensor(2, type.getElementType()));
    return success();
  }
  int64_t rank = type.getRank(), axis = adaptor.getAxis();
  if (axis < -rank || axis > rank)
    return emitOptionalError(location, "axis ", axis,
                             " is out of range for rank ", rank);
  if (axis < 0)
    axis += rank;
  auto product = [&](ArrayRef<int64_t> dims) -> int64_t {
    std::optional<int64_t> count = getStaticElementCount(dims);
    return count ? *count : ShapedType::kDynamic;
  };
  SmallVector<int64_t> shape{product(type.getShape().take_front(axis)),
                             product(type.getShape().drop_front(axis))};
  inferred.push_back(RankedTensorType::get(shape, type.getElementType()));
  return success();
}

// flatten(x : T) to T -> x
OpFoldResult FlattenOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return {};
}
