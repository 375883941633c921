// kiln-simplify-graph: canonicalise, fold constants and refine types to a
// fixed point.
#include "kiln/Transforms/ConstantFolding.h"
#include "kiln/Transforms/IfInlining.h"
#include "kiln/Transforms/LoopUnrolling.h"
#include "kiln/Transforms/Passes.h"
#include "kiln/Transforms/TypeRefinement.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNSIMPLIFYGRAPH
#include "kiln/Transforms/Passes.h.inc"

namespace {
/// Rounds of (patterns, folding, refinement) before giving up on a fixed
/// point; each round strictly simplifies, so real graphs settle in a few.
constexpr int kMaxRounds = 16;

struct SimplifyGraphPass : impl::KilnSimplifyGraphBase<SimplifyGraphPass> {
  using KilnSimplifyGraphBase::KilnSimplifyGraphBase;

  LogicalResult initialize(MLIRContext *context) override {
    RewritePatternSet set(context);
    for (RegisteredOperationName op : context->getRegisteredOperations())
      if (op.getDialectNamespace() == KilnDialect::getDialectNamespace())
        op.getCanonicalizationPatterns(set, context);
    populateShapeArithmeticPatterns(set);
    populateBroadcastPatterns(set);
    patterns = FrozenRewritePatternSet(std::move(set));
    return success();
  }

  void runOnOperation() override {
    for (auto function : getOperation().getOps<func::FuncOp>())
      if (failed(simplify(function)))
        return signalPassFailure();
  }

  /// Algorithm:
  ///  1. refine result types from the (possibly specialised) arguments;
  ///  2. apply the canonicalisation and shape-arithmetic patterns with
  ///     folding (this also erases dead ops);
  ///  3. fold all-constant ops through the CPU evaluator;
  ///  4. unroll loops whose trip count and conditions are now constants,
  ///     and replace ifs whose condition is now a constant by their taken
  ///     branch;
  ///  5. repeat from 1 until a round changes nothing.
  LogicalResult simplify(func::FuncOp function) {
    for (int round = 0; round < kMaxRounds; ++round) {
      bool changed = false;
      if (failed(refineFunctionTypes(function, changed)))
        return failure();
      bool patternsChanged = false;
      GreedyRewriteConfig config;
      config.maxIterations = 8;
      (void)applyPatternsAndFoldGreedily(function, patterns, config,
                                         &patternsChanged);
      changed |= patternsChanged;
      changed |= foldConstantOps(function, maxBytes);
      changed |= unrollConstantLoops(function);
      changed |= inlineConstantIfs(function);
      if (!changed)
        return success();
    }
    bool changed = false;
    return refineFunctionTypes(function, changed);
  }

  FrozenRewritePatternSet patterns;
};
} // namespace
} // namespace kiln
