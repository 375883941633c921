// kiln-compile --bind-input: which operands of kiln ops are shape-like, and
// replacing graph inputs that feed only those operands by constants.
#ifndef KILN_TOOLS_KILN_COMPILE_BINDINPUTS_H
#define KILN_TOOLS_KILN_COMPILE_BINDINPUTS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Operation.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace kiln {

/// True when operand |operandIndex| of |op| is a shape position: a value that
/// decides the result's shape or the indexing (Reshape's shape, Slice's
/// starts/ends/axes/steps, a reduction's axes, Resize's scales/sizes, TopK's
/// k, ...). Ops not in the table have no shape positions.
bool isShapeOperand(mlir::Operation *op, unsigned operandIndex);

/// True when |value| has uses and every use is a shape position (looking
/// through kiln.cast and kiln.identity).
bool feedsOnlyShapes(mlir::Value value);

/// A graph input to replace by the tensor in |path| (.pb or .npy).
struct InputBinding {
  std::string name;
  std::string path;
};

/// Replaces each bound graph input of |function| (its `kiln.name`) by a
/// kiln.constant holding the file's value and removes it from the signature.
/// Fails with a message for an unknown input, a file that cannot be read, a
/// dtype or shape that does not match, or an input that feeds data.
llvm::Error bindInputs(mlir::func::FuncOp function,
                       const std::vector<InputBinding> &bindings);

/// The names of |function|'s graph inputs that feed only shape positions.
std::vector<std::string> listShapeInputs(mlir::func::FuncOp function);

} // namespace kiln

#endif // KILN_TOOLS_KILN_COMPILE_BINDINPUTS_H
