// Type inference of kiln's elementwise math and logic ops (KilnMathOps.td).
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

using namespace mlir;
using namespace kiln;

// Unary ops and activations keep the input's type.
#define KILN_SAME_TYPE_INFERENCE(OP)                                           \
  LogicalResult OP::inferReturnTypes(MLIRContext *, std::optional<Location>,   \
                                     Adaptor adaptor,                          \
                                     SmallVectorImpl<Type> &inferred) {        \
    inferred.push_back(adaptor.getInput().getType());                          \
    return success();                                                          \
  }
KILN_SAME_TYPE_INFERENCE(AcosOp)
KILN_SAME_TYPE_INFERENCE(AcoshOp)
KILN_SAME_TYPE_INFERENCE(AsinOp)
KILN_SAME_TYPE_INFERENCE(AsinhOp)
KILN_SAME_TYPE_INFERENCE(AtanOp)
KILN_SAME_TYPE_INFERENCE(AtanhOp)
KILN_SAME_TYPE_INFERENCE(CosOp)
KILN_SAME_TYPE_INFERENCE(CoshOp)
KILN_SAME_TYPE_INFERENCE(SinOp)
KILN_SAME_TYPE_INFERENCE(SinhOp)
KILN_SAME_TYPE_INFERENCE(TanOp)
KILN_SAME_TYPE_INFERENCE(CeilOp)
KILN_SAME_TYPE_INFERENCE(FloorOp)
KILN_SAME_TYPE_INFERENCE(RoundOp)
KILN_SAME_TYPE_INFERENCE(SignOp)
KILN_SAME_TYPE_INFERENCE(SoftplusOp)
KILN_SAME_TYPE_INFERENCE(SoftsignOp)
KILN_SAME_TYPE_INFERENCE(HardSwishOp)
KILN_SAME_TYPE_INFERENCE(EluOp)
KILN_SAME_TYPE_INFERENCE(SeluOp)
KILN_SAME_TYPE_INFERENCE(CeluOp)
KILN_SAME_TYPE_INFERENCE(LeakyReluOp)
KILN_SAME_TYPE_INFERENCE(HardSigmoidOp)
KILN_SAME_TYPE_INFERENCE(ThresholdedReluOp)
KILN_SAME_TYPE_INFERENCE(ShrinkOp)
#undef KILN_SAME_TYPE_INFERENCE

// Float tests give i1 of the input's shape.
#define KILN_PREDICATE_INFERENCE(OP)                                           \
  LogicalResult OP::inferReturnTypes(MLIRContext *context,                     \
                                     std::optional<Location>, Adaptor adaptor, \
                                     SmallVectorImpl<Type> &inferred) {        \
    inferred.push_back(cast<TensorType>(adaptor.getInput().getType())          \
                           .clone(IntegerType::get(context, 1)));              \
    return success();                                                          \
  }
KILN_PREDICATE_INFERENCE(IsNaNOp)
KILN_PREDICATE_INFERENCE(IsInfOp)
#undef KILN_PREDICATE_INFERENCE

// Binary ops broadcast; arithmetic keeps the element type, comparisons give i1.
#define KILN_BROADCAST_INFERENCE(OP, RESULT_ELEMENT)                           \
  LogicalResult OP::inferReturnTypes(                                          \
      MLIRContext *context, std::optional<Location> location, Adaptor adaptor, \
      SmallVectorImpl<Type> &inferred) {                                       \
    (void)context;                                                             \
    return inferSameElementBroadcast(location, adaptor.getOperands(), RESULT_ELEMENT,     \
                          inferred);                                           \
  }
KILN_BROADCAST_INFERENCE(MaxOp, Type())
KILN_BROADCAST_INFERENCE(MinOp, Type())
KILN_BROADCAST_INFERENCE(AndOp, Type())
KILN_BROADCAST_INFERENCE(OrOp, Type())
KILN_BROADCAST_INFERENCE(XorOp, Type())
KILN_BROADCAST_INFERENCE(PReluOp, Type())
KILN_BROADCAST_INFERENCE(ModOp, Type())
KILN_BROADCAST_INFERENCE(ClipOp, Type())
KILN_BROADCAST_INFERENCE(GreaterOrEqualOp, IntegerType::get(context, 1))
KILN_BROADCAST_INFERENCE(LessOrEqualOp, IntegerType::get(context, 1))
#undef KILN_BROADCAST_INFERENCE

LogicalResult BitShiftOp::inferReturnTypes(MLIRContext *,
                                           std::optional<Location> location,
                                           Adaptor adaptor,
                                           SmallVectorImpl<Type> &inferred) {
  StringRef direction = adaptor.getDirection();
  if (direction != "left" && direction != "right")
    return emitOptionalError(location,
                             "direction must be \"left\" or \"right\", got \"",
                             direction, "\"");
  return inferSameElementBroadcast(location, adaptor.getOperands(), Type(), inferred);
}
