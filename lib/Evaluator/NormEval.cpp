// Evaluation of the normalisations and the NLL loss; statistics accumulate in
// double. arg_max/arg_min, log_softmax, hardmax and cumsum are evaluated in
// AlongAxisEval.cpp.
#include "EvaluatorSupport.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

namespace kiln::eval {
namespace {

/// |operand| broadcast to |shape|, flattened.
std::vector<double> broadcastTo(const Tensor &operand,
                                llvm::ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t d : shape)
    count *= d;
  std::vector<double> values(count);
  llvm::ArrayRef<int64_t> operandShape = operand.shape();
  BroadcastIterator it(shape, {operandShape});
  for (int64_t i = 0; i < count; ++i, it.next())
    values[i] = operand.getDouble(it.operandIndex(0));
  return values;
}

/// Normalises |groups| consecutive runs of |length| elements of |x| with
/// their own mean and variance; |affine| gives (scale, bias) for a group and
/// a position in it.
template <typename AffineFn>
Tensor normalizeGroups(const Tensor &x, int64_t groups, int64_t length,
                       double epsilon, AffineFn affine) {
  Tensor result(x.dtype(),
                std::vector<int64_t>(x.shape().begin(), x.shape().end()));
  for (int64_t g = 0; g < groups; ++g) {
    const double *row = x.floats().data() + g * length;
    double mean = 0.0, variance = 0.0;
    for (int64_t k = 0; k < length; ++k)
      mean += row[k];
    mean /= static_cast<double>(length);
    for (int64_t k = 0; k < length; ++k)
      variance += (row[k] - mean) * (row[k] - mean);
    variance /= static_cast<double>(length);
    double inverse = 1.0 / std::sqrt(variance + epsilon);
    for (int64_t k = 0; k < length; ++k) {
      auto [scale, bias] = affine(g, k);
      result.setDouble(g * length + k,
                       (row[k] - mean) * inverse * scale + bias);
    }
  }
  return result;
}

llvm::Expected<Tensor> layerNorm(LayerNormOp op,
                                 llvm::ArrayRef<Tensor> operands) {
  const Tensor &x = operands[0];
  llvm::Expected<int64_t> axis =
      normalizeAxisOrError(op, op.getAxis(), x.rank());
  if (!axis)
    return axis.takeError();
  llvm::ArrayRef<int64_t> normalizedShape = x.shape().drop_front(*axis);
  int64_t length = 1;
  for (int64_t d : normalizedShape)
    length *= d;
  int64_t groups = length == 0 ? 0 : x.numElements() / length;
  for (unsigned i = 1; i < operands.size(); ++i) {
    llvm::Expected<std::vector<int64_t>> shape =
        broadcastRuntimeShapes(op, {normalizedShape, operands[i].shape()});
    if (!shape)
      return shape.takeError();
    if (llvm::ArrayRef<int64_t>(*shape) != normalizedShape)
      return opError(
          op, (i == 1 ? "scale " : "bias ") + formatShape(operands[i].shape()) +
                  " does not broadcast to " + formatShape(normalizedShape));
  }
  std::vector<double> scale = broadcastTo(operands[1], normalizedShape);
  std::vector<double> bias = operands.size() > 2
                                 ? broadcastTo(operands[2], normalizedShape)
                                 : std::vector<double>(length, 0.0);
  return normalizeGroups(
      x, groups, length, op.getEpsilon().convertToFloat(),
      [&](int64_t, int64_t k) { return std::make_pair(scale[k], bias[k]); });
}

/// Checks that |operand| is a 1-D tensor of |channels| elements.
llvm::Error checkChannels(mlir::Operation *op, const Tensor &operand,
                          int64_t channels, llvm::StringRef what) {
  if (operand.rank() != 1 || operand.shape()[0] != channels)
    return opError(op, what + " must have shape [" + std::to_string(channels) +
                           "], got " + formatShape(operand.shape()));
  return llvm::Error::success();
}

llvm::Expected<Tensor> instanceNorm(InstanceNormOp op,
                                    llvm::ArrayRef<Tensor> operands) {
  const Tensor &x = operands[0];
  int64_t channels = x.shape()[1];
  for (int i = 1; i < 3; ++i)
    if (llvm::Error error =
            checkChannels(op, operands[i], channels, i == 1 ? "scale" : "bias"))
      return std::move(error);
  int64_t groups = x.shape()[0] * channels;
  int64_t length = groups == 0 ? 0 : x.numElements() / groups;
  return normalizeGroups(x, groups, length, op.getEpsilon().convertToFloat(),
                         [&](int64_t g, int64_t) {
                           return std::make_pair(
                               operands[1].getDouble(g % channels),
                               operands[2].getDouble(g % channels));
                         });
}

llvm::Expected<Tensor> batchNorm(BatchNormOp op,
                                 llvm::ArrayRef<Tensor> operands) {
  const Tensor &x = operands[0];
  int64_t channels = x.shape()[1];
  static const char *names[] = {"", "scale", "bias", "mean", "variance"};
  for (int i = 1; i < 5; ++i)
    if (llvm::Error error = checkChannels(op, operands[i], channels, names[i]))
      return std::move(error);
  int64_t inner = 1;
  for (int64_t d = 2; d < x.rank(); ++d)
    inner *= x.shape()[d];
  double epsilon = op.getEpsilon().convertToFloat();
  Tensor result(x.dtype(),
                std::vector<int64_t>(x.shape().begin(), x.shape().end()));
  for (int64_t i = 0; i < x.numElements(); ++i) {
    int64_t c = (i / inner) % channels;
    double normalized = (x.floats()[i] - operands[3].getDouble(c)) /
                        std::sqrt(operands[4].getDouble(c) + epsilon);
    result.setDouble(i, normalized * operands[1].getDouble(c) +
                            operands[2].getDouble(c));
  }
  return result;
}

llvm::Expected<Tensor> localResponseNorm(LRNOp op, const Tensor &x) {
  int64_t channels = x.shape()[1];
  int64_t inner = 1;
  for (int64_t d = 2; d < x.rank(); ++d)
    inner *= x.shape()[d];
  int64_t size = op.getSize();
  int64_t before = (size - 1) / 2, after = size - 1 - before;
  double alpha = op.getAlpha().convertToFloat();
  double beta = op.getBeta().convertToFloat();
  double bias = op.getBias().convertToFloat();
  Tensor result(x.dtype(),
                std::vector<int64_t>(x.shape().begin(), x.shape().end()));
  for (int64_t i = 0; i < x.numElements(); ++i) {
    int64_t c = (i / inner) % channels;
    double sum = 0.0;
    for (int64_t j = std::max<int64_t>(0, c - before);
         j <= std::min(channels - 1, c + after); ++j) {
      double v = x.floats()[i + (j - c) * inner];
      sum += v * v;
    }
    result.setDouble(i, x.floats()[i] /
                            std::pow(bias + alpha / double(size) * sum, beta));
  }
  return result;
}

llvm::Expected<Tensor> nllLoss(NLLLossOp op, llvm::ArrayRef<Tensor> operands) {
  const Tensor &input = operands[0], &target = operands[1];
  const Tensor *weight = operands.size() > 2 ? &operands[2] : nullptr;
  if (input.rank() < 2 || target.rank() != input.rank() - 1)
    return opError(op, "expects input [N, C, ...] and target [N, ...], got " +
                           formatShape(input.shape()) + " and " +
                           formatShape(target.shape()));
  int64_t n = input.shape()[0], classes = input.shape()[1];
  int64_t inner = 1;
  for (int64_t d = 2; d < input.rank(); ++d) {
    if (target.shape()[d - 1] != input.shape()[d])
      return opError(op, "target shape " + formatShape(target.shape()) +
                             " does not match input " +
                             formatShape(input.shape()));
    inner *= input.shape()[d];
  }
  if (target.shape()[0] != n)
    return opError(op, "target has " + std::to_string(target.shape()[0]) +
                           " rows for " + std::to_string(n));
  if (weight && (weight->rank() != 1 || weight->shape()[0] != classes))
    return opError(op, "weight must have shape [" + std::to_string(classes) +
                           "], got " + formatShape(weight->shape()));
  std::optional<int64_t> ignore;
  if (mlir::IntegerAttr attr = op.getIgnoreIndexAttr())
    ignore = attr.getInt();
  llvm::StringRef reduction = op.getReduction();
  Tensor losses(input.dtype(), std::vector<int64_t>(target.shape().begin(),
                                                    target.shape().end()));
  double lossSum = 0.0, weightSum = 0.0;
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < inner; ++i) {
      int64_t t = target.ints()[b * inner + i];
      if (ignore && t == *ignore)
        continue;
      if (t < 0 || t >= classes)
        return opError(op, "target " + std::to_string(t) + " is outside [0, " +
                               std::to_string(classes) + ")");
      double w = weight ? weight->getDouble(t) : 1.0;
      double loss = -input.floats()[(b * classes + t) * inner + i] * w;
      losses.setDouble(b * inner + i, loss);
      lossSum += loss;
      weightSum += w;
    }
  if (reduction == "none")
    return losses;
  Tensor result(input.dtype(), {});
  result.setDouble(0, reduction == "sum" ? lossSum : lossSum / weightSum);
  return result;
}

} // namespace

llvm::Expected<std::vector<Tensor>>
evaluateNormalization(mlir::Operation *op, llvm::ArrayRef<Tensor> operands) {
  auto needsFloat = [&]() -> llvm::Error {
    if (!operands[0].isFloat())
      return opError(op,
                     "expects a float tensor, got " + operands[0].describe());
    return llvm::Error::success();
  };
  if (!mlir::isa<ArgMaxOp, ArgMinOp, CumSumOp>(op))
    if (llvm::Error error = needsFloat())
      return std::move(error);
  if (mlir::isa<InstanceNormOp, BatchNormOp, LRNOp>(op) &&
      operands[0].rank() < 2)
    return opError(op, "expects a tensor of rank >= 2");
  if (std::optional<llvm::Expected<Tensor>> result =
          evaluateAlongAxisOp(op, operands))
    return singleResult(std::move(*result));
  llvm::Expected<Tensor> result =
      llvm::TypeSwitch<mlir::Operation *, llvm::Expected<Tensor>>(op)
          .Case([&](LayerNormOp o) { return layerNorm(o, operands); })
          .Case([&](InstanceNormOp o) { return instanceNorm(o, operands); })
          .Case([&](BatchNormOp o) { return batchNorm(o, operands); })
          .Case([&](LRNOp o) { return localResponseNorm(o, operands[0]); })
          .Case([&](NLLLossOp o) { return nllLoss(o, operands); })
          .Default([&](mlir::Operation *) {
            return opError(op, "is not a normalisation op");
          });
  return singleResult(std::move(result));
}

} // namespace kiln::eval
