// CPU evaluation of the movement ops: generators (Range, ConstantOfShape,
// EyeLike, Size, OneHot) and re-indexing (Pad, Tile, Trilu, DepthToSpace,
// SpaceToDepth, ReverseSequence); the index-driven ops are in
// MovementIndexEval.cpp.
#include "MovementEval.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/IR/ShapeUtils.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

namespace kiln::eval {
namespace {
using Result = llvm::Expected<Tensor>;

std::optional<DType> resultDType(mlir::Operation *op) {
  return dtypeFromMlir(mlir::getElementTypeOrSelf(op->getResult(0).getType()));
}

Result range(RangeOp op, llvm::ArrayRef<Tensor> operands) {
  for (const Tensor &t : operands)
    if (t.numElements() != 1)
      return opError(op, "start, limit and delta must be scalars");
  const Tensor &start = operands[0];
  int64_t count = 0;
  if (start.isFloat()) {
    double s = start.getDouble(0), l = operands[1].getDouble(0),
           d = operands[2].getDouble(0);
    if (d == 0)
      return opError(op, "delta is 0");
    count = std::max<int64_t>(int64_t(std::ceil((l - s) / d)), 0);
    Result result = makeTensor(op, start.dtype(), {count});
    if (!result)
      return result;
    for (int64_t i = 0; i < count; ++i)
      result->setDouble(i, s + double(i) * d);
    return result;
  }
  int64_t s = start.getInt(0), l = operands[1].getInt(0),
          d = operands[2].getInt(0);
  if (d == 0)
    return opError(op, "delta is 0");
  int64_t span = l - s;
  count = d > 0 ? (span > 0 ? (span + d - 1) / d : 0)
                : (span < 0 ? (-span + -d - 1) / -d : 0);
  Result result = makeTensor(op, start.dtype(), {count});
  if (!result)
    return result;
  for (int64_t i = 0; i < count; ++i)
    result->setInt(i, s + i * d);
  return result;
}

Result constantOfShape(ConstantOfShapeOp op, const Tensor &shapeTensor) {
  llvm::Expected<std::vector<int64_t>> shape =
      readIntegerList(op, shapeTensor, "shape");
  if (!shape)
    return shape.takeError();
  Result value = tensorFromAttr(op.getValue());
  if (!value)
    return opError(op, llvm::toString(value.takeError()));
  Result result = makeTensor(op, value->dtype(), *shape);
  if (!result)
    return result;
  for (int64_t i = 0; i < result->numElements(); ++i)
    copyValue(*result, i, *value, 0);
  return result;
}

Result eyeLike(EyeLikeOp op, const Tensor &input) {
  std::optional<DType> dtype = resultDType(op);
  if (!dtype || input.rank() != 2)
    return opError(op, "needs a 2-D input and a supported dtype");
  Result result = makeTensor(op, *dtype, input.shape());
  if (!result)
    return result;
  int64_t rows = input.shape()[0], cols = input.shape()[1];
  for (int64_t r = 0; r < rows; ++r) {
    int64_t c = r + op.getK();
    if (c >= 0 && c < cols)
      result->setInt(r * cols + c, 1);
  }
  return result;
}

Result oneHot(OneHotOp op, llvm::ArrayRef<Tensor> operands) {
  const Tensor &indices = operands[0], &depthTensor = operands[1],
               &values = operands[2];
  if (depthTensor.numElements() != 1 || values.numElements() != 2)
    return opError(op, "depth must be one value and values two");
  int64_t depth = int64_t(depthTensor.getDouble(0));
  if (depth < 1)
    return opError(op, "depth " + std::to_string(depth) + " is not positive");
  int64_t rank = indices.rank() + 1;
  llvm::Expected<int64_t> axis = normalizeAxisOrError(op, op.getAxis(), rank);
  if (!axis)
    return axis.takeError();
  std::vector<int64_t> shape(indices.shape().begin(), indices.shape().end());
  shape.insert(shape.begin() + *axis, depth);
  Result result = makeTensor(op, values.dtype(), shape);
  if (!result)
    return result;
  std::vector<int64_t> coords;
  for (int64_t i = 0; i < result->numElements(); ++i) {
    unravel(i, shape, coords);
    int64_t position = coords[*axis];
    coords.erase(coords.begin() + *axis);
    int64_t index = int64_t(indices.getDouble(ravel(coords, indices.shape())));
    if (index < 0)
      index += depth;
    copyValue(*result, i, values, index == position ? 1 : 0);
  }
  return result;
}

/// The source index along a dim of |size| for padded position |c| (already
/// shifted by the begin pad); -1 for the constant.
int64_t padSource(llvm::StringRef mode, int64_t c, int64_t size) {
  if (c >= 0 && c < size)
    return c;
  if (mode == "constant" || size == 0)
    return -1;
  if (mode == "edge")
    return c < 0 ? 0 : size - 1;
  if (mode == "wrap")
    return ((c % size) + size) % size;
  if (size == 1)
    return 0;
  int64_t period = 2 * (size - 1);
  c = std::abs(c) % period;
  return c >= size ? period - c : c;
}

Result pad(PadOp op, llvm::ArrayRef<Tensor> operands) {
  const Tensor &data = operands[0];
  llvm::Expected<std::vector<int64_t>> pads =
      readIntegerList(op, operands[1], "pads");
  if (!pads)
    return pads.takeError();
  size_t next = 2;
  const Tensor *value = op.getConstantValue() ? &operands[next++] : nullptr;
  std::vector<int64_t> axes;
  if (op.getAxes()) {
    llvm::Expected<std::vector<int64_t>> list =
        readIntegerList(op, operands[next], "axes");
    if (!list)
      return list.takeError();
    std::string problem;
    std::optional<llvm::SmallVector<int64_t>> distinct =
        normalizeDistinctAxes(*list, data.rank(), &problem);
    if (!distinct)
      return opError(op, problem);
    axes.assign(distinct->begin(), distinct->end());
  } else {
    for (int64_t i = 0; i < data.rank(); ++i)
      axes.push_back(i);
  }
  if (pads->size() != 2 * axes.size())
    return opError(op, "pads has " + std::to_string(pads->size()) +
                           " entries for " + std::to_string(axes.size()) +
                           " axes");
  std::vector<int64_t> begin(data.rank(), 0), shape(data.shape().begin(),
                                                    data.shape().end());
  for (size_t i = 0; i < axes.size(); ++i) {
    begin[axes[i]] = (*pads)[i];
    shape[axes[i]] += (*pads)[i] + (*pads)[i + axes.size()];
  }
  Result result = makeTensor(op, data.dtype(), shape);
  if (!result)
    return result;
  llvm::StringRef mode = op.getMode();
  if (mode != "constant" && data.numElements() == 0 &&
      result->numElements() > 0)
    return opError(op, "cannot pad an empty tensor in " + mode.str() + " mode");
  std::vector<int64_t> coords;
  for (int64_t i = 0; i < result->numElements(); ++i) {
    unravel(i, shape, coords);
    bool inside = true;
    for (int64_t d = 0; d < data.rank() && inside; ++d) {
      coords[d] = padSource(mode, coords[d] - begin[d], data.shape()[d]);
      inside = coords[d] >= 0;
    }
    if (inside)
      copyValue(*result, i, data, ravel(coords, data.shape()));
    else if (value && value->numElements() > 0)
      copyValue(*result, i, *value, 0);
  }
  return result;
}

Result tile(TileOp op, llvm::ArrayRef<Tensor> operands) {
  const Tensor &input = operands[0];
  llvm::Expected<std::vector<int64_t>> repeats =
      readIntegerList(op, operands[1], "repeats");
  if (!repeats)
    return repeats.takeError();
  if (int64_t(repeats->size()) != input.rank())
    return opError(op, "repeats has " + std::to_string(repeats->size()) +
                           " entries for " + input.describe());
  std::vector<int64_t> shape;
  for (int64_t d = 0; d < input.rank(); ++d) {
    if ((*repeats)[d] < 0)
      return opError(op, "repeats must not be negative");
    shape.push_back(input.shape()[d] * (*repeats)[d]);
  }
  Result result = makeTensor(op, input.dtype(), shape);
  if (!result)
    return result;
  std::vector<int64_t> coords;
  for (int64_t i = 0; i < result->numElements(); ++i) {
    unravel(i, shape, coords);
    for (int64_t d = 0; d < input.rank(); ++d)
      coords[d] %= input.shape()[d];
    copyValue(*result, i, input, ravel(coords, input.shape()));
  }
  return result;
}

Result trilu(TriluOp op, llvm::ArrayRef<Tensor> operands) {
  const Tensor &input = operands[0];
  int64_t k = 0;
  if (operands.size() > 1) {
    if (operands[1].numElements() != 1)
      return opError(op, "k must be a scalar");
    k = operands[1].getInt(0);
  }
  if (input.rank() < 2)
    return opError(op, "needs rank >= 2, got " + input.describe());
  Tensor result = input;
  int64_t rows = input.shape()[input.rank() - 2],
          cols = input.shape()[input.rank() - 1];
  for (int64_t i = 0; i < result.numElements(); ++i) {
    int64_t c = i % cols, r = (i / cols) % rows;
    bool keep = op.getUpper() ? c - r >= k : c - r <= k;
    if (!keep)
      result.setInt(i, 0);
  }
  return result;
}

/// DepthToSpace (DCR/CRD) and SpaceToDepth on NCHW.
Result rearrangeBlocks(mlir::Operation *op, const Tensor &input, int64_t b,
                       bool toSpace, bool crd) {
  if (input.rank() != 4 || b < 1)
    return opError(op, "needs a 4-D input and a positive blocksize");
  llvm::ArrayRef<int64_t> in = input.shape();
  std::vector<int64_t> shape =
      toSpace ? std::vector<int64_t>{in[0], in[1] / (b * b), in[2] * b, in[3] * b}
              : std::vector<int64_t>{in[0], in[1] * b * b, in[2] / b, in[3] / b};
  if ((toSpace && in[1] % (b * b)) || (!toSpace && (in[2] % b || in[3] % b)))
    return opError(op, "dims of " + input.describe() +
                           " are not divisible by the blocksize");
  Result result = makeTensor(op, input.dtype(), shape);
  if (!result)
    return result;
  std::vector<int64_t> o;
  for (int64_t i = 0; i < result->numElements(); ++i) {
    unravel(i, shape, o);
    std::vector<int64_t> s(4);
    if (toSpace) {
      int64_t bh = o[2] % b, bw = o[3] % b;
      s = {o[0], crd ? o[1] * b * b + bh * b + bw : (bh * b + bw) * shape[1] + o[1],
           o[2] / b, o[3] / b};
    } else {
      int64_t block = o[1] / in[1], c = o[1] % in[1];
      s = {o[0], c, o[2] * b + block / b, o[3] * b + block % b};
    }
    copyValue(*result, i, input, ravel(s, in));
  }
  return result;
}

Result reverseSequence(ReverseSequenceOp op, llvm::ArrayRef<Tensor> operands) {
  const Tensor &input = operands[0], &lens = operands[1];
  llvm::Expected<int64_t> batch =
      normalizeAxisOrError(op, op.getBatchAxis(), input.rank(), "batch_axis");
  if (!batch)
    return batch.takeError();
  llvm::Expected<int64_t> time =
      normalizeAxisOrError(op, op.getTimeAxis(), input.rank(), "time_axis");
  if (!time)
    return time.takeError();
  if (lens.numElements() != input.shape()[*batch])
    return opError(op, "sequence_lens has " +
                           std::to_string(lens.numElements()) +
                           " entries for a batch of " +
                           std::to_string(input.shape()[*batch]));
  Tensor result = input;
  std::vector<int64_t> coords;
  for (int64_t i = 0; i < result.numElements(); ++i) {
    unravel(i, input.shape(), coords);
    int64_t length = std::clamp<int64_t>(lens.getInt(coords[*batch]), 0,
                                         input.shape()[*time]);
    if (coords[*time] < length)
      coords[*time] = length - 1 - coords[*time];
    copyValue(result, i, input, ravel(coords, input.shape()));
  }
  return result;
}

} // namespace

llvm::Expected<std::vector<Tensor>>
evaluateMovement(mlir::Operation *op, llvm::ArrayRef<Tensor> operands) {
  std::optional<Result> result = evaluateMovementIndexOp(op, operands);
  if (!result)
    result.emplace(
        llvm::TypeSwitch<mlir::Operation *, Result>(op)
            .Case([&](RangeOp o) { return range(o, operands); })
            .Case([&](ConstantOfShapeOp o) {
              return constantOfShape(o, operands[0]);
            })
            .Case([&](EyeLikeOp o) { return eyeLike(o, operands[0]); })
            .Case([&](SizeOp o) -> Result {
              return Tensor::fromInts(DType::I64, {},
                                      {operands[0].numElements()});
            })
            .Case([&](OneHotOp o) { return oneHot(o, operands); })
            .Case([&](PadOp o) { return pad(o, operands); })
            .Case([&](TileOp o) { return tile(o, operands); })
            .Case([&](TriluOp o) { return trilu(o, operands); })
            .Case([&](DepthToSpaceOp o) {
              return rearrangeBlocks(o, operands[0], o.getBlocksize(), true,
                                     o.getMode() == "CRD");
            })
            .Case([&](SpaceToDepthOp o) {
              return rearrangeBlocks(o, operands[0], o.getBlocksize(), false,
                                     false);
            })
            .Case([&](ReverseSequenceOp o) {
              return reverseSequence(o, operands);
            })
            .Default([&](mlir::Operation *) -> Result {
              return opError(op, "is not a movement op");
            }));
  if (!*result)
    return result->takeError();
  std::vector<Tensor> results;
  results.push_back(std::move(**result));
  return results;
}

} // namespace kiln::eval
