// Type inference of kiln's matrix products, softmax and reductions.
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

using namespace mlir;
using namespace kiln;

namespace {
bool dimsConflict(int64_t a, int64_t b) {
  return !ShapedType::isDynamic(a) && !ShapedType::isDynamic(b) && a != b;
}
int64_t mergeDims(int64_t a, int64_t b) {
  return ShapedType::isDynamic(a) ? b : a;
}
} // namespace

LogicalResult MatMulOp::inferReturnTypes(MLIRContext *,
                                         std::optional<Location> location,
                                         Adaptor adaptor,
                                         SmallVectorImpl<Type> &inferred) {
  auto lhsType = cast<TensorType>(adaptor.getLhs().getType());
  auto rhsType = cast<TensorType>(adaptor.getRhs().getType());
  Type element = lhsType.getElementType();
  if (element != rhsType.getElementType())
    return emitOptionalError(location, "operands must have the same element type");
  if (!lhsType.hasRank() || !rhsType.hasRank()) {
    inferred.push_back(UnrankedTensorType::get(element));
    return success();
  }
  if (lhsType.getRank() == 0 || rhsType.getRank() == 0)
    return emitOptionalError(location, "operands must have rank >= 1");
  SmallVector<int64_t> lhs(lhsType.getShape()), rhs(rhsType.getShape());
  bool lhsVector = lhs.size() == 1, rhsVector = rhs.size() == 1;
  if (lhsVector)
    lhs.insert(lhs.begin(), 1);
  if (rhsVector)
    rhs.push_back(1);
  int64_t m = lhs[lhs.size() - 2], k = lhs.back();
  int64_t k2 = rhs[rhs.size() - 2], n = rhs.back();
  if (dimsConflict(k, k2))
    return emitOptionalError(location, "contraction dimensions differ: ", k,
                             " vs ", k2);
  std::optional<SmallVector<int64_t>> batch =
      broadcastShapes(ArrayRef<int64_t>(lhs).drop_back(2),
                      ArrayRef<int64_t>(rhs).drop_back(2));
  if (!batch)
    return emitOptionalError(location, "batch dimensions do not broadcast");
  SmallVector<int64_t> shape = *batch;
  if (!lhsVector)
    shape.push_back(m);
  if (!rhsVector)
    shape.push_back(n);
  inferred.push_back(RankedTensorType::get(shape, element));
  return success();
}

LogicalResult GemmOp::inferReturnTypes(MLIRContext *,
                                       std::optional<Location> location,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &inferred) {
  auto aType = cast<TensorType>(adaptor.getA().getType());
  auto bType = cast<TensorType>(adaptor.getB().getType());
  Type element = aType.getElementType();
  if (element != bType.getElementType())
    return emitOptionalError(location, "operands must have the same element type");
  if (!aType.hasRank() || !bType.hasRank()) {
    inferred.push_back(UnrankedTensorType::get(element));
    return success();
  }
  if (aType.getRank() != 2 || bType.getRank() != 2)
    return emitOptionalError(location, "a and b must be 2-D, got ", aType,
                             " and ", bType);
  bool transA = adaptor.getTransA(), transB = adaptor.getTransB();
  int64_t m = aType.getDimSize(transA ? 1 : 0), k = aType.getDimSize(transA ? 0 : 1);
  int64_t k2 = bType.getDimSize(transB ? 1 : 0), n = bType.getDimSize(transB ? 0 : 1);
  if (dimsConflict(k, k2))
    return emitOptionalError(location, "contraction dimensions differ: ", k,
                             " vs ", k2);
  SmallVector<int64_t> shape{m, n};
  if (Value c = adaptor.getC()) {
    auto cType = cast<TensorType>(c.getType());
    if (cType.getElementType() != element)
      return emitOptionalError(location, "c must have the element type of a");
    if (cType.hasRank()) {
      if (cType.getRank() > 2)
        return emitOptionalError(location, "c must have rank <= 2");
      std::optional<SmallVector<int64_t>> merged =
          broadcastShapes(shape, cType.getShape());
      if (!merged || merged->size() != 2 || dimsConflict((*merged)[0], m) ||
          dimsConflict((*merged)[1], n))
        return emitOptionalError(location, "c of type ", cType,
                                 " does not broadcast to the result");
      // c may only stretch to the result, so it never widens it; it can fix
      // dims that a and b leave dynamic only when c's dim is not 1.
      for (int i = 0; i < 2; ++i)
        if (ShapedType::isDynamic(shape[i]) && (*merged)[i] != 1)
          shape[i] = (*merged)[i];
    }
  }
  inferred.push_back(RankedTensorType::get(shape, element));
  return success();
}

LogicalResult SoftmaxOp::inferReturnTypes(MLIRContext *,
                                          std::optional<Location> location,
                                          Adaptor adaptor,
                                          SmallVectorImpl<Type> &inferred) {
  auto type = cast<TensorType>(adaptor.getInput().getType());
  if (type.hasRank() && !normalizeAxis(adaptor.getAxis(), type.getRank()))
    return emitOptionalError(location, "axis ", adaptor.getAxis(),
                             " is out of range for rank ", type.getRank());
  inferred.push_back(type);
  return success();
}

namespace {
template <typename ReduceAdaptor>
LogicalResult inferReduceType(std::optional<Location> location,
                              ReduceAdaptor adaptor,
                              SmallVectorImpl<Type> &inferred) {
  return inferReductionType(location, adaptor.getData(), adaptor.getAxes(),
                            adaptor.getKeepdims(),
                            adaptor.getNoopWithEmptyAxes(), inferred);
}
} // namespace

LogicalResult ReduceSumOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> location,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  return inferReduceType(location, adaptor, inferred);
}
LogicalResult ReduceMeanOp::inferReturnTypes(MLIRContext *,
                                             std::optional<Location> location,
                                             Adaptor adaptor,
                                             SmallVectorImpl<Type> &inferred) {
  return inferReduceType(location, adaptor, inferred);
}
LogicalResult ReduceMaxOp::inferReturnTypes(MLIRContext *,
                                            std::optional<Location> location,
                                            Adaptor adaptor,
                                            SmallVectorImpl<Type> &inferred) {
  return inferReduceType(location, adaptor, inferred);
}
