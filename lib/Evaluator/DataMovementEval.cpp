// Evaluation of ops that move elements: Transpose, Concat, Slice, Gather.
#include "EvaluatorSupport.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>

namespace kiln::eval {
namespace {

void copyElement(Tensor &to, int64_t toIndex, const Tensor &from,
                 int64_t fromIndex) {
  if (from.isFloat())
    to.floats()[toIndex] = from.floats()[fromIndex];
  else
    to.ints()[toIndex] = from.ints()[fromIndex];
}

/// Fills |result| row-major; the source element of each result element
/// starts at |base| and moves by |strides[d]| along result dim d.
void gatherStrided(Tensor &result, const Tensor &source, int64_t base,
                   llvm::ArrayRef<int64_t> strides) {
  llvm::ArrayRef<int64_t> shape = result.shape();
  std::vector<int64_t> counter(shape.size(), 0);
  int64_t offset = base;
  for (int64_t i = 0; i < result.numElements(); ++i) {
    copyElement(result, i, source, offset);
    for (int64_t dim = static_cast<int64_t>(shape.size()) - 1; dim >= 0;
         --dim) {
      if (++counter[dim] < shape[dim]) {
        offset += strides[dim];
        break;
      }
      counter[dim] = 0;
      offset -= strides[dim] * (shape[dim] - 1);
    }
  }
}

llvm::Expected<Tensor> transpose(TransposeOp op, const Tensor &input) {
  llvm::ArrayRef<int64_t> perm = op.getPerm();
  std::vector<bool> seen(input.rank(), false);
  bool valid = static_cast<int64_t>(perm.size()) == input.rank();
  for (int64_t p : perm) {
    if (!valid || p < 0 || p >= input.rank() || seen[p]) {
      valid = false;
      break;
    }
    seen[p] = true;
  }
  if (!valid)
    return opError(op, "perm " + formatShape(perm) +
                           " is not a permutation of the dims of " +
                           input.describe());
  std::vector<int64_t> shape, strides, inputStrides = input.strides();
  for (int64_t p : perm) {
    shape.push_back(input.shape()[p]);
    strides.push_back(inputStrides[p]);
  }
  llvm::Expected<Tensor> result = makeTensor(op, input.dtype(), shape);
  if (!result)
    return result.takeError();
  gatherStrided(*result, input, 0, strides);
  return result;
}

llvm::Expected<Tensor> concat(ConcatOp op, llvm::ArrayRef<Tensor> inputs) {
  if (inputs.empty())
    return opError(op, "has no inputs");
  const Tensor &first = inputs.front();
  llvm::Expected<int64_t> axis = normalizeAxisOrError(
      op, static_cast<int64_t>(op.getAxis()), first.rank());
  if (!axis)
    return axis.takeError();
  std::vector<int64_t> shape(first.shape().begin(), first.shape().end());
  shape[*axis] = 0;
  for (const Tensor &input : inputs) {
    bool compatible =
        input.dtype() == first.dtype() && input.rank() == first.rank();
    for (int64_t dim = 0; compatible && dim < first.rank(); ++dim)
      compatible = dim == *axis || input.shape()[dim] == first.shape()[dim];
    if (!compatible)
      return opError(op, "cannot join " + first.describe() + " and " +
                             input.describe() + " along axis " +
                             std::to_string(*axis));
    shape[*axis] += input.shape()[*axis];
  }
  llvm::Expected<Tensor> result = makeTensor(op, first.dtype(), shape);
  if (!result)
    return result.takeError();
  int64_t outer = 1, inner = 1;
  for (int64_t dim = 0; dim < first.rank(); ++dim)
    if (dim < *axis)
      outer *= shape[dim];
    else if (dim > *axis)
      inner *= shape[dim];
  int64_t out = 0;
  for (int64_t o = 0; o < outer; ++o)
    for (const Tensor &input : inputs) {
      int64_t block = input.shape()[*axis] * inner;
      for (int64_t i = 0; i < block; ++i)
        copyElement(*result, out++, input, o * block + i);
    }
  return result;
}

llvm::Expected<Tensor> slice(mlir::Operation *op,
                             llvm::ArrayRef<Tensor> operands) {
  const Tensor &data = operands[0];
  std::vector<int64_t> lists[4];
  const char *names[4] = {"starts", "ends", "axes", "steps"};
  for (int i = 0; i < 4; ++i) {
    llvm::Expected<std::vector<int64_t>> list =
        readIntegerList(op, operands[i + 1], names[i]);
    if (!list)
      return list.takeError();
    lists[i] = std::move(*list);
  }
  const auto &starts = lists[0], &ends = lists[1], &axes = lists[2],
             &steps = lists[3];
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size())
    return opError(op, "starts, ends, axes and steps have different lengths");

  std::vector<int64_t> begin(data.rank(), 0), step(data.rank(), 1);
  std::vector<int64_t> shape(data.shape().begin(), data.shape().end());
  std::vector<bool> seen(data.rank(), false);
  for (size_t i = 0; i < starts.size(); ++i) {
    llvm::Expected<int64_t> axis =
        normalizeAxisOrError(op, axes[i], data.rank());
    if (!axis)
      return axis.takeError();
    if (seen[*axis])
      return opError(op,
                     "axis " + std::to_string(axes[i]) + " is listed twice");
    seen[*axis] = true;
    if (steps[i] == 0)
      return opError(op, "step for axis " + std::to_string(axes[i]) + " is 0");
    int64_t dim = data.shape()[*axis];
    int64_t start = starts[i], end = ends[i];
    if (start < 0)
      start += dim;
    if (end < 0)
      end += dim;
    // Clamp as ONNX specifies, then count ceil(distance / |step|) without
    // overflowing for extreme steps.
    int64_t count = 0;
    if (dim == 0) {
      start = 0;
    } else if (steps[i] > 0) {
      start = std::clamp<int64_t>(start, 0, dim);
      end = std::clamp<int64_t>(end, 0, dim);
      if (end > start)
        count = (end - start - 1) / steps[i] + 1;
    } else {
      start = std::clamp<int64_t>(start, 0, dim - 1);
      end = std::clamp<int64_t>(end, -1, dim - 1);
      uint64_t magnitude = 0 - static_cast<uint64_t>(steps[i]);
      if (start > end)
        count = static_cast<int64_t>(uint64_t(start - end - 1) / magnitude) + 1;
    }
    begin[*axis] = start;
    step[*axis] = steps[i];
    shape[*axis] = count;
  }
  llvm::Expected<Tensor> result = makeTensor(op, data.dtype(), shape);
  if (!result)
    return result.takeError();
  std::vector<int64_t> strides = data.strides();
  int64_t base = 0;
  for (int64_t dim = 0; dim < data.rank(); ++dim) {
    base += begin[dim] * strides[dim];
    // A dim of one element never advances; skip the (possibly huge) step.
    strides[dim] = shape[dim] > 1 ? strides[dim] * step[dim] : 0;
  }
  if (result->numElements() > 0)
    gatherStrided(*result, data, base, strides);
  return result;
}

llvm::Expected<Tensor> gather(GatherOp op, const Tensor &data,
                              const Tensor &indices) {
  if (indices.isFloat() || indices.dtype() == DType::Bool)
    return opError(op, "indices must be integers, got " + indices.describe());
  llvm::Expected<int64_t> axis =
      normalizeAxisOrError(op, static_cast<int64_t>(op.getAxis()), data.rank());
  if (!axis)
    return axis.takeError();
  int64_t outer = 1, inner = 1, axisDim = data.shape()[*axis];
  std::vector<int64_t> shape(data.shape().begin(),
                             data.shape().begin() + *axis);
  shape.insert(shape.end(), indices.shape().begin(), indices.shape().end());
  for (int64_t dim = 0; dim < data.rank(); ++dim)
    if (dim < *axis)
      outer *= data.shape()[dim];
    else if (dim > *axis) {
      inner *= data.shape()[dim];
      shape.push_back(data.shape()[dim]);
    }
  llvm::Expected<Tensor> result = makeTensor(op, data.dtype(), shape);
  if (!result)
    return result.takeError();
  int64_t out = 0;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < indices.numElements(); ++j) {
      int64_t index = indices.ints()[j];
      if (index < -axisDim || index >= axisDim)
        return opError(op, "index " + std::to_string(index) +
                               " is out of range for axis " +
                               std::to_string(*axis) + " of " +
                               data.describe());
      if (index < 0)
        index += axisDim;
      for (int64_t i = 0; i < inner; ++i)
        copyElement(*result, out++, data, (o * axisDim + index) * inner + i);
    }
  return result;
}

} // namespace

llvm::Expected<std::vector<Tensor>>
evaluateDataMovement(mlir::Operation *op, llvm::ArrayRef<Tensor> operands) {
  using Result = llvm::Expected<Tensor>;
  auto wrongCount = [&]() -> Result {
    return opError(op, "got " + std::to_string(operands.size()) + " operands");
  };
  Result result = llvm::TypeSwitch<mlir::Operation *, Result>(op)
                      .Case([&](TransposeOp transposeOp) -> Result {
                        if (operands.size() != 1)
                          return wrongCount();
                        return transpose(transposeOp, operands[0]);
                      })
                      .Case([&](ConcatOp concatOp) -> Result {
                        return concat(concatOp, operands);
                      })
                      .Case([&](SliceOp) -> Result {
                        if (operands.size() != 5)
                          return wrongCount();
                        return slice(op, operands);
                      })
                      .Case([&](GatherOp gatherOp) -> Result {
                        if (operands.size() != 2)
                          return wrongCount();
                        return gather(gatherOp, operands[0], operands[1]);
                      })
                      .Default([&](mlir::Operation *) -> Result {
                        return opError(op, "is not a data movement op");
                      });
  return singleResult(std::move(result));
}

} // namespace kiln::eval
