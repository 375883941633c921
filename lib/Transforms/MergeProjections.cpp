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
// of the group's first matmul (program order), which every member's lhs and
// constants precede.
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
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

Value indexConstant(OpBuilder &builder, Location loc, int64_t value) {
  auto type = RankedTensorType::get({1}, builder.getI64Type());
  return builder.create<ConstantOp>(
      loc, DenseElementsAttr::get(type, builder.getI64IntegerAttr(value)));
}

void mergeGroup(ArrayRef<MatMulOp> group) {
  MatMulOp first = group.front();
  OpBuilder builder(first);
  SmallVector<Value> weights;
  SmallVector<Location> locations;
  int64_t total = 0;
  for (MatMulOp matmul : group) {
    weights.push_back(matmul.getRhs());
    locations.push_back(matmul.getLoc());
    total += cast<RankedTensorType>(matmul.getRhs().getType()).getDimSize(1);
  }
  Location loc = builder.getFusedLoc(locations);
  auto weightType = cast<RankedTensorType>(first.getRhs().getType());
  auto concatType = RankedTensorType::get(
      {weightType.getDimSize(0), total}, weightType.getElementType());
  Value concat = builder.create<ConcatOp>(loc, concatType, weights,
                                          builder.getI64IntegerAttr(1));
  auto resultType = cast<RankedTensorType>(first.getType());
  SmallVector<int64_t> mergedShape(resultType.getShape());
  mergedShape.back() = total;
  Value merged = builder.create<MatMulOp>(
      loc, RankedTensorType::get(mergedShape, resultType.getElementType()),
      first.getLhs(), concat);
  int64_t offset = 0;
  Value axis = indexConstant(builder, loc, -1);
  Value step = indexConstant(builder, loc, 1);
  for (MatMulOp matmul : group) {
    int64_t width =
        cast<RankedTensorType>(matmul.getRhs().getType()).getDimSize(1);
    Value slice = builder.create<SliceOp>(
        matmul.getLoc(), matmul.getType(), merged,
        indexConstant(builder, loc, offset),
        indexConstant(builder, loc, offset + width), axis, step);
    matmul.getResult().replaceAllUsesWith(slice);
    offset += width;
  }
  for (MatMulOp matmul : group)
    matmul.erase();
}

struct MergeProjectionsPass
    : impl::KilnMergeProjectionsBase<MergeProjectionsPass> {
  void runOnOperation() override {
    llvm::MapVector<std::pair<Value, Attribute>, SmallVector<MatMulOp>>
        groups;
    Block &body = getOperation().getBody().front();
    getOperation().walk([&](MatMulOp matmul) {
      if (matmul->getBlock() != &body || !isProjection(matmul))
        return;
      auto type = cast<RankedTensorType>(matmul.getRhs().getType());
      // K and the element type are part of the key (through the lhs and
      // the weight's element type).
      groups[{matmul.getLhs(), TypeAttr::get(type.getElementType())}]
          .push_back(matmul);
    });
    for (auto &entry : groups)
      if (entry.second.size() >= 2)
        mergeGroup(entry.second);
  }
};

} // namespace
} // namespace kiln
