// CPU evaluation of kiln.resize (per-dim taps, summed over every tap
// combination) and kiln.einsum (a sum over the reduced labels per output
// element).
#include "MovementEval.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/IR/MovementSemantics.h"

#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>
#include <cmath>

namespace kiln::eval {
namespace {
using Result = llvm::Expected<Tensor>;

/// One tap of Resize's per-dim interpolation: source index and weight.
struct Tap {
  int64_t index;
  double weight;
};

/// The taps of output position |x| along one dim; empty means the element
/// takes the extrapolation value (tf_crop_and_resize outside the roi).
std::vector<Tap> resizeTaps(ResizeOp op, int64_t x, double scale,
                            int64_t inLength, int64_t outLength,
                            double roiStart, double roiEnd) {
  llvm::StringRef ctm = op.getCoordinateTransformationMode();
  double source = *resizeSourceCoordinate(ctm, double(x), scale, inLength,
                                          outLength, roiStart, roiEnd);
  if (ctm == "tf_crop_and_resize" &&
      (source < 0 || source > double(inLength - 1)))
    return {};
  int64_t base = int64_t(std::ceil(source)) - 1;
  double ratio = source - double(base); // In (0, 1].
  std::vector<Tap> taps;
  llvm::StringRef mode = op.getMode();
  if (mode == "nearest") {
    llvm::StringRef rounding = op.getNearestMode();
    bool up = ratio == 1 || rounding == "ceil" ||
              (rounding == "round_prefer_floor" && ratio > 0.5) ||
              (rounding == "round_prefer_ceil" && ratio >= 0.5);
    taps.push_back({base + (up ? 1 : 0), 1.0});
  } else if (mode == "linear") {
    taps = {{base, 1 - ratio}, {base + 1, ratio}};
  } else {
    double w[4];
    resizeCubicWeights(ratio, op.getCubicCoeffA().convertToDouble(), w);
    for (int j = 0; j < 4; ++j)
      taps.push_back({base - 1 + j, w[j]});
  }
  if (op.getExcludeOutside()) {
    double sum = 0;
    for (Tap &tap : taps) {
      if (tap.index < 0 || tap.index >= inLength)
        tap.weight = 0;
      sum += tap.weight;
    }
    for (Tap &tap : taps)
      tap.weight = sum != 0 ? tap.weight / sum : 0;
  }
  for (Tap &tap : taps)
    tap.index = std::clamp<int64_t>(tap.index, 0, inLength - 1);
  return taps;
}

Result resize(ResizeOp op, llvm::ArrayRef<Tensor> operands) {
  const Tensor &input = operands[0];
  size_t next = 1;
  const Tensor *roi = op.getRoi() ? &operands[next++] : nullptr;
  const Tensor *scales = op.getScales() ? &operands[next++] : nullptr;
  const Tensor *sizes = op.getSizes() ? &operands[next++] : nullptr;
  int64_t rank = input.rank();
  std::vector<double> scale(rank, 1.0);
  std::vector<int64_t> shape(rank);
  for (int64_t d = 0; d < rank; ++d) {
    int64_t in = input.shape()[d];
    if (scales) {
      if (scales->numElements() != rank)
        return opError(op, "scales has " +
                               std::to_string(scales->numElements()) +
                               " entries for rank " + std::to_string(rank));
      scale[d] = scales->getDouble(d);
      if (scale[d] <= 0)
        return opError(op, "scales must be positive");
      shape[d] = int64_t(std::floor(double(in) * scale[d]));
    } else {
      if (!sizes || sizes->numElements() != rank)
        return opError(op, "sizes must have one entry per dim");
      shape[d] = sizes->getInt(d);
      scale[d] = in ? double(shape[d]) / double(in) : 1.0;
    }
  }
  if (roi && roi->numElements() != 2 * rank)
    return opError(op, "roi must have 2 * rank entries");
  Result result = makeTensor(op, input.dtype(), shape);
  if (!result)
    return result;
  if (result->numElements() == 0)
    return result;
  if (input.numElements() == 0)
    return opError(op, "cannot resize an empty tensor to a non-empty one");
  bool crop = op.getCoordinateTransformationMode() == "tf_crop_and_resize";
  std::vector<std::vector<std::vector<Tap>>> taps(rank);
  for (int64_t d = 0; d < rank; ++d)
    for (int64_t x = 0; x < shape[d]; ++x) {
      if (!crop && shape[d] == input.shape()[d] && scale[d] == 1.0) {
        taps[d].push_back({{x, 1.0}});
        continue;
      }
      taps[d].push_back(resizeTaps(op, x, scale[d], input.shape()[d], shape[d],
                                   roi ? roi->getDouble(d) : 0.0,
                                   roi ? roi->getDouble(rank + d) : 1.0));
    }
  double extrapolation = op.getExtrapolationValue().convertToDouble();
  std::vector<int64_t> out, counter(rank), source(rank);
  for (int64_t i = 0; i < result->numElements(); ++i) {
    unravel(i, shape, out);
    bool outside = false;
    for (int64_t d = 0; d < rank; ++d)
      outside |= taps[d][out[d]].empty();
    if (outside) {
      result->setDouble(i, extrapolation);
      continue;
    }
    // Sum over every combination of taps (odometer over the dims).
    std::fill(counter.begin(), counter.end(), 0);
    double sum = 0;
    while (true) {
      double weight = 1;
      for (int64_t d = 0; d < rank; ++d) {
        const Tap &tap = taps[d][out[d]][counter[d]];
        source[d] = tap.index;
        weight *= tap.weight;
      }
      if (weight != 0)
        sum += weight * input.getDouble(ravel(source, input.shape()));
      int64_t d = rank - 1;
      for (; d >= 0; --d) {
        if (++counter[d] < int64_t(taps[d][out[d]].size()))
          break;
        counter[d] = 0;
      }
      if (d < 0)
        break;
    }
    if (input.isFloat())
      result->setDouble(i, sum);
    else
      result->setInt(i, int64_t(std::nearbyint(sum)));
  }
  return result;
}

Result einsum(EinsumOp op, llvm::ArrayRef<Tensor> operands) {
  llvm::SmallVector<int64_t> ranks;
  llvm::SmallVector<llvm::ArrayRef<int64_t>> shapes;
  for (const Tensor &t : operands) {
    ranks.push_back(t.rank());
    shapes.push_back(t.shape());
  }
  std::string error;
  std::optional<EinsumSpec> spec = parseEinsum(op.getEquation(), ranks, error);
  if (!spec)
    return opError(op, "equation: " + error);
  auto sizes = einsumLabelSizes(*spec, shapes, error);
  if (!sizes)
    return opError(op, error);
  std::vector<int64_t> shape, reducedShape;
  for (int label : spec->output)
    shape.push_back((*sizes)[label]);
  for (int label : spec->reduced)
    reducedShape.push_back((*sizes)[label]);
  Result result = makeTensor(op, operands[0].dtype(), shape);
  if (!result)
    return result;
  int64_t reducedCount = 1;
  for (int64_t s : reducedShape)
    reducedCount *= s;
  std::vector<int64_t> value(sizes->size(), 0), out, red;
  bool isFloat = operands[0].isFloat();
  for (int64_t i = 0; i < result->numElements(); ++i) {
    unravel(i, shape, out);
    for (auto [label, v] : llvm::zip(spec->output, out))
      value[label] = v;
    double floatSum = 0;
    int64_t intSum = 0;
    for (int64_t r = 0; r < reducedCount; ++r) {
      unravel(r, reducedShape, red);
      for (auto [label, v] : llvm::zip(spec->reduced, red))
        value[label] = v;
      double floatProduct = 1;
      int64_t intProduct = 1;
      for (auto [labels, tensor] : llvm::zip(spec->inputs, operands)) {
        int64_t linear = 0;
        for (auto [label, dim] : llvm::zip(labels, tensor.shape()))
          linear = linear * dim + (dim == 1 ? 0 : value[label]);
        if (isFloat)
          floatProduct *= tensor.getDouble(linear);
        else
          intProduct = int64_t(uint64_t(intProduct) *
                               uint64_t(tensor.getInt(linear)));
      }
      floatSum += floatProduct;
      intSum = int64_t(uint64_t(intSum) + uint64_t(intProduct));
    }
    if (isFloat)
      result->setDouble(i, floatSum);
    else
      result->setInt(i, intSum);
  }
  return result;
}

} // namespace

std::optional<llvm::Expected<Tensor>>
evaluateResizeEinsumOp(mlir::Operation *op, llvm::ArrayRef<Tensor> operands) {
  return llvm::TypeSwitch<mlir::Operation *, std::optional<Result>>(op)
      .Case([&](ResizeOp o) -> std::optional<Result> {
        return resize(o, operands);
      })
      .Case([&](EinsumOp o) -> std::optional<Result> {
        return einsum(o, operands);
      })
      .Default([](mlir::Operation *) -> std::optional<Result> {
        return std::nullopt;
      });
}

} // namespace kiln::eval
