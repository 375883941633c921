// kiln-inline-constant-ifs: kiln.if(constant cond) -> the ops of the taken
// branch, its yielded values replacing the results.
//
// The condition of an exported If with branches of different shapes is
// usually a comparison of shapes (DeBERTa-v2's `q_len != k_len`), which
// kiln-simplify-graph folds once shapes are specialised; this runs in each of
// its rounds. The results' types are joins of the branches' (dynamic or
// unranked), so type refinement follows.
#include "kiln/Transforms/IfInlining.h"
#include "kiln/Transforms/LoopUnrolling.h"
#include "kiln/Transforms/Passes.h"
#include "kiln/Transforms/TypeRefinement.h"

#include "mlir/IR/BuiltinAttributes.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNINLINECONSTANTIFS
#include "kiln/Transforms/Passes.h.inc"

namespace {
/// The value of a one-element boolean constant.
std::optional<bool> getConstantCondition(Value value) {
  auto constant = value.getDefiningOp<ConstantOp>();
  if (!constant)
    return std::nullopt;
  auto elements = dyn_cast<DenseElementsAttr>(constant.getValue());
  if (!elements || elements.getNumElements() != 1 ||
      !elements.getElementType().isInteger(1))
    return std::nullopt;
  return *elements.getValues<bool>().begin();
}

std::string describe(Type type) {
  std::string text;
  llvm::raw_string_ostream stream(text);
  stream << type;
  return text;
}

/// kiln.if(constant cond) -> the taken branch's ops before it.
void inlineTakenBranch(IfOp ifOp, bool taken) {
  Block &branch = (taken ? ifOp.getThenBranch() : ifOp.getElseBranch()).front();
  YieldOp yield = ifOp.getBranchYield(taken);
  SmallVector<Value> yielded(yield.getValues());
  yield.erase();
  ifOp->getBlock()->getOperations().splice(ifOp->getIterator(),
                                           branch.getOperations());
  ifOp->replaceAllUsesWith(yielded);
  ifOp->erase();
}
} // namespace

bool inlineConstantIfs(func::FuncOp function) {
  SmallVector<std::pair<IfOp, bool>> ready;
  function.walk([&](IfOp ifOp) {
    if (ifOp->getParentOfType<IfOp>())
      return;
    if (std::optional<bool> taken = getConstantCondition(ifOp.getCondition()))
      ready.emplace_back(ifOp, *taken);
  });
  for (auto [ifOp, taken] : ready)
    inlineTakenBranch(ifOp, taken);
  return !ready.empty();
}

std::string describeIfBlocker(IfOp ifOp) {
  std::string shapes;
  for (unsigned index = 0; index < ifOp.getNumResults(); ++index) {
    Type thenType = ifOp.getBranchYield(true).getValues()[index].getType();
    Type elseType = ifOp.getBranchYield(false).getValues()[index].getType();
    if (thenType == elseType)
      continue;
    shapes = "output " + std::to_string(index) + ": " + describe(thenType) +
             " then, " + describe(elseType) + " else";
    break;
  }
  return "If condition is not known at compile time (" +
         describeHowToMakeConstant(ifOp.getCondition()) +
         ") and its branches give values of different shapes (" + shapes +
         "), which would need run-time control flow; kiln compiles an If "
         "only when its condition is a compile-time constant or both branches "
         "give the same types";
}

namespace {
struct InlineConstantIfsPass
    : impl::KilnInlineConstantIfsBase<InlineConstantIfsPass> {
  void runOnOperation() override {
    if (!inlineConstantIfs(getOperation()))
      return markAllAnalysesPreserved();
    bool changed = false;
    if (failed(refineFunctionTypes(getOperation(), changed)))
      signalPassFailure();
  }
};
} // namespace
} // namespace kiln
