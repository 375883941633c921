// Type inference and folds of kiln's elementwise operations.
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

using namespace mlir;
using namespace kiln;

namespace {

/// The NumPy broadcast of the operand types, or an error at |location|.
FailureOr<Type> inferBroadcastType(std::optional<Location> location,
                                   ValueRange operands, Type elementType) {
  std::optional<SmallVector<int64_t>> shape = SmallVector<int64_t>{};
  for (Value operand : operands) {
    auto type = cast<TensorType>(operand.getType());
    if (!type.hasRank())
      return Type(UnrankedTensorType::get(elementType));
    shape = broadcastShapes(*shape, type.getShape());
    if (!shape) {
      std::string text;
      llvm::raw_string_ostream os(text);
      llvm::interleave(operands.getTypes(), os, ", ");
      return emitOptionalError(location,
                               "operand shapes do not broadcast: ", os.str());
    }
  }
  return Type(RankedTensorType::get(*shape, elementType));
}

/// The same shape as |input| with element type |elementType|.
Type withElementType(Type input, Type elementType) {
  return cast<TensorType>(input).clone(elementType);
}

} // namespace

LogicalResult kiln::inferSameElementBroadcast(std::optional<Location> location,
                                              ValueRange operands,
                                              Type resultElement,
                                              SmallVectorImpl<Type> &inferred) {
  Type first = getElementTypeOrSelf(operands.front().getType());
  for (Value operand : operands.drop_front())
    if (getElementTypeOrSelf(operand.getType()) != first)
      return emitOptionalError(location,
                               "operands must have the same element type, got ",
                               operands.front().getType(), " and ",
                               operand.getType());
  FailureOr<Type> type =
      inferBroadcastType(location, operands, resultElement ? resultElement : first);
  if (failed(type))
    return failure();
  inferred.push_back(*type);
  return success();
}


// Unary ops keep the input's type.
#define KILN_SAME_TYPE_INFERENCE(OP)                                           \
  LogicalResult OP::inferReturnTypes(MLIRContext *, std::optional<Location>,  \
                                     Adaptor adaptor,                          \
                                     SmallVectorImpl<Type> &inferred) {        \
    inferred.push_back(adaptor.getInput().getType());                         \
    return success();                                                          \
  }
KILN_SAME_TYPE_INFERENCE(NegOp)
KILN_SAME_TYPE_INFERENCE(AbsOp)
KILN_SAME_TYPE_INFERENCE(ExpOp)
KILN_SAME_TYPE_INFERENCE(LogOp)
KILN_SAME_TYPE_INFERENCE(SqrtOp)
KILN_SAME_TYPE_INFERENCE(ReciprocalOp)
KILN_SAME_TYPE_INFERENCE(ReluOp)
KILN_SAME_TYPE_INFERENCE(SigmoidOp)
KILN_SAME_TYPE_INFERENCE(TanhOp)
KILN_SAME_TYPE_INFERENCE(ErfOp)
KILN_SAME_TYPE_INFERENCE(NotOp)
KILN_SAME_TYPE_INFERENCE(IdentityOp)
#undef KILN_SAME_TYPE_INFERENCE

// Binary ops broadcast; arithmetic keeps the element type, comparisons give i1.
#define KILN_BROADCAST_INFERENCE(OP, RESULT_ELEMENT)                           \
  LogicalResult OP::inferReturnTypes(MLIRContext *context,                     \
                                     std::optional<Location> location,         \
                                     Adaptor adaptor,                          \
                                     SmallVectorImpl<Type> &inferred) {        \
    (void)context;                                                             \
    return inferSameElementBroadcast(location, adaptor.getOperands(),          \
                                     RESULT_ELEMENT, inferred);                \
  }
KILN_BROADCAST_INFERENCE(AddOp, Type())
KILN_BROADCAST_INFERENCE(SubOp, Type())
KILN_BROADCAST_INFERENCE(MulOp, Type())
KILN_BROADCAST_INFERENCE(DivOp, Type())
KILN_BROADCAST_INFERENCE(EqualOp, IntegerType::get(context, 1))
KILN_BROADCAST_INFERENCE(LessOp, IntegerType::get(context, 1))
KILN_BROADCAST_INFERENCE(GreaterOp, IntegerType::get(context, 1))
#undef KILN_BROADCAST_INFERENCE

LogicalResult PowOp::inferReturnTypes(MLIRContext *,
                                      std::optional<Location> location,
                                      Adaptor adaptor,
                                      SmallVectorImpl<Type> &inferred) {
  FailureOr<Type> type =
      inferBroadcastType(location, adaptor.getOperands(),
                         getElementTypeOrSelf(adaptor.getBase().getType()));
  if (failed(type))
    return failure();
  inferred.push_back(*type);
  return success();
}

LogicalResult WhereOp::inferReturnTypes(MLIRContext *,
                                        std::optional<Location> location,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &inferred) {
  Type element = getElementTypeOrSelf(adaptor.getX().getType());
  if (element != getElementTypeOrSelf(adaptor.getY().getType()))
    return emitOptionalError(location, "x and y must have the same element type");
  FailureOr<Type> type =
      inferBroadcastType(location, adaptor.getOperands(), element);
  if (failed(type))
    return failure();
  inferred.push_back(*type);
  return success();
}

LogicalResult CastOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                                       Adaptor adaptor,
                                       SmallVectorImpl<Type> &inferred) {
  inferred.push_back(
      withElementType(adaptor.getInput().getType(), adaptor.getTo()));
  return success();
}

// identity(x) -> x
OpFoldResult IdentityOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return {};
}

// cast(x : T) to T -> x
OpFoldResult CastOp::fold(FoldAdaptor) {
  if (getInput().getType() == getType())
    return getInput();
  return {};
}
