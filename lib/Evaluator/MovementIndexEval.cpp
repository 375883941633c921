// CPU evaluation of the index-driven movement ops: GatherElements, GatherND,
// ScatterElements, ScatterND, TopK, Resize and Einsum.
#include "MovementEval.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/IR/MovementSemantics.h"

#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace kiln::eval {
namespace {
using Result = llvm::Expected<Tensor>;

/// |index| wrapped once when negative; an error when out of [-size, size).
llvm::Expected<int64_t> checkedIndex(mlir::Operation *op, int64_t index,
                                     int64_t size) {
  if (index < -size || index >= size)
    return opError(op, "index " + std::to_string(index) +
                           " is out of range for a dimension of " +
                           std::to_string(size));
  return index < 0 ? index + size : index;
}

Result gatherElements(GatherElementsOp op, const Tensor &data,
                      const Tensor &indices) {
  llvm::Expected<int64_t> axis =
      normalizeAxisOrError(op, op.getAxis(), data.rank());
  if (!axis)
    return axis.takeError();
  if (indices.rank() != data.rank())
    return opError(op, "data and indices must have one rank");
  Result result = makeTensor(op, data.dtype(), indices.shape());
  if (!result)
    return result;
  std::vector<int64_t> coords;
  for (int64_t i = 0; i < indices.numElements(); ++i) {
    unravel(i, indices.shape(), coords);
    llvm::Expected<int64_t> index =
        checkedIndex(op, indices.getInt(i), data.shape()[*axis]);
    if (!index)
      return index.takeError();
    coords[*axis] = *index;
    copyValue(*result, i, data, ravel(coords, data.shape()));
  }
  return result;
}

Result gatherND(GatherNDOp op, const Tensor &data, const Tensor &indices) {
  int64_t batch = op.getBatchDims(), q = indices.rank();
  int64_t m = q ? indices.shape()[q - 1] : 0;
  if (q < 1 || batch < 0 || batch >= q || batch + m > data.rank())
    return opError(op, "indices " + indices.describe() +
                           " do not address " + data.describe());
  std::vector<int64_t> shape(indices.shape().begin(), indices.shape().end() - 1);
  shape.insert(shape.end(), data.shape().begin() + batch + m,
               data.shape().end());
  Result result = makeTensor(op, data.dtype(), shape);
  if (!result)
    return result;
  std::vector<int64_t> out, source(data.rank());
  for (int64_t i = 0; i < result->numElements(); ++i) {
    unravel(i, shape, out);
    for (int64_t d = 0; d < batch; ++d)
      source[d] = out[d];
    int64_t row = ravel(llvm::ArrayRef(out).take_front(q - 1),
                        indices.shape().drop_back());
    for (int64_t j = 0; j < m; ++j) {
      llvm::Expected<int64_t> index = checkedIndex(
          op, indices.getInt(row * m + j), data.shape()[batch + j]);
      if (!index)
        return index.takeError();
      source[batch + j] = *index;
    }
    for (int64_t d = batch + m; d < data.rank(); ++d)
      source[d] = out[q - 1 + d - batch - m];
    copyValue(*result, i, data, ravel(source, data.shape()));
  }
  return result;
}

/// result[at] = reduce(result[at], updates[from]).
void combine(Tensor &result, int64_t at, const Tensor &updates, int64_t from,
             llvm::StringRef reduction) {
  if (reduction == "none") {
    copyValue(result, at, updates, from);
  } else if (result.isFloat()) {
    double a = result.floats()[at], b = updates.floats()[from];
    result.setDouble(at, reduction == "add"   ? a + b
                         : reduction == "mul" ? a * b
                         : reduction == "max" ? std::max(a, b)
                                              : std::min(a, b));
  } else {
    int64_t a = result.ints()[at], b = updates.ints()[from];
    result.setInt(at, reduction == "add"   ? int64_t(uint64_t(a) + uint64_t(b))
                      : reduction == "mul" ? int64_t(uint64_t(a) * uint64_t(b))
                      : reduction == "max" ? std::max(a, b)
                                           : std::min(a, b));
  }
}

Result scatterElements(ScatterElementsOp op, llvm::ArrayRef<Tensor> operands) {
  const Tensor &data = operands[0], &indices = operands[1],
               &updates = operands[2];
  llvm::Expected<int64_t> axis =
      normalizeAxisOrError(op, op.getAxis(), data.rank());
  if (!axis)
    return axis.takeError();
  if (indices.shape() != updates.shape() || indices.rank() != data.rank())
    return opError(op, "indices " + indices.describe() + " and updates " +
                           updates.describe() + " do not fit " +
                           data.describe());
  Tensor result = data;
  std::vector<int64_t> coords;
  for (int64_t i = 0; i < indices.numElements(); ++i) {
    unravel(i, indices.shape(), coords);
    llvm::Expected<int64_t> index =
        checkedIndex(op, indices.getInt(i), data.shape()[*axis]);
    if (!index)
      return index.takeError();
    coords[*axis] = *index;
    combine(result, ravel(coords, data.shape()), updates, i,
            op.getReduction());
  }
  return result;
}

Result scatterND(ScatterNDOp op, llvm::ArrayRef<Tensor> operands) {
  const Tensor &data = operands[0], &indices = operands[1],
               &updates = operands[2];
  int64_t q = indices.rank(), m = q ? indices.shape()[q - 1] : -1;
  if (q < 1 || m > data.rank())
    return opError(op, "indices " + indices.describe() + " do not address " +
                           data.describe());
  int64_t sliceSize = 1;
  for (int64_t d = m; d < data.rank(); ++d)
    sliceSize *= data.shape()[d];
  int64_t rows = m ? indices.numElements() / m : 0;
  if (updates.numElements() != rows * sliceSize)
    return opError(op, "updates " + updates.describe() + " do not fit");
  Tensor result = data;
  std::vector<int64_t> coords(data.rank(), 0);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < m; ++j) {
      llvm::Expected<int64_t> index =
          checkedIndex(op, indices.getInt(r * m + j), data.shape()[j]);
      if (!index)
        return index.takeError();
      coords[j] = *index;
    }
    int64_t base = ravel(coords, data.shape());
    for (int64_t e = 0; e < sliceSize; ++e)
      combine(result, base + e, updates, r * sliceSize + e, op.getReduction());
  }
  return result;
}

Result topK(TopKOp op, llvm::ArrayRef<Tensor> operands) {
  const Tensor &input = operands[0];
  if (operands[1].numElements() != 1)
    return opError(op, "k must hold one value");
  int64_t k = operands[1].getInt(0);
  llvm::Expected<int64_t> axis =
      normalizeAxisOrError(op, op.getAxis(), input.rank());
  if (!axis)
    return axis.takeError();
  int64_t length = input.shape()[*axis];
  if (k < 0 || k > length)
    return opError(op, "k = " + std::to_string(k) + " is out of range for " +
                           "an axis of " + std::to_string(length));
  std::vector<int64_t> shape(input.shape().begin(), input.shape().end());
  shape[*axis] = k;
  Result result = makeTensor(op, DType::I64, shape);
  if (!result)
    return result;
  int64_t inner = 1;
  for (int64_t d = *axis + 1; d < input.rank(); ++d)
    inner *= input.shape()[d];
  int64_t outer = length ? input.numElements() / (length * inner) : 0;
  bool largest = op.getLargest();
  std::vector<int64_t> order(length);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t in = 0; in < inner; ++in) {
      auto at = [&](int64_t j) {
        return input.getDouble((o * length + j) * inner + in);
      };
      std::iota(order.begin(), order.end(), 0);
      // NaN ranks above every number; ties keep the lower index first.
      std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
        double x = at(a), y = at(b);
        if (std::isnan(x) || std::isnan(y))
          return largest ? !std::isnan(y) : !std::isnan(x) && std::isnan(y);
        return largest ? x > y : x < y;
      });
      for (int64_t j = 0; j < k; ++j)
        result->setInt((o * k + j) * inner + in, order[j]);
    }
  return result;
}

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
evaluateMovementIndexOp(mlir::Operation *op, llvm::ArrayRef<Tensor> operands) {
  return llvm::TypeSwitch<mlir::Operation *, std::optional<Result>>(op)
      .Case([&](GatherElementsOp o) -> std::optional<Result> {
        return gatherElements(o, operands[0], operands[1]);
      })
      .Case([&](GatherNDOp o) -> std::optional<Result> {
        return gatherND(o, operands[0], operands[1]);
      })
      .Case([&](ScatterElementsOp o) -> std::optional<Result> {
        return scatterElements(o, operands);
      })
      .Case([&](ScatterNDOp o) -> std::optional<Result> {
        return scatterND(o, operands);
      })
      .Case([&](TopKOp o) -> std::optional<Result> { return topK(o, operands); })
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
