// kiln-refine-types: makes result types as static as type inference allows.
#include "kiln/Transforms/Passes.h"
#include "kiln/Transforms/TypeRefinement.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Interfaces/InferTypeOpInterface.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNREFINETYPES
#include "kiln/Transforms/Passes.h.inc"

namespace {
/// The more static of two compatible types: per dim, a static size wins.
Type refineType(Type current, Type inferred) {
  auto currentTensor = dyn_cast<TensorType>(current);
  auto inferredTensor = dyn_cast<TensorType>(inferred);
  if (!currentTensor || !inferredTensor)
    return current;
  if (!inferredTensor.hasRank())
    return current;
  if (!currentTensor.hasRank())
    return inferred;
  if (currentTensor.getRank() != inferredTensor.getRank())
    return current;
  SmallVector<int64_t> shape;
  for (auto [a, b] :
       llvm::zip(currentTensor.getShape(), inferredTensor.getShape()))
    shape.push_back(ShapedType::isDynamic(a) ? b : a);
  return RankedTensorType::get(shape, currentTensor.getElementType());
}
} // namespace

LogicalResult refineFunctionTypes(func::FuncOp function, bool &changed) {
  bool failedInference = false;
  function.walk([&](InferTypeOpInterface op) {
    if (failedInference)
      return;
    SmallVector<Type> inferred;
    if (failed(op.inferReturnTypes(op->getContext(), op->getLoc(),
                                   op->getOperands(),
                                   op->getRawDictionaryAttrs(),
                                   op->getPropertiesStorage(),
                                   op->getRegions(), inferred))) {
      failedInference = true;
      return;
    }
    for (auto [result, type] : llvm::zip(op->getResults(), inferred)) {
      Type refined = refineType(result.getType(), type);
      if (refined != result.getType()) {
        result.setType(refined);
        changed = true;
      }
    }
  });
  if (failedInference)
    return failure();
  // The function's result types follow its return.
  Operation *terminator = function.getBody().back().getTerminator();
  SmallVector<Type> resultTypes(terminator->getOperandTypes());
  if (resultTypes != SmallVector<Type>(function.getResultTypes())) {
    function.setType(FunctionType::get(function.getContext(),
                                       function.getArgumentTypes(),
                                       resultTypes));
    changed = true;
  }
  return success();
}

namespace {
struct RefineTypesPass : impl::KilnRefineTypesBase<RefineTypesPass> {
  void runOnOperation() override {
    bool changed = false;
    if (failed(refineFunctionTypes(getOperation(), changed)))
      signalPassFailure();
  }
};
} // namespace
} // namespace kiln
