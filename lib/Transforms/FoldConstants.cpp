// kiln-fold-constants: evaluates all-constant ops with the CPU evaluator.
#include "kiln/Transforms/ConstantFolding.h"
#include "kiln/Transforms/Passes.h"
#include "kiln/Transforms/TypeRefinement.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Evaluator/Interpreter.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNFOLDCONSTANTS
#include "kiln/Transforms/Passes.h.inc"

namespace {
/// Bytes a tensor of |type| occupies, or std::nullopt when not static.
std::optional<int64_t> staticByteSize(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return std::nullopt;
  std::optional<eval::DType> dtype = eval::dtypeFromMlir(tensor.getElementType());
  if (!dtype)
    return std::nullopt;
  return tensor.getNumElements() * int64_t(eval::byteWidth(*dtype));
}

/// Folds |op| when its operands are constants and its results are small.
/// Returns true when |op| was replaced.
bool foldOp(Operation *op, int64_t maxBytes, OpBuilder &builder) {
  if (isa<ConstantOp>(op) || op->getNumResults() == 0 ||
      !isa<KilnDialect>(op->getDialect()) || !eval::canEvaluate(op))
    return false;
  // Evaluation reads every operand, so operands are capped too (generously:
  // a reduction of a weight may be worth folding, a pass over a 100 MB blob
  // at compile time is not).
  SmallVector<ElementsAttr> operandValues;
  for (Value operand : op->getOperands()) {
    auto constant = operand.getDefiningOp<ConstantOp>();
    if (!constant)
      return false;
    std::optional<int64_t> bytes = staticByteSize(constant.getType());
    if (!bytes || *bytes > 16 * maxBytes)
      return false;
    operandValues.push_back(constant.getValue());
  }
  std::vector<eval::Tensor> operands;
  for (ElementsAttr value : operandValues) {
    llvm::Expected<eval::Tensor> tensor = eval::tensorFromAttr(value);
    if (!tensor) {
      llvm::consumeError(tensor.takeError());
      return false;
    }
    operands.push_back(std::move(*tensor));
  }
  // Results whose type is dynamic are still foldable: the evaluated tensor
  // fixes the shape. Check the size on the evaluated result instead.
  for (Type type : op->getResultTypes())
    if (std::optional<int64_t> bytes = staticByteSize(type))
      if (*bytes > maxBytes)
        return false;
  llvm::Expected<std::vector<eval::Tensor>> results =
      eval::evaluateOp(op, operands);
  if (!results) {
    // The op would fail the same way at run time; leave it for the runtime's
    // error path rather than rejecting the model at compile time.
    llvm::consumeError(results.takeError());
    return false;
  }
  SmallVector<Value> replacements;
  builder.setInsertionPoint(op);
  for (auto [result, tensor] : llvm::zip(op->getResults(), *results)) {
    auto elementType = cast<TensorType>(result.getType()).getElementType();
    auto type = RankedTensorType::get(tensor.shape(), elementType);
    std::optional<int64_t> bytes = staticByteSize(type);
    if (!bytes || *bytes > maxBytes) {
      for (Value created : replacements)
        created.getDefiningOp()->erase();
      return false;
    }
    replacements.push_back(builder.create<ConstantOp>(
        op->getLoc(), eval::tensorToAttr(tensor, type)));
  }
  // Each producer once: an op that reads one value twice (x * x) must not
  // erase its producer twice (ASan found the second erase reading freed
  // memory).
  llvm::SetVector<Operation *> producers;
  for (Value operand : op->getOperands())
    producers.insert(operand.getDefiningOp());
  op->replaceAllUsesWith(replacements);
  op->erase();
  // Constants that only fed |op| are dead now (they precede |op|, so the
  // caller has already visited them).
  for (Operation *producer : producers)
    if (producer && producer->use_empty() && !llvm::is_contained(replacements, producer->getResult(0)))
      producer->erase();
  return true;
}
} // namespace

bool foldConstantOps(func::FuncOp function, int64_t maxBytes) {
  OpBuilder builder(function.getContext());
  bool changed = false;
  // Program order, so a folded producer makes its consumers foldable.
  SmallVector<Operation *> ops;
  function.walk([&](Operation *op) { ops.push_back(op); });
  for (Operation *op : ops)
    changed |= foldOp(op, maxBytes, builder);
  return changed;
}

static bool isWeightExpressionAt(Value value, int depth) {
  Operation *op = value.getDefiningOp();
  if (!op || op->getNumRegions() != 0 || depth > 32)
    return false;
  if (isa<ConstantOp>(op))
    return true;
  return op->getNumOperands() != 0 &&
         llvm::all_of(op->getOperands(), [&](Value operand) {
           return isWeightExpressionAt(operand, depth + 1);
         });
}

bool isWeightExpression(Value value) {
  return isWeightExpressionAt(value, 0);
}

namespace {
struct FoldConstantsPass : impl::KilnFoldConstantsBase<FoldConstantsPass> {
  using KilnFoldConstantsBase::KilnFoldConstantsBase;
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (!foldConstantOps(function, maxBytes))
      return markAllAnalysesPreserved();
    bool changed = false;
    if (failed(refineFunctionTypes(function, changed)))
      signalPassFailure();
  }
};
} // namespace
} // namespace kiln
