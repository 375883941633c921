// Elemental CUDA models of the math and logic ops (KilnMathOps.td): the CUDA
// templates of their scalar-table rows, with attribute parameters as literals.
#include "ElementalModels.h"

#include "kiln/Evaluator/ScalarSemantics.h"

using namespace mlir;

namespace kiln::cuda {
namespace {

/// The row's template on the operands (broadcast to the result's index) and
/// the op's parameters as literals of the operands' computation type.
FailureOr<std::string> emitMathOp(Operation *op, ElementalEmitter &emitter,
                                  const ElementIndex &index) {
  std::optional<eval::ElementwiseKind> kind = eval::getElementwiseKind(op);
  if (!kind)
    return emitter.error(op) << "has no scalar-table row";
  const eval::ElementwiseSemantics &row = eval::getElementwiseSemantics(*kind);
  Type valueType = elementTypeOf(op->getOperand(0));
  std::optional<ComputeKind> compute = ElementalEmitter::computeKind(valueType);
  if (!compute)
    return emitter.error(op) << "has unsupported element type " << valueType;
  bool isFloat =
      *compute == ComputeKind::Float || *compute == ComputeKind::Double;
  const char *pattern = isFloat ? row.cudaFloat : row.cudaInt;
  if (!pattern)
    return emitter.error(op)
           << "is not defined on " << valueType << " operands";
  FailureOr<SmallVector<std::string>> operands =
      emitBroadcastOperands(op, emitter, index);
  if (failed(operands))
    return failure();
  SmallVector<std::string> values = std::move(*operands);
  for (double parameter : eval::getElementwiseParameters(op))
    values.push_back(ElementalEmitter::floatLiteral(valueType, parameter));
  std::string expression = instantiateTemplate(
      pattern, values, ElementalEmitter::isUnsignedInteger(valueType));
  Type resultType = elementTypeOf(op->getResult(0));
  if (*ElementalEmitter::computeKind(resultType) == ComputeKind::Int)
    expression = ElementalEmitter::wrapInteger(resultType, expression);
  return expression;
}

template <typename OpT>
struct MathModel
    : public ElementalOpInterface::ExternalModel<MathModel<OpT>, OpT> {
  FailureOr<std::string> emitElement(Operation *op, ElementalEmitter &emitter,
                                     const ElementIndex &index) const {
    return emitMathOp(op, emitter, index);
  }
};

template <typename... Ops> void attachMath(MLIRContext &context) {
  (Ops::template attachInterface<MathModel<Ops>>(context), ...);
}

} // namespace

void attachMathModels(MLIRContext &context) {
  attachMath<AcosOp, AcoshOp, AsinOp, AsinhOp, AtanOp, AtanhOp, CosOp, CoshOp,
             SinOp, SinhOp, TanOp, CeilOp, FloorOp, RoundOp, SignOp, IsNaNOp,
             IsInfOp, SoftplusOp, SoftsignOp, HardSwishOp, EluOp, SeluOp,
             CeluOp, LeakyReluOp, HardSigmoidOp, ThresholdedReluOp, ShrinkOp,
             MaxOp, MinOp, GreaterOrEqualOp, LessOrEqualOp, AndOp, OrOp, XorOp,
             PReluOp, ModOp, BitShiftOp, ClipOp>(context);
}

} // namespace kiln::cuda
