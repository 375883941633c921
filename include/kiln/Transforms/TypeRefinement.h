// Type refinement shared by kiln-refine-types and kiln-simplify-graph.
#ifndef KILN_TRANSFORMS_TYPEREFINEMENT_H
#define KILN_TRANSFORMS_TYPEREFINEMENT_H

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace kiln {

/// Re-infers every result type in |function| in program order and keeps the
/// more static type; updates the function's result types to its return.
/// Sets |changed| when anything changed. Fails (after the op reported an
/// error) when an op's operands no longer admit any result type.
mlir::LogicalResult refineFunctionTypes(mlir::func::FuncOp function,
                                        bool &changed);

} // namespace kiln

#endif // KILN_TRANSFORMS_TYPEREFINEMENT_H
