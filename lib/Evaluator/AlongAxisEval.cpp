// CPU evaluation of the ops that reduce or scan along one axis: arg_max,
// arg_min, log_softmax, hardmax and cumsum (the part of evaluateNormalization
// that splits a tensor around its axis).
#include "EvaluatorSupport.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <limits>

namespace kiln::eval {
namespace {

/// A tensor split around |axis| into outer x length x inner.
struct AxisSplit {
  int64_t outer = 1, length = 1, inner = 1;
  int64_t at(int64_t o, int64_t k, int64_t i) const {
    return (o * length + k) * inner + i;
  }
};

llvm::Expected<AxisSplit> splitAt(mlir::Operation *op, const Tensor &input,
                                  int64_t axis) {
  llvm::Expected<int64_t> normalized =
      normalizeAxisOrError(op, axis, std::max<int64_t>(input.rank(), 1));
  if (!normalized)
    return normalized.takeError();
  AxisSplit split;
  for (int64_t d = 0; d < input.rank(); ++d)
    (d < *normalized    ? split.outer
     : d == *normalized ? split.length
                        : split.inner) *= input.shape()[d];
  return split;
}

/// The value at |index| as a double (integers exactly up to 2^53; u64 read
/// unsigned), for ordering comparisons.
double orderedValue(const Tensor &t, int64_t index) {
  if (t.isFloat())
    return t.floats()[index];
  if (t.dtype() == DType::U64)
    return static_cast<double>(uint64_t(t.ints()[index]));
  return static_cast<double>(t.ints()[index]);
}

llvm::Expected<Tensor> argReduce(mlir::Operation *op, const Tensor &data,
                                 int64_t axis, bool keepDims, bool last,
                                 bool isMax) {
  if (data.rank() == 0)
    return opError(op, "expects a tensor of rank >= 1");
  llvm::Expected<AxisSplit> split = splitAt(op, data, axis);
  if (!split)
    return split.takeError();
  if (split->length == 0)
    return opError(op, "reduces an empty axis");
  int64_t normalized = *normalizeAxis(axis, data.rank());
  std::vector<int64_t> shape;
  for (int64_t d = 0; d < data.rank(); ++d)
    if (d != normalized)
      shape.push_back(data.shape()[d]);
    else if (keepDims)
      shape.push_back(1);
  llvm::Expected<Tensor> result = makeTensor(op, DType::I64, shape);
  if (!result)
    return result.takeError();
  // NaN ranks above every number (NumPy's argmax/argmin return the first NaN).
  auto better = [&](double v, double best) {
    if (std::isnan(best))
      return false;
    if (std::isnan(v))
      return true;
    return isMax ? v > best : v < best;
  };
  auto same = [](double v, double best) {
    return v == best || (std::isnan(v) && std::isnan(best));
  };
  for (int64_t o = 0; o < split->outer; ++o)
    for (int64_t i = 0; i < split->inner; ++i) {
      int64_t bestIndex = 0;
      double best = orderedValue(data, split->at(o, 0, i));
      for (int64_t k = 1; k < split->length; ++k) {
        double v = orderedValue(data, split->at(o, k, i));
        if (better(v, best) || (last && same(v, best))) {
          best = v;
          bestIndex = k;
        }
      }
      result->setInt(o * split->inner + i, bestIndex);
    }
  return result;
}

/// log_softmax (|hard| false) or hardmax (|hard| true) along |axis|.
llvm::Expected<Tensor> alongAxis(mlir::Operation *op, const Tensor &input,
                                 int64_t axis, bool hard) {
  if (!input.isFloat())
    return opError(op, "expects a float tensor, got " + input.describe());
  llvm::Expected<AxisSplit> split = splitAt(op, input, axis);
  if (!split)
    return split.takeError();
  Tensor result(input.dtype(), std::vector<int64_t>(input.shape().begin(),
                                                    input.shape().end()));
  const std::vector<double> &x = input.floats();
  for (int64_t o = 0; o < split->outer; ++o)
    for (int64_t i = 0; i < split->inner; ++i) {
      double maxValue = -std::numeric_limits<double>::infinity();
      int64_t maxIndex = 0;
      for (int64_t k = 0; k < split->length; ++k) {
        double v = x[split->at(o, k, i)];
        if (v > maxValue || (std::isnan(v) && !std::isnan(maxValue))) {
          maxValue = v;
          maxIndex = k;
        }
      }
      if (hard) {
        for (int64_t k = 0; k < split->length; ++k)
          result.setDouble(split->at(o, k, i), k == maxIndex ? 1.0 : 0.0);
        continue;
      }
      double sum = 0.0;
      for (int64_t k = 0; k < split->length; ++k)
        sum += std::exp(x[split->at(o, k, i)] - maxValue);
      double logSum = std::log(sum);
      for (int64_t k = 0; k < split->length; ++k)
        result.setDouble(split->at(o, k, i),
                         x[split->at(o, k, i)] - maxValue - logSum);
    }
  return result;
}

llvm::Expected<Tensor> cumulativeSum(CumSumOp op, const Tensor &input,
                                     const Tensor &axisTensor) {
  llvm::Expected<std::vector<int64_t>> axis =
      readIntegerList(op, axisTensor, "axis");
  if (!axis)
    return axis.takeError();
  if (axis->size() != 1)
    return opError(op, "expects one axis, got " + std::to_string(axis->size()));
  llvm::Expected<AxisSplit> split = splitAt(op, input, (*axis)[0]);
  if (!split)
    return split.takeError();
  Tensor result(input.dtype(), std::vector<int64_t>(input.shape().begin(),
                                                    input.shape().end()));
  bool exclusive = op.getExclusive(), reverse = op.getReverse();
  for (int64_t o = 0; o < split->outer; ++o)
    for (int64_t i = 0; i < split->inner; ++i) {
      double floatSum = 0.0;
      uint64_t intSum = 0;
      for (int64_t step = 0; step < split->length; ++step) {
        int64_t k = reverse ? split->length - 1 - step : step;
        int64_t index = split->at(o, k, i);
        if (input.isFloat()) {
          if (!exclusive)
            floatSum += input.floats()[index];
          result.setDouble(index, floatSum);
          if (exclusive)
            floatSum += input.floats()[index];
        } else {
          if (!exclusive)
            intSum += uint64_t(input.ints()[index]);
          result.setInt(index, static_cast<int64_t>(intSum));
          if (exclusive)
            intSum += uint64_t(input.ints()[index]);
        }
      }
    }
  return result;
}

} // namespace

std::optional<llvm::Expected<Tensor>>
evaluateAlongAxisOp(mlir::Operation *op, llvm::ArrayRef<Tensor> operands) {
  using Result = llvm::Expected<Tensor>;
  return llvm::TypeSwitch<mlir::Operation *, std::optional<Result>>(op)
      .Case([&](ArgMaxOp arg) -> std::optional<Result> {
        return argReduce(op, operands[0], arg.getAxis(), arg.getKeepdims(),
                         arg.getSelectLastIndex(), /*isMax=*/true);
      })
      .Case([&](ArgMinOp arg) -> std::optional<Result> {
        return argReduce(op, operands[0], arg.getAxis(), arg.getKeepdims(),
                         arg.getSelectLastIndex(), /*isMax=*/false);
      })
      .Case([&](LogSoftmaxOp o) -> std::optional<Result> {
        return alongAxis(op, operands[0], o.getAxis(), /*hard=*/false);
      })
      .Case([&](HardmaxOp o) -> std::optional<Result> {
        return alongAxis(op, operands[0], o.getAxis(), /*hard=*/true);
      })
      .Case([&](CumSumOp o) -> std::optional<Result> {
        return cumulativeSum(o, operands[0], operands[1]);
      })
      .Default([](mlir::Operation *) -> std::optional<Result> {
        return std::nullopt;
      });
}

} // namespace kiln::eval
