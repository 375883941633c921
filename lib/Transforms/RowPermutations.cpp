// kiln-move-row-permutations: a transpose that permutes only leading (row)
// dims moves across the row-wise ops around it (a projection x·W + b, per-row
// elementwise ops, layer norms, reshapes of the rows) to the views it composes
// with, where it becomes part of a strided view or cancels.
//
// Algorithm:
//  1. A transpose whose permutation fixes every dim from k on (k < rank, so
//     the last dim stays) moves whole rows: the row prefix is its first k
//     dims. A transpose that moves the last dim, or the identity, is left.
//  2. A row-wise op computes each row of its result from the same row of one
//     operand (the segment operand), and its other operands do not vary along
//     the rows (weights, bias rows): elementwise ops, a matmul with a 2-D rhs,
//     a gemm of a non-transposed a whose c is a row, a layer_norm after the
//     rows, and a reshape that keeps the rows' dims or merges them, as the
//     outermost factor, into one dim (and back). Each commutes with the
//     permutation.
//  3. Up: from the transpose's input, producers whose result has one use are
//     followed while row-wise; the segment starts at the last value whose
//     leading dims are the rows again. When a transpose (they compose) or a
//     kiln.attention (whose kernel writes through the transpose) makes that
//     value, the transpose moves there.
//  4. Down (when it does not move up): from its result, users are followed
//     the same way; when every user of the segment's last value is a view, a
//     transpose or a slice, the transpose moves there.
//  5. Every transpose of the function moves at most once; kiln-simplify-graph
//     composes what meets.
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/IR/OpBuilders.h"
#include "kiln/Dialect/Kiln/IR/ShapeUtils.h"
#include "kiln/Dialect/Kiln/KernelKinds/OpClasses.h"
#include "kiln/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNMOVEROWPERMUTATIONS
#include "kiln/Transforms/Passes.h.inc"

namespace {

/// One op of a segment: the operand on the segment and whether its result
/// has the row prefix's dims (else the rows are merged into its first dim).
struct SegmentStep {
  Operation *op;
  unsigned operand;
  bool prefixed;
};

/// Row-wise ops from |start| to |end| (producers first).
struct Segment {
  Value start, end;
  SmallVector<SegmentStep> steps;
};

/// The rows of a segment: the prefix dims, or their product as one dim.
struct Rows {
  SmallVector<int64_t> prefix;
  int64_t count = 1;
};

std::optional<ArrayRef<int64_t>> staticShape(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape() || type.getNumElements() == 0)
    return std::nullopt;
  return type.getShape();
}

/// Whether |shape| starts with the rows' dims (and has a dim after them).
bool hasPrefix(ArrayRef<int64_t> shape, const Rows &rows) {
  return shape.size() > rows.prefix.size() &&
         shape.take_front(rows.prefix.size()) == ArrayRef<int64_t>(rows.prefix);
}

/// Whether |shape| has the rows merged into its first dim, as its outermost
/// factor (row-major: the dims merged after them stay inside each row).
bool hasMergedRows(ArrayRef<int64_t> shape, const Rows &rows) {
  return shape.size() >= 2 && shape.front() % rows.count == 0;
}

/// The form of a reshape's other side: prefixed, merged or neither.
std::optional<bool> rowForm(ArrayRef<int64_t> shape, const Rows &rows) {
  if (hasPrefix(shape, rows))
    return true;
  if (hasMergedRows(shape, rows))
    return false;
  return std::nullopt;
}

/// Whether |other| broadcasts against a result of rank |rank| without
/// varying along its first |rowDims| dims (those dims are 1 or absent).
bool isConstantAlongRows(Value other, int64_t rank, int64_t rowDims) {
  std::optional<ArrayRef<int64_t>> shape = staticShape(other);
  if (!shape || int64_t(shape->size()) > rank)
    return false;
  int64_t offset = rank - int64_t(shape->size());
  for (int64_t dim = std::max<int64_t>(offset, 0); dim < rowDims; ++dim)
    if ((*shape)[dim - offset] != 1)
      return false;
  return true;
}

bool isElementwise(Operation *op) {
  return classifyForFusion(op) == FusionClass::Pointwise &&
         !isa<BatchNormOp, QuantizeLinearOp, DequantizeLinearOp>(op);
}

/// The operand of |op| (|known| when given) whose rows |op| maps to its
/// result's rows one by one, the first |rowDims| dims being the rows (a
/// row-wise op other than a reshape); std::nullopt when |op| is not one.
std::optional<unsigned> rowWiseOperand(Operation *op, Value known,
                                       int64_t rowDims) {
  if (op->getNumResults() != 1)
    return std::nullopt;
  std::optional<ArrayRef<int64_t>> result = staticShape(op->getResult(0));
  if (!result || int64_t(result->size()) <= rowDims)
    return std::nullopt;
  int64_t rank = result->size();
  auto only = [&](unsigned index) -> std::optional<unsigned> {
    if (known && (op->getOperand(index) != known ||
                  llvm::count(op->getOperands(), known) != 1))
      return std::nullopt;
    return index;
  };
  if (isElementwise(op)) {
    std::optional<unsigned> found;
    for (auto [index, operand] : llvm::enumerate(op->getOperands())) {
      if (known ? operand == known : staticShape(operand) == result) {
        if (found || staticShape(operand) != result)
          return std::nullopt; // Two operands vary along the rows.
        found = index;
      } else if (!isConstantAlongRows(operand, rank, rowDims)) {
        return std::nullopt;
      }
    }
    return found;
  }
  if (auto matmul = dyn_cast<MatMulOp>(op)) {
    auto rhs = dyn_cast<RankedTensorType>(matmul.getRhs().getType());
    auto lhs = staticShape(matmul.getLhs());
    if (!rhs || rhs.getRank() != 2 || !lhs || int64_t(lhs->size()) != rank)
      return std::nullopt;
    return only(0);
  }
  if (auto gemm = dyn_cast<GemmOp>(op)) {
    if (gemm.getTransA() || rowDims != 1 ||
        (gemm.getC() && !isConstantAlongRows(gemm.getC(), rank, rowDims)))
      return std::nullopt;
    return only(0);
  }
  if (auto layerNorm = dyn_cast<LayerNormOp>(op)) {
    std::optional<int64_t> axis = normalizeAxis(layerNorm.getAxis(), rank);
    if (!axis || *axis < rowDims ||
        !isConstantAlongRows(layerNorm.getScale(), rank, rowDims) ||
        (layerNorm.getBias() &&
         !isConstantAlongRows(layerNorm.getBias(), rank, rowDims)))
      return std::nullopt;
    return only(0);
  }
  return std::nullopt;
}

/// One step of a walk from a value of the given form across |op|: the
/// segment operand and the form on the far side. |fromResult|: the walk goes
/// up (from |op|'s result to its operand); otherwise down, from |known|.
std::optional<std::pair<SegmentStep, bool>>
stepAcross(Operation *op, Value known, bool prefixed, const Rows &rows,
           bool fromResult) {
  if (auto reshape = dyn_cast<ReshapeOp>(op)) {
    if (!fromResult && reshape.getData() != known)
      return std::nullopt;
    Value far = fromResult ? reshape.getData() : reshape.getResult();
    std::optional<ArrayRef<int64_t>> shape = staticShape(far);
    if (!shape)
      return std::nullopt;
    std::optional<bool> form = rowForm(*shape, rows);
    if (!form)
      return std::nullopt;
    bool resultPrefixed = fromResult ? prefixed : *form;
    return std::pair(SegmentStep{op, 0, resultPrefixed}, *form);
  }
  int64_t rowDims = prefixed ? int64_t(rows.prefix.size()) : 1;
  std::optional<unsigned> operand = rowWiseOperand(op, known, rowDims);
  if (!operand)
    return std::nullopt;
  return std::pair(SegmentStep{op, *operand, prefixed}, prefixed);
}

/// The rows a transpose moves: its first k dims, k past the last dim it
/// moves; std::nullopt when it moves none or the last dim.
std::optional<int64_t> rowPrefixLength(TransposeOp transpose) {
  ArrayRef<int64_t> perm = transpose.getPerm();
  int64_t length = 0;
  for (auto [dim, source] : llvm::enumerate(perm))
    if (int64_t(dim) != source)
      length = dim + 1;
  if (length == 0 || length >= int64_t(perm.size()))
    return std::nullopt;
  return length;
}

Rows rowsOf(ArrayRef<int64_t> shape, int64_t length) {
  Rows rows;
  rows.prefix.assign(shape.begin(), shape.begin() + length);
  for (int64_t dim : rows.prefix)
    rows.count *= dim;
  return rows;
}

/// The row-wise ops that make |transpose|'s input, back to a value with
/// the row prefix; every value but the start has one use.
Segment walkUp(TransposeOp transpose, const Rows &rows) {
  Segment segment;
  segment.start = segment.end = transpose.getData();
  SmallVector<SegmentStep> steps;
  Value value = segment.start;
  bool prefixed = true;
  while (Operation *op = value.getDefiningOp()) {
    if (!value.hasOneUse())
      break;
    auto step = stepAcross(op, Value(), prefixed, rows, /*fromResult=*/true);
    if (!step)
      break;
    steps.push_back(step->first);
    value = op->getOperand(step->first.operand);
    prefixed = step->second;
    if (prefixed) {
      segment.start = value;
      segment.steps.assign(steps.rbegin(), steps.rend());
    }
  }
  return segment;
}

/// The row-wise ops that use |transpose|'s result, up to the last value with
/// the row prefix; every value but the end has one use.
Segment walkDown(TransposeOp transpose, const Rows &rows) {
  Segment segment;
  segment.start = segment.end = transpose.getResult();
  SmallVector<SegmentStep> steps;
  Value value = segment.start;
  bool prefixed = true;
  while (value.hasOneUse()) {
    Operation *user = *value.getUsers().begin();
    auto step = stepAcross(user, value, prefixed, rows, /*fromResult=*/false);
    if (!step)
      break;
    steps.push_back(step->first);
    value = user->getResult(0);
    prefixed = step->second;
    if (prefixed) {
      segment.end = value;
      segment.steps = steps;
    }
  }
  return segment;
}

/// |type| with its first |permutation|.size() dims reordered: dim i of the
/// result is dim permutation[i] of |type|.
RankedTensorType permuteRows(RankedTensorType type,
                             ArrayRef<int64_t> permutation) {
  SmallVector<int64_t> shape(type.getShape());
  for (auto [dim, source] : llvm::enumerate(permutation))
    shape[dim] = type.getDimSize(source);
  return RankedTensorType::get(shape, type.getElementType());
}

/// |perm| on the first dims, the identity on the rest of |rank| dims.
SmallVector<int64_t> extendPermutation(ArrayRef<int64_t> perm, int64_t rank) {
  SmallVector<int64_t> extended(perm);
  for (int64_t dim = perm.size(); dim < rank; ++dim)
    extended.push_back(dim);
  return extended;
}

/// Clones |segment|'s ops onto |input| (in place of the segment's start),
/// each prefixed result's rows reordered by |permutation| and each reshape
/// given its new shape; returns the clone of the segment's end.
Value cloneSegment(OpBuilder &builder, const Segment &segment, Value input,
                   ArrayRef<int64_t> permutation) {
  IRMapping mapping;
  mapping.map(segment.start, input);
  for (const SegmentStep &step : segment.steps) {
    builder.setInsertionPoint(step.op);
    auto type = cast<RankedTensorType>(step.op->getResult(0).getType());
    if (step.prefixed)
      type = permuteRows(type, permutation);
    Value shape;
    if (isa<ReshapeOp>(step.op))
      shape = createI64Constant(builder, step.op->getLoc(), type.getShape());
    Operation *clone = builder.clone(*step.op, mapping);
    clone->getResult(0).setType(type);
    if (auto reshape = dyn_cast<ReshapeOp>(clone))
      reshape.getShapeMutable().assign(shape);
    mapping.map(step.op->getResult(0), clone->getResult(0));
  }
  return mapping.lookup(segment.end);
}

void eraseSegment(const Segment &segment) {
  for (const SegmentStep &step : llvm::reverse(segment.steps))
    if (step.op->use_empty())
      step.op->erase();
}

bool isViewLike(Operation *op) {
  return isa<TransposeOp, ReshapeOp, SqueezeOp, UnsqueezeOp, FlattenOp,
             SliceOp>(op);
}

/// Moves |transpose| up or down its row segment when it meets a view there
/// (steps 3 and 4 above); returns whether it moved.
bool moveRowPermutation(TransposeOp transpose) {
  std::optional<int64_t> length = rowPrefixLength(transpose);
  std::optional<ArrayRef<int64_t>> input = staticShape(transpose.getData());
  if (!length || !input)
    return false;
  ArrayRef<int64_t> perm = transpose.getPerm().take_front(*length);
  OpBuilder builder(transpose);

  Segment up = walkUp(transpose, rowsOf(*input, *length));
  Operation *producer = up.start.getDefiningOp();
  if (!up.steps.empty() && producer &&
      isa<TransposeOp, AttentionOp>(producer)) {
    builder.setInsertionPointAfterValue(up.start);
    int64_t rank = cast<RankedTensorType>(up.start.getType()).getRank();
    Value moved = createTranspose(builder, transpose.getLoc(), up.start,
                                  extendPermutation(perm, rank));
    Value end = cloneSegment(builder, up, moved, perm);
    transpose.getResult().replaceAllUsesWith(end);
    transpose->erase();
    eraseSegment(up);
    return true;
  }

  Segment down =
      walkDown(transpose, rowsOf(transpose.getType().getShape(), *length));
  if (down.steps.empty() || down.end.use_empty() ||
      !llvm::all_of(down.end.getUsers(), isViewLike))
    return false;
  // The rows before the transpose: dim i of its input is dim inverse[i] of
  // its result.
  SmallVector<int64_t> inverse(perm.size());
  for (auto [dim, source] : llvm::enumerate(perm))
    inverse[source] = dim;
  Value end = cloneSegment(builder, down, transpose.getData(), inverse);
  builder.setInsertionPointAfterValue(end);
  int64_t rank = cast<RankedTensorType>(end.getType()).getRank();
  Value moved = createTranspose(builder, transpose.getLoc(), end,
                                extendPermutation(perm, rank));
  down.end.replaceAllUsesWith(moved);
  eraseSegment(down);
  transpose->erase();
  return true;
}

struct MoveRowPermutationsPass
    : impl::KilnMoveRowPermutationsBase<MoveRowPermutationsPass> {
  void runOnOperation() override {
    SmallVector<TransposeOp> transposes;
    getOperation().walk(
        [&](TransposeOp transpose) { transposes.push_back(transpose); });
    for (TransposeOp transpose : transposes)
      moveRowPermutation(transpose);
  }
};

} // namespace
} // namespace kiln
