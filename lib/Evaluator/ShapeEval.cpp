// Evaluation of ops that only change a tensor's shape or report it: Reshape,
// Unsqueeze, Squeeze, Flatten, Expand, Shape, and Constant.
#include "EvaluatorSupport.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "llvm/ADT/TypeSwitch.h"

#include <algorithm>

namespace kiln::eval {
namespace {

/// |input|'s elements (row-major order unchanged) under a new shape.
llvm::Expected<Tensor> withShape(mlir::Operation *op, const Tensor &input,
                                 llvm::ArrayRef<int64_t> shape) {
  llvm::Expected<Tensor> result = makeTensor(op, input.dtype(), shape);
  if (!result)
    return result.takeError();
  if (result->numElements() != input.numElements())
    return opError(op, "cannot view " + input.describe() + " as shape " +
                           formatShape(shape));
  if (input.isFloat())
    result->floats() = input.floats();
  else
    result->ints() = input.ints();
  return result;
}

llvm::Expected<Tensor> reshape(ReshapeOp op, llvm::ArrayRef<Tensor> operands) {
  const Tensor &data = operands[0];
  llvm::Expected<std::vector<int64_t>> requested =
      readIntegerList(op, operands[1], "shape");
  if (!requested)
    return requested.takeError();
  bool allowZero = op.getAllowzero();
  std::vector<int64_t> shape = *requested;
  std::optional<size_t> inferred;
  int64_t known = 1;
  for (size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] == -1) {
      if (inferred)
        return opError(op, "shape " + formatShape(*requested) +
                               " has more than one -1");
      inferred = i;
      continue;
    }
    if (shape[i] < -1)
      return opError(op, "shape " + formatShape(*requested) +
                             " has a negative dimension");
    if (shape[i] == 0 && !allowZero) {
      if (static_cast<int64_t>(i) >= data.rank())
        return opError(op, "shape " + formatShape(*requested) +
                               " copies dimension " + std::to_string(i) +
                               " (0) that " + data.describe() + " lacks");
      shape[i] = data.shape()[i];
    }
    known *= shape[i];
  }
  if (inferred) {
    if (known == 0 || data.numElements() % known != 0)
      return opError(op, "cannot infer the -1 in " + formatShape(*requested) +
                             " for " + data.describe());
    shape[*inferred] = data.numElements() / known;
  } else if (known != data.numElements()) {
    return opError(op, "cannot reshape " + data.describe() + " (" +
                           std::to_string(data.numElements()) +
                           " elements) to " + formatShape(shape));
  }
  return withShape(op, data, shape);
}

llvm::Expected<Tensor> unsqueeze(mlir::Operation *op,
                                 llvm::ArrayRef<Tensor> operands) {
  const Tensor &data = operands[0];
  llvm::Expected<std::vector<int64_t>> axes =
      readIntegerList(op, operands[1], "axes");
  if (!axes)
    return axes.takeError();
  int64_t rank = data.rank() + static_cast<int64_t>(axes->size());
  std::vector<bool> inserted(rank, false);
  for (int64_t axis : *axes) {
    llvm::Expected<int64_t> normalized = normalizeAxisOrError(op, axis, rank);
    if (!normalized)
      return normalized.takeError();
    if (inserted[*normalized])
      return opError(op, "axis " + std::to_string(axis) + " is listed twice");
    inserted[*normalized] = true;
  }
  std::vector<int64_t> shape;
  for (int64_t dim = 0, next = 0; dim < rank; ++dim)
    shape.push_back(inserted[dim] ? 1 : data.shape()[next++]);
  return withShape(op, data, shape);
}

llvm::Expected<Tensor> squeeze(mlir::Operation *op,
                               llvm::ArrayRef<Tensor> operands) {
  const Tensor &data = operands[0];
  std::vector<bool> removed(data.rank(), false);
  std::vector<int64_t> axes;
  if (operands.size() > 1) {
    llvm::Expected<std::vector<int64_t>> list =
        readIntegerList(op, operands[1], "axes");
    if (!list)
      return list.takeError();
    axes = std::move(*list);
  }
  for (int64_t axis : axes) {
    llvm::Expected<int64_t> normalized =
        normalizeAxisOrError(op, axis, data.rank());
    if (!normalized)
      return normalized.takeError();
    if (data.shape()[*normalized] != 1)
      return opError(op, "cannot squeeze axis " + std::to_string(axis) +
                             " of " + data.describe() + ": its size is not 1");
    removed[*normalized] = true;
  }
  if (axes.empty())
    for (int64_t dim = 0; dim < data.rank(); ++dim)
      removed[dim] = data.shape()[dim] == 1;
  std::vector<int64_t> shape;
  for (int64_t dim = 0; dim < data.rank(); ++dim)
    if (!removed[dim])
      shape.push_back(data.shape()[dim]);
  return withShape(op, data, shape);
}

llvm::Expected<Tensor> flatten(FlattenOp op, const Tensor &input) {
  int64_t axis = static_cast<int64_t>(op.getAxis());
  if (axis < -input.rank() || axis > input.rank())
    return opError(op, "axis " + std::to_string(axis) +
                           " is out of range for rank " +
                           std::to_string(input.rank()));
  if (axis < 0)
    axis += input.rank();
  int64_t outer = 1, inner = 1;
  for (int64_t dim = 0; dim < input.rank(); ++dim)
    (dim < axis ? outer : inner) *= input.shape()[dim];
  return withShape(op, input, {outer, inner});
}

llvm::Expected<Tensor> expand(mlir::Operation *op,
                              llvm::ArrayRef<Tensor> operands) {
  const Tensor &input = operands[0];
  llvm::Expected<std::vector<int64_t>> target =
      readIntegerList(op, operands[1], "shape");
  if (!target)
    return target.takeError();
  if (llvm::any_of(*target, [](int64_t dim) { return dim < 0; }))
    return opError(op, "shape " + formatShape(*target) +
                           " has a negative dimension");
  std::vector<llvm::ArrayRef<int64_t>> shapes = {input.shape(), *target};
  llvm::Expected<std::vector<int64_t>> shape =
      broadcastRuntimeShapes(op, shapes);
  if (!shape)
    return shape.takeError();
  llvm::Expected<Tensor> result = makeTensor(op, input.dtype(), *shape);
  if (!result)
    return result.takeError();
  std::vector<llvm::ArrayRef<int64_t>> inputShape = {input.shape()};
  BroadcastIterator it(*shape, inputShape);
  for (int64_t i = 0; i < result->numElements(); ++i, it.next()) {
    if (input.isFloat())
      result->floats()[i] = input.floats()[it.operandIndex(0)];
    else
      result->ints()[i] = input.ints()[it.operandIndex(0)];
  }
  return result;
}

Tensor shapeOf(ShapeOp op, const Tensor &data) {
  int64_t rank = data.rank();
  auto clampIndex = [rank](int64_t index) {
    if (index < 0)
      index += rank;
    return std::clamp<int64_t>(index, 0, rank);
  };
  int64_t start = clampIndex(static_cast<int64_t>(op.getStart()));
  int64_t end =
      op.getEnd() ? clampIndex(static_cast<int64_t>(*op.getEnd())) : rank;
  std::vector<int64_t> dims;
  for (int64_t dim = start; dim < end; ++dim)
    dims.push_back(data.shape()[dim]);
  int64_t count = static_cast<int64_t>(dims.size());
  return Tensor::fromInts(DType::I64, {count}, dims);
}

} // namespace

llvm::Expected<std::vector<Tensor>>
evaluateShapeOp(mlir::Operation *op, llvm::ArrayRef<Tensor> operands) {
  auto expectOperands = [&](size_t least, size_t most) -> llvm::Error {
    if (operands.size() < least || operands.size() > most)
      return opError(op,
                     "got " + std::to_string(operands.size()) + " operands");
    return llvm::Error::success();
  };
  using Result = llvm::Expected<Tensor>;
  Result result = llvm::TypeSwitch<mlir::Operation *, Result>(op)
                      .Case([&](ReshapeOp reshapeOp) -> Result {
                        if (llvm::Error error = expectOperands(2, 2))
                          return std::move(error);
                        return reshape(reshapeOp, operands);
                      })
                      .Case([&](UnsqueezeOp) -> Result {
                        if (llvm::Error error = expectOperands(2, 2))
                          return std::move(error);
                        return unsqueeze(op, operands);
                      })
                      .Case([&](SqueezeOp) -> Result {
                        if (llvm::Error error = expectOperands(1, 2))
                          return std::move(error);
                        return squeeze(op, operands);
                      })
                      .Case([&](FlattenOp flattenOp) -> Result {
                        if (llvm::Error error = expectOperands(1, 1))
                          return std::move(error);
                        return flatten(flattenOp, operands[0]);
                      })
                      .Case([&](ExpandOp) -> Result {
                        if (llvm::Error error = expectOperands(2, 2))
                          return std::move(error);
                        return expand(op, operands);
                      })
                      .Case([&](ShapeOp shapeOp) -> Result {
                        if (llvm::Error error = expectOperands(1, 1))
                          return std::move(error);
                        return shapeOf(shapeOp, operands[0]);
                      })
                      .Case([&](ConstantOp constantOp) -> Result {
                        Result value = tensorFromAttr(constantOp.getValue());
                        if (!value)
                          return opError(op, llvm::toString(value.takeError()));
                        return value;
                      })
                      .Default([&](mlir::Operation *) -> Result {
                        return opError(op, "is not a shape op");
                      });
  return singleResult(std::move(result));
}

} // namespace kiln::eval
