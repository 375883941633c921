// Constant folding through the CPU evaluator, shared by kiln-fold-constants
// and kiln-simplify-graph.
#ifndef KILN_TRANSFORMS_CONSTANTFOLDING_H
#define KILN_TRANSFORMS_CONSTANTFOLDING_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/PatternMatch.h"

namespace kiln {

/// Replaces every kiln op whose operands are all kiln.constant and whose
/// results fit in |maxBytes| by constants computed with the CPU evaluator.
/// Returns true when anything changed. Result types may become more static;
/// callers refine the rest of the function afterwards.
bool foldConstantOps(mlir::func::FuncOp function, int64_t maxBytes);

/// True when |value| is computed from kiln.constants only (no arguments, no
/// regions): a weight expression, which folds when small and otherwise
/// moves into the init program (kiln-outline-init).
bool isWeightExpression(mlir::Value value);

/// Shape-arithmetic rewrites that need no constant input: gather/slice of
/// kiln.shape where the selected dims are static.
void populateShapeArithmeticPatterns(mlir::RewritePatternSet &patterns);

/// Broadcast rewrites (BroadcastSimplification.cpp): and(x, true) and
/// or(x, false) are x broadcast; a select whose operands are broadcasts is
/// computed at their shape and broadcast after.
void populateBroadcastPatterns(mlir::RewritePatternSet &patterns);

} // namespace kiln

#endif // KILN_TRANSFORMS_CONSTANTFOLDING_H
