// Internal: the parts of the movement ops' CPU evaluation and the helpers
// they share (MovementEval.cpp, MovementIndexEval.cpp, MovementResizeEval.cpp).
#ifndef KILN_LIB_EVALUATOR_MOVEMENTEVAL_H
#define KILN_LIB_EVALUATOR_MOVEMENTEVAL_H

#include "EvaluatorSupport.h"

namespace kiln::eval {

/// Copies element |fromIndex| of |from| into |to| (same dtype family).
inline void copyValue(Tensor &to, int64_t toIndex, const Tensor &from,
                      int64_t fromIndex) {
  if (from.isFloat())
    to.floats()[toIndex] = from.floats()[fromIndex];
  else
    to.ints()[toIndex] = from.ints()[fromIndex];
}

/// The coordinates of row-major element |linear| of |shape|.
inline void unravel(int64_t linear, llvm::ArrayRef<int64_t> shape,
                    std::vector<int64_t> &coords) {
  coords.assign(shape.size(), 0);
  for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
    if (shape[d] == 0)
      return;
    coords[d] = linear % shape[d];
    linear /= shape[d];
  }
}

/// The row-major linear index of |coords| in |shape|.
inline int64_t ravel(llvm::ArrayRef<int64_t> coords,
                     llvm::ArrayRef<int64_t> shape) {
  int64_t linear = 0;
  for (size_t d = 0; d < shape.size(); ++d)
    linear = linear * shape[d] + coords[d];
  return linear;
}

/// Gather/scatter/top-k/resize/einsum; std::nullopt when |op| is not one.
std::optional<llvm::Expected<Tensor>>
evaluateMovementIndexOp(mlir::Operation *op, llvm::ArrayRef<Tensor> operands);

/// Resize/einsum (MovementResizeEval.cpp); std::nullopt when |op| is not one.
std::optional<llvm::Expected<Tensor>>
evaluateResizeEinsumOp(mlir::Operation *op, llvm::ArrayRef<Tensor> operands);

} // namespace kiln::eval

#endif // KILN_LIB_EVALUATOR_MOVEMENTEVAL_H
