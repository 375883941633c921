// kiln-recognize-patterns: decomposed GELU (erf and tanh forms) and scaled
// dot-product attention become kiln.gelu and kiln.attention.
//
// Algorithm (both patterns, run by the greedy driver):
//  1. GELU is rooted at a kiln.mul. The product is flattened through muls
//     whose only user is the product, which must leave three factors:
//     `x`, the constant 0.5 and `1 + erf(x / sqrt 2)` (or
//     `1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))`). Operands of every
//     commutative op may come in either order.
//  2. Attention is rooted at the kiln.matmul that multiplies a last-axis
//     softmax by `v`. The softmax input is the scores `q @ kT`, optionally
//     scaled by a scalar constant (mul or div) or by a factor constant over
//     each matrix (`[..., 1, 1]`: Swin-V2's per-head logit scale, moved onto
//     q), and optionally plus an additive mask of the scores' shape after
//     broadcasting. The mask may come in a view that splits the scores' first
//     (batch) dim in two and back (Swin's shifted windows: `[B * W, h, N, N]`
//     viewed as `[B, W, h, N, N]` plus the `[1, W, 1, N, N]` window mask): the
//     attention is then made in that view, q, k and v split alike, the masks
//     added into one (a sum of weights, computed at load), and its result
//     viewed back.
//  3. Every intermediate must have one user, so the decomposed ops are dead
//     after the rewrite (the driver erases them); constants may be shared.
//  4. Constants match with a relative tolerance of 1e-6, or the precision of
//     their element type when that is coarser (f16 and bf16 graphs).
#include "kiln/Transforms/Passes.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/IR/OpBuilders.h"
#include "kiln/Dialect/Kiln/IR/ShapeUtils.h"

#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/STLExtras.h"

#include <cmath>

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNRECOGNIZEPATTERNS
#include "kiln/Transforms/Passes.h.inc"

namespace {

constexpr double kInverseSqrt2 = 0.70710678118654752440;
constexpr double kSqrt2OverPi = 0.79788456080286535588;
constexpr double kGeluCubeCoefficient = 0.044715;

/// The value of a one-element float or integer kiln.constant.
std::optional<double> getScalarConstant(Value value) {
  auto constant = value.getDefiningOp<ConstantOp>();
  if (!constant)
    return std::nullopt;
  auto type = cast<ShapedType>(constant.getType());
  auto dense = dyn_cast<DenseElementsAttr>(constant.getValue());
  if (!dense || !type.hasStaticShape() || type.getNumElements() != 1)
    return std::nullopt;
  Type element = type.getElementType();
  if (isa<FloatType>(element))
    return (*dense.getValues<APFloat>().begin()).convertToDouble();
  if (auto integer = dyn_cast<IntegerType>(element)) {
    APInt bits = *dense.getValues<APInt>().begin();
    return integer.isUnsigned() ? double(bits.getZExtValue())
                                : double(bits.getSExtValue());
  }
  return std::nullopt;
}

/// Whether |value| is a one-element constant equal to |expected| within
/// 1e-6 relative, or within the precision of its float element type.
bool isScalar(Value value, double expected) {
  std::optional<double> actual = getScalarConstant(value);
  if (!actual)
    return false;
  double tolerance = 1e-6;
  if (auto floatType = dyn_cast<FloatType>(getElementTypeOrSelf(value))) {
    unsigned precision =
        APFloat::semanticsPrecision(floatType.getFloatSemantics());
    tolerance = std::max(tolerance, std::ldexp(1.0, 1 - int(precision)));
  }
  return std::abs(*actual - expected) <= tolerance * std::abs(expected);
}

/// The op of type OpT that defines |value| when |value| has no other user.
template <typename OpT> OpT singleUse(Value value) {
  if (!value || !value.hasOneUse())
    return nullptr;
  return value.getDefiningOp<OpT>();
}

/// `y` when |value| is `y * c` or `c * y` (c ≈ |factor|) or `y / c`
/// (c ≈ 1 / |factor|) and has no other user; null otherwise.
Value matchTimesConstant(Value value, double factor) {
  if (auto mul = singleUse<MulOp>(value)) {
    if (isScalar(mul.getRhs(), factor))
      return mul.getLhs();
    if (isScalar(mul.getLhs(), factor))
      return mul.getRhs();
  }
  if (auto div = singleUse<DivOp>(value))
    if (isScalar(div.getRhs(), 1.0 / factor))
      return div.getLhs();
  return nullptr;
}

/// The erf or tanh op of `1 + erf(...)` / `1 + tanh(...)` (either order).
Operation *matchOnePlus(Value value) {
  auto add = singleUse<AddOp>(value);
  if (!add)
    return nullptr;
  for (auto [term, one] : {std::pair(add.getLhs(), add.getRhs()),
                           std::pair(add.getRhs(), add.getLhs())}) {
    if (!isScalar(one, 1.0) || !term.hasOneUse())
      continue;
    if (Operation *op = term.getDefiningOp(); op && isa<ErfOp, TanhOp>(op))
      return op;
  }
  return nullptr;
}

/// Whether |value| is x^3: `pow(x, 3)`, `(x * x) * x` or `x * (x * x)`.
bool isCubeOf(Value value, Value x) {
  if (auto pow = singleUse<PowOp>(value))
    return pow.getBase() == x && isScalar(pow.getExponent(), 3.0);
  auto mul = singleUse<MulOp>(value);
  if (!mul)
    return false;
  auto isSquare = [&](Value square) {
    auto inner = singleUse<MulOp>(square);
    return inner && inner.getLhs() == x && inner.getRhs() == x;
  };
  return (mul.getLhs() == x && isSquare(mul.getRhs())) ||
         (mul.getRhs() == x && isSquare(mul.getLhs()));
}

/// `x` when |value| is `sqrt(2/pi) * (x + 0.044715 * x^3)` (any order).
Value matchTanhArgument(Value value) {
  auto sum = singleUse<AddOp>(matchTimesConstant(value, kSqrt2OverPi));
  if (!sum)
    return nullptr;
  for (auto [x, term] : {std::pair(sum.getLhs(), sum.getRhs()),
                         std::pair(sum.getRhs(), sum.getLhs())})
    if (Value cube = matchTimesConstant(term, kGeluCubeCoefficient);
        cube && isCubeOf(cube, x))
      return x;
  return nullptr;
}

/// The factors of the product |value|, looking through muls with one user.
void collectFactors(Value value, bool isRoot, SmallVectorImpl<Value> &factors) {
  if (factors.size() > 3)
    return;
  auto mul = value.getDefiningOp<MulOp>();
  if (mul && (isRoot || value.hasOneUse())) {
    collectFactors(mul.getLhs(), false, factors);
    collectFactors(mul.getRhs(), false, factors);
    return;
  }
  factors.push_back(value);
}

/// The fused location of |root| and the ops it reaches through operands
/// before any of |stops| or a constant: the ONNX nodes a rewrite replaces.
Location subgraphLocation(Operation *root, ArrayRef<Value> stops) {
  SmallVector<Location> locations;
  llvm::SmallPtrSet<Operation *, 16> seen;
  SmallVector<Operation *> worklist{root};
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    if (!seen.insert(op).second || isa<ConstantOp>(op))
      continue;
    locations.push_back(op->getLoc());
    for (Value operand : op->getOperands())
      if (Operation *producer = operand.getDefiningOp();
          producer && !llvm::is_contained(stops, operand))
        worklist.push_back(producer);
  }
  return FusedLoc::get(root->getContext(), locations);
}

/// 0.5 * x * (1 + erf(x / sqrt 2)) -> kiln.gelu x, and the tanh form ->
/// kiln.gelu x {approximate = "tanh"}.
struct RecognizeGelu : OpRewritePattern<MulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MulOp root,
                                PatternRewriter &rewriter) const override {
    SmallVector<Value, 4> factors;
    collectFactors(root.getResult(), /*isRoot=*/true, factors);
    if (factors.size() != 3)
      return rewriter.notifyMatchFailure(root, "not a product of 3 factors");
    for (unsigned i = 0; i < 3; ++i) {
      Operation *unary = matchOnePlus(factors[i]);
      if (!unary)
        continue;
      bool exact = isa<ErfOp>(unary);
      Value x = exact ? matchTimesConstant(unary->getOperand(0), kInverseSqrt2)
                      : matchTanhArgument(unary->getOperand(0));
      if (!x)
        continue;
      Value a = factors[(i + 1) % 3], b = factors[(i + 2) % 3];
      if (!(a == x && isScalar(b, 0.5)) && !(b == x && isScalar(a, 0.5)))
        continue;
      if (x.getType() != root.getType())
        return rewriter.notifyMatchFailure(root, "broadcasting changes the "
                                                 "shape or type of x");
      Location location = subgraphLocation(root, {x});
      auto gelu = rewriter.replaceOpWithNewOp<GeluOp>(
          root, root.getType(), x,
          rewriter.getStringAttr(exact ? "none" : "tanh"));
      gelu->setLoc(location);
      return success();
    }
    return rewriter.notifyMatchFailure(root, "not a GELU product");
  }
};

/// The scores `q @ kT`, optionally times a scalar constant (or divided by
/// one) or times a factor constant over each matrix, each with no other user.
struct Scores {
  MatMulOp product;
  double scale = 1.0;
  /// `[..., 1, 1]`, of the product's element type: (q @ kT) * f is
  /// (q * f) @ kT.
  Value matrixFactor;
};

/// Whether |factor| is constant over each matrix of |product| (its last two
/// dims are 1) and broadcasts into it (the product keeps its type).
bool isMatrixFactor(Value factor, MatMulOp product, Type productType) {
  auto type = dyn_cast<RankedTensorType>(factor.getType());
  auto scores = cast<RankedTensorType>(product.getType());
  return type && type.getRank() >= 2 && type.getRank() <= scores.getRank() &&
         type.getElementType() == scores.getElementType() &&
         type.getShape().take_back(2) == ArrayRef<int64_t>{1, 1} &&
         productType == scores;
}

std::optional<Scores> matchScores(Value value) {
  if (auto product = singleUse<MatMulOp>(value))
    return Scores{product, 1.0, {}};
  if (auto mul = singleUse<MulOp>(value)) {
    for (auto [term, factor] : {std::pair(mul.getLhs(), mul.getRhs()),
                                std::pair(mul.getRhs(), mul.getLhs())})
      if (auto product = singleUse<MatMulOp>(term)) {
        if (std::optional<double> scale = getScalarConstant(factor);
            scale && mul.getType() == product.getType())
          return Scores{product, *scale, {}};
        if (isMatrixFactor(factor, product, mul.getType()))
          return Scores{product, 1.0, factor};
      }
    return std::nullopt;
  }
  if (auto div = singleUse<DivOp>(value))
    if (auto product = singleUse<MatMulOp>(div.getLhs()))
      if (std::optional<double> divisor = getScalarConstant(div.getRhs());
          divisor && *divisor != 0.0 && div.getType() == product.getType())
        return Scores{product, 1.0 / *divisor, {}};
  return std::nullopt;
}

/// K from kT: the transpose that makes kT with its last two dims swapped
/// back (no op when that is the identity), or a new transpose of kT.
Value buildKey(PatternRewriter &rewriter, Location location, Value keyT) {
  int64_t rank = cast<RankedTensorType>(keyT.getType()).getRank();
  SmallVector<int64_t> perm = llvm::to_vector(llvm::seq<int64_t>(0, rank));
  std::swap(perm[rank - 1], perm[rank - 2]);
  Value source = keyT;
  if (auto transpose = keyT.getDefiningOp<TransposeOp>()) {
    // kT dim i is x dim p[i], so k dim i (kT dim perm[i]) is x dim p[perm[i]].
    ArrayRef<int64_t> inner = transpose.getPerm();
    for (int64_t &dim : perm)
      dim = inner[dim];
    source = transpose.getData();
  }
  bool identity = llvm::all_of(llvm::enumerate(perm), [](auto entry) {
    return int64_t(entry.index()) == entry.value();
  });
  if (identity)
    return source;
  return rewriter.create<TransposeOp>(location, source,
                                      rewriter.getDenseI64ArrayAttr(perm));
}

/// A view that splits the scores' first (batch) dim in two around an added
/// mask, `reshape(reshape(x, [B, W, ...]) + mask, [B * W, ...])`: Swin's
/// shifted windows add their `[1, W, 1, N, N]` mask so.
struct SplitView {
  /// x: the scores (+ a mask) in the softmax's shape.
  Value inner;
  /// The term added in the split view.
  Value mask;
  /// The split shape: B, W, then x's other dims.
  SmallVector<int64_t> shape;
};

/// The split views |value| may be: either term of the add may be the split
/// scores (both when the mask is a view of a tensor of the scores' shape),
/// so the caller keeps the one whose inner value is the scores.
SmallVector<SplitView, 2> matchSplitViews(Value value) {
  SmallVector<SplitView, 2> views;
  auto back = singleUse<ReshapeOp>(value);
  auto add = back ? singleUse<AddOp>(back.getData()) : AddOp();
  if (!add)
    return views;
  for (auto [term, other] : {std::pair(add.getLhs(), add.getRhs()),
                             std::pair(add.getRhs(), add.getLhs())}) {
    auto split = singleUse<ReshapeOp>(term);
    if (!split || split.getData().getType() != back.getType() ||
        term.getType() != add.getType())
      continue;
    auto inner = cast<RankedTensorType>(split.getData().getType());
    auto splitType = cast<RankedTensorType>(term.getType());
    // The first dim must be a batch dim: of rank-2 scores it is the query
    // rows, and splitting them would attend each group to part of the keys.
    if (!inner.hasStaticShape() || !splitType.hasStaticShape() ||
        inner.getRank() < 3 || splitType.getRank() != inner.getRank() + 1 ||
        splitType.getShape().drop_front(2) != inner.getShape().drop_front() ||
        splitType.getDimSize(0) * splitType.getDimSize(1) !=
            inner.getDimSize(0))
      continue;
    views.push_back(SplitView{split.getData(), other,
                              llvm::to_vector(splitType.getShape())});
  }
  return views;
}

/// |value| (of rank <= the split view's less one, left-padded with ones) in
/// the split view's rank: its first dim, the scores' (B W) or 1, split into
/// B x W or 1 x 1 (splitsWith checked it is one of the two).
Value splitFirstDim(PatternRewriter &rewriter, Location location, Value value,
                    const SplitView &split) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape(split.shape.size() - 1 - type.getRank(), 1);
  llvm::append_range(shape, type.getShape());
  SmallVector<int64_t> dims =
      shape[0] == 1 ? SmallVector<int64_t>{1, 1}
                    : SmallVector<int64_t>{split.shape[0], split.shape[1]};
  llvm::append_range(dims, ArrayRef(shape).drop_front());
  return createReshape(rewriter, location, value, dims);
}

/// Whether |value| can be split as |split| splits the scores (splitFirstDim):
/// static, of at most the scores' rank, its first dim (after padding) the
/// scores' or 1.
bool splitsWith(Value value, const SplitView &split) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  int64_t rank = int64_t(split.shape.size()) - 1;
  if (!type || !type.hasStaticShape() || type.getRank() > rank)
    return false;
  int64_t first = type.getRank() < rank ? 1 : type.getDimSize(0);
  return first == 1 || first == split.shape[0] * split.shape[1];
}

/// matmul(softmax(scale * q @ kT + mask), v) -> kiln.attention q, k, v, mask.
struct RecognizeAttention : OpRewritePattern<MatMulOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(MatMulOp root,
                                PatternRewriter &rewriter) const override {
    auto softmax = singleUse<SoftmaxOp>(root.getLhs());
    if (!softmax)
      return rewriter.notifyMatchFailure(root, "lhs is not a softmax");
    auto probsType = dyn_cast<RankedTensorType>(softmax.getType());
    if (!probsType || probsType.getRank() < 2 ||
        normalizeAxis(softmax.getAxis(), probsType.getRank()) !=
            probsType.getRank() - 1)
      return rewriter.notifyMatchFailure(root,
                                         "softmax not over the last axis");

    // The scores: scaled q @ kT, plus a mask, seen directly or through a
    // split view.
    Value mask;
    auto matchMaskedScores = [&](Value scores) -> std::optional<Scores> {
      if (std::optional<Scores> direct = matchScores(scores))
        return direct;
      if (auto add = singleUse<AddOp>(scores))
        for (auto [term, other] : {std::pair(add.getLhs(), add.getRhs()),
                                   std::pair(add.getRhs(), add.getLhs())})
          if (term.getType() == add.getType())
            if (std::optional<Scores> masked = matchScores(term)) {
              mask = other;
              return masked;
            }
      return std::nullopt;
    };
    std::optional<SplitView> split;
    std::optional<Scores> match;
    for (const SplitView &candidate : matchSplitViews(softmax.getInput()))
      if ((match = matchMaskedScores(candidate.inner))) {
        split = candidate;
        break;
      }
    if (!split)
      match = matchMaskedScores(softmax.getInput());
    if (!match)
      return rewriter.notifyMatchFailure(root, "softmax input is not scaled "
                                               "q @ kT (+ mask)");

    Value query = match->product.getLhs(), keyT = match->product.getRhs();
    Value value = root.getRhs();
    int64_t rank = probsType.getRank();
    for (Value operand : {query, keyT, value}) {
      auto type = dyn_cast<RankedTensorType>(operand.getType());
      if (!type || type.getRank() != rank)
        return rewriter.notifyMatchFailure(root, "q, kT and v must have the "
                                                 "scores' rank");
    }
    if (mask && cast<ShapedType>(mask.getType()).getRank() > rank)
      return rewriter.notifyMatchFailure(root, "mask has a higher rank");
    // (q @ kT) * f is (q * f) @ kT; q * f must keep q's shape.
    if (Value factor = match->matrixFactor) {
      ArrayRef<int64_t> queryShape = shapeOf(query);
      std::optional<SmallVector<int64_t>> scaled =
          broadcastShapes(queryShape, shapeOf(factor));
      if (!scaled || ArrayRef<int64_t>(*scaled) != queryShape)
        return rewriter.notifyMatchFailure(root, "the scores' factor does not "
                                                 "broadcast into q");
    }
    if (split) {
      if (!llvm::all_of(ValueRange{query, keyT, value},
                        [&](Value v) { return splitsWith(v, *split); }) ||
          (mask &&
           (!splitsWith(mask, *split) ||
            getElementTypeOrSelf(mask) != getElementTypeOrSelf(split->mask))))
        return rewriter.notifyMatchFailure(root, "q, kT, v or the mask do "
                                                 "not split as the scores' "
                                                 "view does");
    }

    Location location = subgraphLocation(
        root, {query, keyT, value, mask, split ? split->mask : Value()});
    if (Value factor = match->matrixFactor)
      query = rewriter.create<MulOp>(location, query, factor);
    Value key = buildKey(rewriter, location, keyT);
    Type resultType = root.getType();
    if (split) {
      query = splitFirstDim(rewriter, location, query, *split);
      key = splitFirstDim(rewriter, location, key, *split);
      value = splitFirstDim(rewriter, location, value, *split);
      mask =
          mask ? rewriter.create<AddOp>(
                     location, splitFirstDim(rewriter, location, mask, *split),
                     split->mask)
               : split->mask;
      SmallVector<int64_t> shape{split->shape[0], split->shape[1]};
      llvm::append_range(shape, shapeOf(root.getResult()).drop_front());
      resultType = RankedTensorType::get(shape, getElementTypeOrSelf(root));
    }
    Value attention = rewriter.create<AttentionOp>(
        location, resultType, query, key, value, mask,
        rewriter.getF32FloatAttr(float(match->scale)));
    if (split)
      attention = createReshape(rewriter, location, attention,
                                shapeOf(root.getResult()));
    rewriter.replaceOp(root, attention);
    return success();
  }
};

struct RecognizePatternsPass
    : impl::KilnRecognizePatternsBase<RecognizePatternsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<RecognizeGelu, RecognizeAttention>(&getContext());
    (void)applyPatternsAndFoldGreedily(getOperation(), std::move(patterns));
  }
};

} // namespace
} // namespace kiln
