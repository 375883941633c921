// CPU evaluation of the index-driven movement ops: GatherElements, GatherND,
// ScatterElements, ScatterND and TopK; Resize and Einsum are in
// MovementResizeEval.cpp.
#include "MovementEval.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

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
      .Default([&](mlir::Operation *) -> std::optional<Result> {
        return evaluateResizeEinsumOp(op, operands);
      });
}

} // namespace kiln::eval
