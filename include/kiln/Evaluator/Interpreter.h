// The CPU evaluator: runs kiln IR on host tensors with ONNX semantics. It is
// the reference that every later stage (constant folding, generated CUDA) is
// checked against.
#ifndef KILN_EVALUATOR_INTERPRETER_H
#define KILN_EVALUATOR_INTERPRETER_H

#include "kiln/Evaluator/Tensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Operation.h"
#include "llvm/Support/Error.h"

#include <vector>

namespace kiln::eval {

/// True if evaluateOp knows |op|.
bool canEvaluate(mlir::Operation *op);

/// Evaluates one kiln op on concrete operand values (in operand order).
/// Errors (unsupported op, shapes that do not match at run time, bad axes)
/// name the op and its location.
llvm::Expected<std::vector<Tensor>> evaluateOp(mlir::Operation *op,
                                               llvm::ArrayRef<Tensor> operands);

/// Runs the body of the kiln.kernel |kernel| on concrete |operands| (its
/// ins, then its outs) and returns what it yields, each checked against the
/// kernel's result type: one fused kernel evaluated on its own, on inputs
/// that need not come from this evaluator (kiln-interpret --compare-steps).
llvm::Expected<std::vector<Tensor>>
evaluateKernel(mlir::Operation *kernel, llvm::ArrayRef<Tensor> operands);

/// Runs |function| on |inputs| (in argument order) and returns its results.
/// Checks each input's dtype and static dims against the argument type.
llvm::Expected<std::vector<Tensor>>
interpretFunction(mlir::func::FuncOp function, llvm::ArrayRef<Tensor> inputs);

} // namespace kiln::eval

#endif // KILN_EVALUATOR_INTERPRETER_H
