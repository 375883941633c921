// Evaluation of QuantizeLinear and DequantizeLinear, per tensor or per axis:
// x / scale rounds to the input's float type, then half-to-even, then adds the
// zero point and saturates to the 8-bit range (ONNX's reference semantics).
#include "EvaluatorSupport.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Evaluator/ScalarSemantics.h"

#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>
#include <cmath>

namespace kiln::eval {
namespace {

/// Maps an element of |input| to the scale/zero-point element it uses.
struct ParameterIndex {
  int64_t stride = 1, size = 1; // size 1: per tensor.
  int64_t operator()(int64_t flat) const {
    return size == 1 ? 0 : (flat / stride) % size;
  }
};

llvm::Expected<ParameterIndex>
parameterIndex(mlir::Operation *op, const Tensor &input, const Tensor &scale,
               const Tensor &zero, int64_t axis) {
  if (scale.numElements() != zero.numElements() || scale.rank() > 1)
    return opError(op, "has scale " + scale.describe() + " and zero point " +
                           zero.describe() + " that do not match");
  ParameterIndex index;
  if (scale.rank() == 0 || scale.numElements() == 1)
    return index;
  llvm::Expected<int64_t> a = normalizeAxisOrError(op, axis, input.rank());
  if (!a)
    return a.takeError();
  if (input.shape()[*a] != scale.numElements())
    return opError(op, "has per-axis scale " + scale.describe() +
                           " that does not match dim " + std::to_string(*a) +
                           " of " + input.describe());
  index.size = scale.numElements();
  index.stride = input.strides()[*a];
  return index;
}

/// |value| rounded to the precision of the float |dtype| (f16/bf16 included).
double roundToDType(DType dtype, double value) {
  Tensor scratch(dtype, {1});
  scratch.setDouble(0, value);
  return scratch.getDouble(0);
}

llvm::Expected<Tensor> quantize(QuantizeLinearOp op,
                                llvm::ArrayRef<Tensor> operands) {
  const Tensor &x = operands[0], &scale = operands[1], &zero = operands[2];
  auto index = parameterIndex(op, x, scale, zero, op.getAxis());
  if (!index)
    return index.takeError();
  llvm::Expected<Tensor> result =
      makeTensor(op, zero.dtype(), std::vector<int64_t>(x.shape()));
  if (!result)
    return result.takeError();
  double low = zero.dtype() == DType::I8 ? -128 : 0;
  double high = zero.dtype() == DType::I8 ? 127 : 255;
  for (int64_t i = 0; i < x.numElements(); ++i) {
    int64_t p = (*index)(i);
    double scaled =
        roundToDType(x.dtype(), x.getDouble(i) / scale.getDouble(p));
    double q = std::nearbyint(scaled) + zero.getDouble(p);
    if (std::isnan(q))
      q = 0; // Saturating conversion of NaN, as Cast does.
    result->setInt(i, static_cast<int64_t>(std::clamp(q, low, high)));
  }
  return result;
}

llvm::Expected<Tensor> dequantize(DequantizeLinearOp op,
                                  llvm::ArrayRef<Tensor> operands) {
  const Tensor &x = operands[0], &scale = operands[1], &zero = operands[2];
  auto index = parameterIndex(op, x, scale, zero, op.getAxis());
  if (!index)
    return index.takeError();
  llvm::Expected<Tensor> result =
      makeTensor(op, scale.dtype(), std::vector<int64_t>(x.shape()));
  if (!result)
    return result.takeError();
  for (int64_t i = 0; i < x.numElements(); ++i) {
    int64_t p = (*index)(i);
    result->setDouble(i, double(x.getInt(i) - zero.getInt(p)) *
                             scale.getDouble(p));
  }
  return result;
}

} // namespace

llvm::Expected<std::vector<Tensor>>
evaluateQuantization(mlir::Operation *op, llvm::ArrayRef<Tensor> operands) {
  if (operands.size() != 3)
    return opError(op, "expects 3 operands");
  llvm::Expected<Tensor> result =
      llvm::TypeSwitch<mlir::Operation *, llvm::Expected<Tensor>>(op)
          .Case<QuantizeLinearOp>(
              [&](QuantizeLinearOp q) { return quantize(q, operands); })
          .Case<DequantizeLinearOp>(
              [&](DequantizeLinearOp d) { return dequantize(d, operands); })
          .Default([&](mlir::Operation *other) -> llvm::Expected<Tensor> {
            return opError(other, "is not a quantisation op");
          });
  return singleResult(std::move(result));
}

} // namespace kiln::eval
