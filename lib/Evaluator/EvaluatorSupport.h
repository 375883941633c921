// Internal helpers of the CPU evaluator: located error messages, checked
// tensor allocation, broadcasting iteration and the per-family entry points.
#ifndef KILN_LIB_EVALUATOR_EVALUATORSUPPORT_H
#define KILN_LIB_EVALUATOR_EVALUATORSUPPORT_H

#include "kiln/Evaluator/Tensor.h"

#include "mlir/IR/Location.h"
#include "kiln/Dialect/Kiln/IR/Locations.h"

#include "mlir/IR/Operation.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/FormatVariadic.h"

#include <optional>
#include <string>
#include <vector>

namespace kiln::eval {

using ::kiln::describeLocation; // kiln/Dialect/Kiln/IR/Locations.h

/// "kiln.gather at node 'Gather_3' (Gather)".
std::string describeOp(mlir::Operation *op);

/// An error "<op> at <location>: <message>".
llvm::Error opError(mlir::Operation *op, const llvm::Twine &message);

/// "[2, 3]".
std::string formatShape(llvm::ArrayRef<int64_t> shape);

/// A zero-filled tensor, or an error when |shape| has a negative dim or more
/// elements than the evaluator accepts.
llvm::Expected<Tensor> makeTensor(mlir::Operation *op, DType dtype,
                                  llvm::ArrayRef<int64_t> shape);

/// The NumPy broadcast of |shapes|, or an error naming them.
llvm::Expected<std::vector<int64_t>>
broadcastRuntimeShapes(mlir::Operation *op,
                       llvm::ArrayRef<llvm::ArrayRef<int64_t>> shapes);

/// Walks the elements of a broadcast result in row-major order and yields,
/// for each operand, the flat index of the element it reads.
class BroadcastIterator {
public:
  BroadcastIterator(llvm::ArrayRef<int64_t> resultShape,
                    llvm::ArrayRef<llvm::ArrayRef<int64_t>> operandShapes);
  /// Flat index into operand |operand| for the current result element.
  int64_t operandIndex(unsigned operand) const { return offsets_[operand]; }
  /// Moves to the next result element.
  void next();

private:
  std::vector<int64_t> resultShape_;
  std::vector<int64_t> counter_;
  std::vector<std::vector<int64_t>> strides_; // 0 along broadcast dims.
  std::vector<int64_t> offsets_;
};

/// Normalises |axis| into [0, rank) or returns an error naming the op.
llvm::Expected<int64_t> normalizeAxisOrError(mlir::Operation *op, int64_t axis,
                                             int64_t rank,
                                             llvm::StringRef what = "axis");

/// The values of a 1-D (or scalar) integer tensor operand, e.g. a shape.
llvm::Expected<std::vector<int64_t>> readIntegerList(mlir::Operation *op,
                                                     const Tensor &tensor,
                                                     llvm::StringRef what);

/// A single result (or its error) as an evaluator's result list.
llvm::Expected<std::vector<Tensor>> singleResult(llvm::Expected<Tensor> result);

// Per-family evaluators, one file each; getFamilyEvaluator picks the family of
// an op, and each is only called with ops of its own family.
llvm::Expected<std::vector<Tensor>>
evaluateElementwise(mlir::Operation *op, llvm::ArrayRef<Tensor> operands);
llvm::Expected<std::vector<Tensor>>
evaluateReduction(mlir::Operation *op, llvm::ArrayRef<Tensor> operands);
llvm::Expected<std::vector<Tensor>>
evaluateNormalization(mlir::Operation *op, llvm::ArrayRef<Tensor> operands);
/// The arg_max/arg_min/log_softmax/hardmax/cumsum part of
/// evaluateNormalization (AlongAxisEval.cpp); std::nullopt for its other ops.
std::optional<llvm::Expected<Tensor>>
evaluateAlongAxisOp(mlir::Operation *op, llvm::ArrayRef<Tensor> operands);
llvm::Expected<std::vector<Tensor>>
evaluateConvolution(mlir::Operation *op, llvm::ArrayRef<Tensor> operands);
llvm::Expected<std::vector<Tensor>>
evaluateQuantization(mlir::Operation *op, llvm::ArrayRef<Tensor> operands);
llvm::Expected<std::vector<Tensor>>
evaluateContraction(mlir::Operation *op, llvm::ArrayRef<Tensor> operands);
llvm::Expected<std::vector<Tensor>>
evaluateAttention(mlir::Operation *op, llvm::ArrayRef<Tensor> operands);
llvm::Expected<std::vector<Tensor>>
evaluateShapeOp(mlir::Operation *op, llvm::ArrayRef<Tensor> operands);
llvm::Expected<std::vector<Tensor>>
evaluateDataMovement(mlir::Operation *op, llvm::ArrayRef<Tensor> operands);
llvm::Expected<std::vector<Tensor>>
evaluateMovement(mlir::Operation *op, llvm::ArrayRef<Tensor> operands);

/// Which family evaluates |op| (nullptr when none does).
using FamilyEvaluator = llvm::Expected<std::vector<Tensor>> (*)(
    mlir::Operation *, llvm::ArrayRef<Tensor>);
FamilyEvaluator getFamilyEvaluator(mlir::Operation *op);

} // namespace kiln::eval

#endif // KILN_LIB_EVALUATOR_EVALUATORSUPPORT_H
