// Type inference of the index-driven movement ops: gather/scatter variants,
// top-k, resize and einsum (KilnMovementOps.td).
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/IR/MovementSemantics.h"

#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"

#include <cmath>

using namespace mlir;
using namespace kiln;

namespace {

LogicalResult checkReduction(std::optional<Location> location,
                             StringRef reduction) {
  if (reduction == "none" || reduction == "add" || reduction == "mul" ||
      reduction == "max" || reduction == "min")
    return success();
  return emitOptionalError(location, "unknown reduction '", reduction, "'");
}
} // namespace

LogicalResult GatherElementsOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  auto data = tensorOf(adaptor.getData());
  auto indices = tensorOf(adaptor.getIndices());
  if (data.hasRank() && indices.hasRank()) {
    if (data.getRank() != indices.getRank())
      return emitOptionalError(location, "data and indices must have one rank");
    if (!normalizeAxis(adaptor.getAxis(), data.getRank()))
      return emitOptionalError(location, "axis ", adaptor.getAxis(),
                               " is out of range for rank ", data.getRank());
  }
  if (!indices.hasRank()) {
    inferred.push_back(UnrankedTensorType::get(data.getElementType()));
    return success();
  }
  inferred.push_back(
      RankedTensorType::get(indices.getShape(), data.getElementType()));
  return success();
}

LogicalResult GatherNDOp::inferReturnTypes(MLIRContext *,
                                           std::optional<Location> location,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &inferred) {
  auto data = tensorOf(adaptor.getData());
  auto indices = tensorOf(adaptor.getIndices());
  Type element = data.getElementType();
  int64_t batch = adaptor.getBatchDims();
  // ONNX requires indices of rank >= 1: the last dim is the index tuple.
  if (indices.hasRank() && indices.getRank() == 0)
    return emitOptionalError(location, "indices must have rank 1 or more");
  if (!data.hasRank() || !indices.hasRank() ||
      indices.isDynamicDim(indices.getRank() - 1)) {
    inferred.push_back(UnrankedTensorType::get(element));
    return success();
  }
  int64_t m = indices.getShape().back();
  if (batch < 0 || batch >= indices.getRank() || batch >= data.getRank() ||
      m < 1 || batch + m > data.getRank())
    return emitOptionalError(location, "indices of shape [..., ", m,
                             "] with batch_dims ", batch,
                             " do not address data of rank ", data.getRank());
  SmallVector<int64_t> shape(indices.getShape().drop_back());
  llvm::append_range(shape, data.getShape().drop_front(batch + m));
  inferred.push_back(RankedTensorType::get(shape, element));
  return success();
}

LogicalResult ScatterElementsOp::inferReturnTypes(
    MLIRContext *, std::optional<Location> location, Adaptor adaptor,
    SmallVectorImpl<Type> &inferred) {
  auto data = tensorOf(adaptor.getData());
  if (failed(checkReduction(location, adaptor.getReduction())))
    return failure();
  if (tensorOf(adaptor.getUpdates()).getElementType() != data.getElementType())
    return emitOptionalError(location, "updates must have data's element type");
  if (data.hasRank() && !normalizeAxis(adaptor.getAxis(), data.getRank()))
    return emitOptionalError(location, "axis ", adaptor.getAxis(),
                             " is out of range for rank ", data.getRank());
  inferred.push_back(data);
  return success();
}

LogicalResult ScatterNDOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> location,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  auto data = tensorOf(adaptor.getData());
  if (failed(checkReduction(location, adaptor.getReduction())))
    return failure();
  auto updates = tensorOf(adaptor.getUpdates());
  if (updates.getElementType() != data.getElementType())
    return emitOptionalError(location, "updates must have data's element type");
  // ONNX: indices [..., m] with 1 <= m <= rank(data); updates of shape
  // indices.shape[:-1] + data.shape[m:].
  auto indices = tensorOf(adaptor.getIndices());
  if (indices.hasRank() && indices.getRank() == 0)
    return emitOptionalError(location, "indices must have rank 1 or more");
  if (indices.hasRank() && data.hasRank() &&
      !indices.isDynamicDim(indices.getRank() - 1)) {
    int64_t m = indices.getShape().back();
    if (m < 1 || m > data.getRank())
      return emitOptionalError(location, "the last dimension of indices (", m,
                               ") must be between 1 and the rank of data (",
                               data.getRank(), ")");
    if (updates.hasRank()) {
      SmallVector<int64_t> expected(indices.getShape().drop_back());
      llvm::append_range(expected, data.getShape().drop_front(m));
      if (failed(verifyCompatibleShape(updates.getShape(), expected)))
        return emitOptionalError(location,
                                 "updates must have shape indices.shape[:-1] + "
                                 "data.shape[",
                                 m, ":], got rank ", updates.getRank());
    }
  }
  inferred.push_back(data);
  return success();
}

LogicalResult TopKOp::inferReturnTypes(MLIRContext *context,
                                       std::optional<Location> location,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &inferred) {
  auto type = tensorOf(adaptor.getInput());
  Type i64 = IntegerType::get(context, 64);
  if (!type.hasRank()) {
    inferred.push_back(UnrankedTensorType::get(i64));
    return success();
  }
  std::optional<int64_t> axis = normalizeAxis(adaptor.getAxis(), type.getRank());
  if (!axis)
    return emitOptionalError(location, "axis ", adaptor.getAxis(),
                             " is out of range for rank ", type.getRank());
  SmallVector<int64_t> shape(type.getShape());
  shape[*axis] = ShapedType::kDynamic;
  if (auto k = getConstantIntegers(adaptor.getK())) {
    if (k->size() != 1 || (*k)[0] < 0)
      return emitOptionalError(location, "k must be one non-negative value");
    int64_t dim = type.getDimSize(*axis);
    if (!ShapedType::isDynamic(dim) && (*k)[0] > dim)
      return emitOptionalError(location, "k = ", (*k)[0],
                               " exceeds the axis length ", dim);
    shape[*axis] = (*k)[0];
  }
  inferred.push_back(RankedTensorType::get(shape, i64));
  return success();
}

LogicalResult ResizeOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> location,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  auto type = tensorOf(adaptor.getInput());
  Type element = type.getElementType();
  if (!isSupportedResizeMode(adaptor.getMode()))
    return emitOptionalError(location, "unsupported resize mode '",
                             adaptor.getMode(), "'");
  if (!isSupportedCoordinateMode(adaptor.getCoordinateTransformationMode()))
    return emitOptionalError(location,
                             "unsupported coordinate_transformation_mode '",
                             adaptor.getCoordinateTransformationMode(), "'");
  if (!isSupportedNearestMode(adaptor.getNearestMode()))
    return emitOptionalError(location, "unsupported nearest_mode '",
                             adaptor.getNearestMode(), "'");
  if (bool(adaptor.getScales()) == bool(adaptor.getSizes()))
    return emitOptionalError(location,
                             "exactly one of scales and sizes must be given");
  if (!type.hasRank()) {
    inferred.push_back(UnrankedTensorType::get(element));
    return success();
  }
  int64_t rank = type.getRank();
  SmallVector<int64_t> shape(rank, ShapedType::kDynamic);
  if (Value sizes = adaptor.getSizes()) {
    if (auto values = getPartialIntegers(sizes)) {
      if (int64_t(values->size()) != rank)
        return emitOptionalError(location, "sizes has ", values->size(),
                                 " entries for rank ", rank);
      shape.assign(values->begin(), values->end());
    }
  } else {
    DenseElementsAttr attr;
    if (matchPattern(adaptor.getScales(), m_Constant(&attr))) {
      SmallVector<double> scales;
      for (APFloat v : attr.getValues<APFloat>())
        scales.push_back(v.convertToDouble());
      if (int64_t(scales.size()) != rank)
        return emitOptionalError(location, "scales has ", scales.size(),
                                 " entries for rank ", rank);
      for (int64_t i = 0; i < rank; ++i) {
        if (scales[i] <= 0)
          return emitOptionalError(location, "scales must be positive");
        if (!type.isDynamicDim(i))
          shape[i] = int64_t(std::floor(double(type.getDimSize(i)) *
                                        double(float(scales[i]))));
      }
    }
  }
  inferred.push_back(RankedTensorType::get(shape, element));
  return success();
}

LogicalResult EinsumOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> location,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  ValueRange inputs = adaptor.getInputs();
  if (inputs.empty())
    return emitOptionalError(location, "needs at least one input");
  Type element = tensorOf(inputs.front()).getElementType();
  SmallVector<int64_t> ranks;
  SmallVector<ArrayRef<int64_t>> shapes;
  for (Value input : inputs) {
    auto type = tensorOf(input);
    if (type.getElementType() != element)
      return emitOptionalError(location, "inputs must share one element type");
    if (!type.hasRank()) {
      inferred.push_back(UnrankedTensorType::get(element));
      return success();
    }
    ranks.push_back(type.getRank());
    shapes.push_back(type.getShape());
  }
  std::string error;
  std::optional<EinsumSpec> spec =
      parseEinsum(adaptor.getEquation(), ranks, error);
  if (!spec)
    return emitOptionalError(location, "equation '", adaptor.getEquation(),
                             "': ", error);
  auto sizes = einsumLabelSizes(*spec, shapes, error);
  if (!sizes)
    return emitOptionalError(location, error);
  SmallVector<int64_t> shape;
  for (int label : spec->output)
    shape.push_back((*sizes)[label] < 0 ? ShapedType::kDynamic
                                        : (*sizes)[label]);
  inferred.push_back(RankedTensorType::get(shape, element));
  return success();
}
