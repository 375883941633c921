// kiln-inline-constant-ifs: kiln.if(constant cond) -> the ops of the taken
// branch, its yielded values replacing the results.
//
// The condition of an exported If with branches of different shapes is
// usually a comparison of shapes (DeBERTa-v2's `q_len != k_len`), which
// kiln-simplify-graph folds once shapes are specialised; this runs in each of
// its rounds. The results' types are joins of the branches' (dynamic or
// unranked), so type refinement follows.
#include "kiln/Dialect/Kiln/IR/ControlFlowUtils.h"
#include "kiln/Transforms/IfInlining.h"
#include "kiln/Transforms/LoopUnrolling.h"
#include "kiln/Transforms/Passes.h"
#include "kiln/Transforms/TypeRefinement.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNINLINECONSTANTIFS
#include "kiln/Transforms/Passes.h.inc"

namespace {
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
    if (std::optional<bool> taken = getConstantIfCondition(ifOp.getCondition()))
      ready.emplace_back(ifOp, *taken);
  });
  for (auto [ifOp, taken] : ready)
    inlineTakenBranch(ifOp, taken);
  return !ready.empty();
}

std::string describeIfBlocker(IfOp ifOp) {
  std::string shapes;
  llvm::raw_string_ostream stream(shapes);
  for (unsigned index = 0; index < ifOp.getNumResults(); ++index) {
    Type thenType = ifOp.getBranchYield(true).getValues()[index].getType();
    Type elseType = ifOp.getBranchYield(false).getValues()[index].getType();
    if (thenType != elseType) {
      stream << "output " << index << ": " << thenType << " then, " << elseType
             << " else";
      break;
    }
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
    func::FuncOp function = getOperation();
    bool refined = false;
    if (inlineConstantIfs(function) &&
        failed(refineFunctionTypes(function, refined)))
      signalPassFailure();
  }
};
} // namespace
} // namespace kiln
