// Replacing kiln.if (ONNX If with branches of different shapes) by its taken
// branch once its condition is a constant, shared by kiln-inline-constant-ifs,
// kiln-simplify-graph and kiln-require-static.
#ifndef KILN_TRANSFORMS_IFINLINING_H
#define KILN_TRANSFORMS_IFINLINING_H

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <string>

namespace kiln {

/// Replaces every outermost kiln.if of |function| whose condition is a
/// constant by the ops of its taken branch, moved before it, and its results
/// by the values that branch yields. Returns true when anything changed.
bool inlineConstantIfs(mlir::func::FuncOp function);

/// Why |ifOp| is still there, as a one-line message (for
/// kiln-require-static, whose diagnostic location names the ONNX node).
std::string describeIfBlocker(IfOp ifOp);

} // namespace kiln

#endif // KILN_TRANSFORMS_IFINLINING_H
