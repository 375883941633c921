// kiln-merge-projections: matmuls that read the same activation with
// different constant weights (a transformer's Q, K and V projections) become
// one matmul with the weights concatenated along N, followed by one slice
// per original result. One GEMM with N = 3·768 runs faster than three with
// N = 768 and launches once; the concatenation is a weight transform (folded
// when small, else part of the init program) and the slices fuse into their
// consumers as elemental gathers.
//
// A group is every kiln.matmul of one function whose lhs is the same value
// and whose rhs is a 2-D kiln.constant with the same K and element type,
// with at least two members. The merged matmul and the slices take the place
// of the group's first matmul (program order); constants defined after it
// move up (they have no operands).
//
// When every member's only use adds a constant bias row to it (BERT's
// MatMul + Add per projection), the biases are concatenated the same way and
// added once, to the merged matmul, and the slices replace the adds: the
// add is then the bias epilogue of the merged GEMM's library call
// (matchGemmEpilogue) instead of one pointwise kernel per slice, and the
// attention kernel reads the slices by strides. A group where some member
// has no such add merges its matmuls only.
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/IR/OpBuilders.h"
#include "kiln/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/MapVector.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNMERGEPROJECTIONS
#include "kiln/Transforms/Passes.h.inc"

namespace {

/// A matmul with a constant 2-D weight: its lhs and the weight's K.
bool isProjection(MatMulOp matmul) {
  auto weight = matmul.getRhs().getDefiningOp<ConstantOp>();
  auto type = dyn_cast<RankedTensorType>(matmul.getRhs().getType());
  auto lhsType = dyn_cast<RankedTensorType>(matmul.getLhs().getType());
  return weight && type && lhsType && type.getRank() == 2 &&
         type.hasStaticShape() && lhsType.getRank() >= 2 &&
         lhsType.getShape().back() == type.getDimSize(0);
}

/// matmul + bias, the matmul's only use (either operand order).
struct BiasAdd {
  AddOp add;
  ConstantOp bias;
};

/// The add of a constant row [n] or [1, .., 1, n] (n the matmul's N, its
/// element type) to |matmul|'s result, when that add is the result's only
/// use and broadcasts nothing else (its type is the matmul's).
std::optional<BiasAdd> matchBiasAdd(MatMulOp matmul) {
  if (!matmul->hasOneUse())
    return std::nullopt;
  auto add = dyn_cast<AddOp>(*matmul->user_begin());
  if (!add || add->getBlock() != matmul->getBlock() ||
      add.getType() != matmul.getType())
    return std::nullopt;
  Value other =
      add.getLhs() == matmul.getResult() ? add.getRhs() : add.getLhs();
  auto bias = other.getDefiningOp<ConstantOp>();
  auto row = dyn_cast<RankedTensorType>(other.getType());
  auto product = cast<RankedTensorType>(matmul.getType());
  if (!bias || bias->getBlock() != matmul->getBlock() || !row ||
      !row.hasStaticShape() || row.getRank() == 0 ||
      row.getRank() > product.getRank() ||
      row.getElementType() != product.getElementType() ||
      row.getShape().back() != product.getShape().back())
    return std::nullopt;
  if (llvm::any_of(row.getShape().drop_back(),
                   [](int64_t dim) { return dim != 1; }))
    return std::nullopt;
  return BiasAdd{add, bias};
}

/// Moves the constant behind |value| before |point| when it comes later in
/// the same block.
void hoistConstant(Value value, Operation *point) {
  Operation *constant = value.getDefiningOp();
  if (constant->getBlock() == point->getBlock() &&
      !constant->isBeforeInBlock(point))
    constant->moveBefore(point);
}

/// merged + concat(biases): the biases joined along their last dim (rows of
/// different ranks flattened to [n] first), so the joined row is [N] or
/// [1, .., 1, N] like each of them.
Value addJoinedBiases(OpBuilder &builder, ArrayRef<BiasAdd> adds,
                      Value merged) {
  auto rank = [](BiasAdd add) {
    return cast<RankedTensorType>(add.bias.getType()).getRank();
  };
  int64_t common = rank(adds.front());
  if (llvm::any_of(adds, [&](BiasAdd add) { return rank(add) != common; }))
    common = 1;
  SmallVector<Value> rows;
  SmallVector<Location> locations;
  int64_t total = 0;
  for (BiasAdd add : adds) {
    auto type = cast<RankedTensorType>(add.bias.getType());
    int64_t width = type.getShape().back();
    Value row = add.bias;
    if (type.getRank() != common) {
      auto flat = RankedTensorType::get({width}, type.getElementType());
      auto shapeType = RankedTensorType::get({1}, builder.getI64Type());
      Value shape = builder.create<ConstantOp>(
          add.bias.getLoc(),
          DenseElementsAttr::get(shapeType, builder.getI64IntegerAttr(width)));
      row = builder.create<ReshapeOp>(add.bias.getLoc(), flat, row, shape,
                                      builder.getBoolAttr(false));
    }
    rows.push_back(row);
    locations.push_back(add.add.getLoc());
    total += width;
  }
  auto rowType = cast<RankedTensorType>(rows.front().getType());
  SmallVector<int64_t> joinedShape(rowType.getShape());
  joinedShape.back() = total;
  Location loc = builder.getFusedLoc(locations);
  Value joined = builder.create<ConcatOp>(
      loc, RankedTensorType::get(joinedShape, rowType.getElementType()), rows,
      builder.getI64IntegerAttr(common - 1));
  return builder.create<AddOp>(loc, merged.getType(), merged, joined);
}

void mergeGroup(ArrayRef<MatMulOp> group) {
  MatMulOp first = group.front();
  // Biases are merged for the whole group or not at all.
  SmallVector<BiasAdd> biasAdds;
  for (MatMulOp matmul : group)
    if (std::optional<BiasAdd> biasAdd = matchBiasAdd(matmul))
      biasAdds.push_back(*biasAdd);
  if (biasAdds.size() != group.size())
    biasAdds.clear();
  for (BiasAdd &biasAdd : biasAdds)
    hoistConstant(biasAdd.bias, first);

  OpBuilder builder(first);
  SmallVector<Value> weights;
  SmallVector<Location> locations;
  int64_t total = 0;
  for (MatMulOp matmul : group) {
    hoistConstant(matmul.getRhs(), first);
    weights.push_back(matmul.getRhs());
    locations.push_back(matmul.getLoc());
    total += cast<RankedTensorType>(matmul.getRhs().getType()).getDimSize(1);
  }
  Location loc = builder.getFusedLoc(locations);
  auto weightType = cast<RankedTensorType>(first.getRhs().getType());
  auto concatType = RankedTensorType::get({weightType.getDimSize(0), total},
                                          weightType.getElementType());
  Value concat = builder.create<ConcatOp>(loc, concatType, weights,
                                          builder.getI64IntegerAttr(1));
  auto resultType = cast<RankedTensorType>(first.getType());
  SmallVector<int64_t> mergedShape(resultType.getShape());
  mergedShape.back() = total;
  Value merged = builder.create<MatMulOp>(
      loc, RankedTensorType::get(mergedShape, resultType.getElementType()),
      first.getLhs(), concat);
  if (!biasAdds.empty())
    merged = addJoinedBiases(builder, biasAdds, merged);
  int64_t offset = 0;
  Value axis = createI64Constant(builder, loc, {-1});
  Value step = createI64Constant(builder, loc, {1});
  for (size_t index = 0; index < group.size(); ++index) {
    MatMulOp matmul = group[index];
    int64_t width =
        cast<RankedTensorType>(matmul.getRhs().getType()).getDimSize(1);
    Value slice = builder.create<SliceOp>(
        matmul.getLoc(), matmul.getType(), merged,
        createI64Constant(builder, loc, {offset}),
        createI64Constant(builder, loc, {offset + width}), axis, step);
    // The slice takes the place of the member's bias add, if merged.
    Value replaced =
        biasAdds.empty() ? matmul.getResult() : biasAdds[index].add.getResult();
    replaced.replaceAllUsesWith(slice);
    offset += width;
  }
  for (BiasAdd &biasAdd : biasAdds)
    biasAdd.add.erase();
  for (MatMulOp matmul : group)
    matmul.erase();
}

struct MergeProjectionsPass
    : impl::KilnMergeProjectionsBase<MergeProjectionsPass> {
  void runOnOperation() override {
    llvm::MapVector<std::pair<Value, Attribute>, SmallVector<MatMulOp>> groups;
    Block &body = getOperation().getBody().front();
    getOperation().walk([&](MatMulOp matmul) {
      if (matmul->getBlock() != &body || !isProjection(matmul))
        return;
      auto type = cast<RankedTensorType>(matmul.getRhs().getType());
      // K and the element type are part of the key (through the lhs and
      // the weight's element type).
      groups[{matmul.getLhs(), TypeAttr::get(type.getElementType())}].push_back(
          matmul);
    });
    for (auto &entry : groups)
      if (entry.second.size() >= 2)
        mergeGroup(entry.second);
  }
};

} // namespace
} // namespace kiln
