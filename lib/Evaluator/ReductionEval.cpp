// Evaluation of reductions (ReduceSum/Mean/Max/Min/Prod/LogSumExp) and Softmax;
// float sums accumulate in double and round once to the dtype.
#include "EvaluatorSupport.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Evaluator/ScalarSemantics.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <limits>

namespace kiln::eval {
namespace {

enum class Combiner { Sum, Mean, Max, Min, Prod, LogSumExp };

/// min with NaN winning, like nanPropagatingMax (ReduceMin follows NumPy).
double minKeepingNaN(double lhs, double rhs) {
  if (std::isnan(lhs) || std::isnan(rhs))
    return std::numeric_limits<double>::quiet_NaN();
  return rhs < lhs ? rhs : lhs;
}

/// The axes a reduction runs over (sorted flags per dim), or std::nullopt
/// when it is a no-op (empty axes with noop_with_empty_axes).
llvm::Expected<std::optional<std::vector<bool>>>
reducedDims(mlir::Operation *op, llvm::ArrayRef<Tensor> operands,
            bool noopWithEmptyAxes) {
  const Tensor &data = operands[0];
  std::vector<bool> reduced(data.rank(), false);
  std::vector<int64_t> axes;
  if (operands.size() > 1) {
    llvm::Expected<std::vector<int64_t>> list =
        readIntegerList(op, operands[1], "axes");
    if (!list)
      return list.takeError();
    axes = std::move(*list);
  }
  if (axes.empty()) {
    if (noopWithEmptyAxes)
      return std::nullopt;
    reduced.assign(data.rank(), true);
    return reduced;
  }
  for (int64_t axis : axes) {
    llvm::Expected<int64_t> normalized =
        normalizeAxisOrError(op, axis, data.rank());
    if (!normalized)
      return normalized.takeError();
    if (reduced[*normalized])
      return opError(op, "axis " + std::to_string(axis) + " is listed twice");
    reduced[*normalized] = true;
  }
  return reduced;
}

llvm::Expected<Tensor> reduce(mlir::Operation *op, Combiner combiner,
                              llvm::ArrayRef<Tensor> operands, bool keepDims,
                              bool noopWithEmptyAxes) {
  const Tensor &data = operands[0];
  if (operands.size() > 2)
    return opError(op, "expects at most 2 operands");
  auto reducedOr = reducedDims(op, operands, noopWithEmptyAxes);
  if (!reducedOr)
    return reducedOr.takeError();
  if (!*reducedOr)
    return data; // noop_with_empty_axes and no axes: identity.
  const std::vector<bool> &reduced = **reducedOr;

  // Result shape, and the stride of each input dim in the result (0 when
  // that dim is reduced).
  std::vector<int64_t> resultShape;
  for (int64_t dim = 0; dim < data.rank(); ++dim)
    if (!reduced[dim])
      resultShape.push_back(data.shape()[dim]);
    else if (keepDims)
      resultShape.push_back(1);
  std::vector<int64_t> resultStride(data.rank(), 0);
  int64_t stride = 1, count = 1;
  for (int64_t dim = data.rank() - 1; dim >= 0; --dim) {
    if (reduced[dim]) {
      count *= data.shape()[dim];
      continue;
    }
    resultStride[dim] = stride;
    stride *= data.shape()[dim];
  }
  llvm::Expected<Tensor> result = makeTensor(op, data.dtype(), resultShape);
  if (!result)
    return result.takeError();
  int64_t resultCount = result->numElements();

  std::vector<int64_t> counter(data.rank(), 0);
  auto forEachElement = [&](auto &&visit) {
    int64_t target = 0;
    for (int64_t i = 0; i < data.numElements(); ++i) {
      visit(i, target);
      for (int64_t dim = data.rank() - 1; dim >= 0; --dim) {
        if (++counter[dim] < data.shape()[dim]) {
          target += resultStride[dim];
          break;
        }
        counter[dim] = 0;
        target -= resultStride[dim] * (data.shape()[dim] - 1);
      }
    }
  };

  if (data.isFloat()) {
    constexpr double inf = std::numeric_limits<double>::infinity();
    double initial = combiner == Combiner::Max   ? -inf
                     : combiner == Combiner::Min ? inf
                     : combiner == Combiner::Prod ? 1.0
                                                  : 0.0;
    std::vector<double> accumulators(resultCount, initial);
    // LogSumExp keeps a running maximum m and sum(e^(x - m)) (rescaled when
    // m grows), so large inputs do not overflow.
    std::vector<double> runningMax(
        combiner == Combiner::LogSumExp ? resultCount : 0, -inf);
    forEachElement([&](int64_t i, int64_t target) {
      double value = data.floats()[i];
      double &acc = accumulators[target];
      switch (combiner) {
      case Combiner::Max:
        acc = nanPropagatingMax(acc, value);
        break;
      case Combiner::Min:
        acc = minKeepingNaN(acc, value);
        break;
      case Combiner::Prod:
        acc *= value;
        break;
      case Combiner::LogSumExp: {
        double &m = runningMax[target];
        if (std::isnan(value) || std::isnan(acc)) {
          acc = value + acc;
        } else if (value == -inf) {
          // e^-inf adds nothing.
        } else if (value > m) {
          acc = acc * std::exp(m - value) + 1.0;
          m = value;
        } else {
          acc += std::exp(value - m);
        }
        break;
      }
      default:
        acc += value;
      }
    });
    if (combiner == Combiner::LogSumExp)
      for (int64_t i = 0; i < resultCount; ++i)
        accumulators[i] = accumulators[i] == 0.0
                              ? -inf
                              : runningMax[i] + std::log(accumulators[i]);
    for (int64_t i = 0; i < resultCount; ++i)
      result->setDouble(i, combiner == Combiner::Mean
                               ? accumulators[i] / static_cast<double>(count)
                               : accumulators[i]);
    return result;
  }

  const ElementwiseSemantics &max =
      getElementwiseSemantics(ElementwiseKind::Max);
  if (combiner == Combiner::LogSumExp)
    return opError(op, "expects a float tensor, got " + data.describe());
  bool isU64 = data.dtype() == DType::U64;
  int64_t initial = 0;
  if (combiner == Combiner::Max && !isU64)
    initial = static_cast<int64_t>(intDTypeMin(data.dtype()));
  if (combiner == Combiner::Min)
    initial = isU64 ? -1
              : data.dtype() == DType::I64
                  ? std::numeric_limits<int64_t>::max()
                  : static_cast<int64_t>(intDTypeMax(data.dtype()));
  if (combiner == Combiner::Prod)
    initial = 1;
  std::vector<int64_t> accumulators(resultCount, initial);
  forEachElement([&](int64_t i, int64_t target) {
    int64_t args[2] = {accumulators[target], data.ints()[i]};
    int64_t &acc = accumulators[target];
    if (combiner == Combiner::Max)
      acc = *max.cpuInt(args, data.dtype());
    else if (combiner == Combiner::Min)
      acc = (isU64 ? uint64_t(args[1]) < uint64_t(args[0])
                   : args[1] < args[0])
                ? args[1]
                : args[0];
    else if (combiner == Combiner::Prod)
      acc = static_cast<int64_t>(uint64_t(args[0]) * uint64_t(args[1]));
    else
      acc = static_cast<int64_t>(uint64_t(args[0]) + uint64_t(args[1]));
  });
  for (int64_t i = 0; i < resultCount; ++i) {
    int64_t value = accumulators[i];
    if (combiner == Combiner::Mean)
      value = count == 0
                  ? 0
                  : *truncatingDivide(value, count,
                                      data.dtype() == DType::U64 ? DType::U64
                                                                 : DType::I64);
    result->setInt(i, value);
  }
  return result;
}

llvm::Expected<Tensor> softmax(SoftmaxOp op, const Tensor &input) {
  if (!input.isFloat())
    return opError(op, "expects a float tensor, got " + input.describe());
  llvm::Expected<int64_t> axis = normalizeAxisOrError(
      op, static_cast<int64_t>(op.getAxis()), input.rank());
  if (!axis)
    return axis.takeError();
  int64_t outer = 1, length = input.shape()[*axis], inner = 1;
  for (int64_t dim = 0; dim < *axis; ++dim)
    outer *= input.shape()[dim];
  for (int64_t dim = *axis + 1; dim < input.rank(); ++dim)
    inner *= input.shape()[dim];

  Tensor result(input.dtype(), std::vector<int64_t>(input.shape().begin(),
                                                    input.shape().end()));
  std::vector<double> exps(length);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t in = 0; in < inner; ++in) {
      auto index = [&](int64_t k) { return (o * length + k) * inner + in; };
      double maxValue = -std::numeric_limits<double>::infinity();
      for (int64_t k = 0; k < length; ++k)
        maxValue = nanPropagatingMax(maxValue, input.floats()[index(k)]);
      double sum = 0.0;
      for (int64_t k = 0; k < length; ++k) {
        exps[k] = std::exp(input.floats()[index(k)] - maxValue);
        sum += exps[k];
      }
      for (int64_t k = 0; k < length; ++k)
        result.setDouble(index(k), exps[k] / sum);
    }
  }
  return result;
}

} // namespace

llvm::Expected<std::vector<Tensor>>
evaluateReduction(mlir::Operation *op, llvm::ArrayRef<Tensor> operands) {
  auto reduceWith = [&](auto reduceOp, Combiner combiner) {
    return reduce(op, combiner, operands, reduceOp.getKeepdims(),
                  reduceOp.getNoopWithEmptyAxes());
  };
  llvm::Expected<Tensor> result =
      llvm::TypeSwitch<mlir::Operation *, llvm::Expected<Tensor>>(op)
          .Case([&](ReduceSumOp reduceOp) {
            return reduceWith(reduceOp, Combiner::Sum);
          })
          .Case([&](ReduceMeanOp reduceOp) {
            return reduceWith(reduceOp, Combiner::Mean);
          })
          .Case([&](ReduceMaxOp reduceOp) {
            return reduceWith(reduceOp, Combiner::Max);
          })
          .Case([&](ReduceMinOp reduceOp) {
            return reduceWith(reduceOp, Combiner::Min);
          })
          .Case([&](ReduceProdOp reduceOp) {
            return reduceWith(reduceOp, Combiner::Prod);
          })
          .Case([&](ReduceLogSumExpOp reduceOp) {
            return reduceWith(reduceOp, Combiner::LogSumExp);
          })
          .Case([&](SoftmaxOp softmaxOp) {
            return softmax(softmaxOp, operands[0]);
          })
          .Default([&](mlir::Operation *) {
            return opError(op, "is not a reduction");
          });
  return singleResult(std::move(result));
}

} // namespace kiln::eval
