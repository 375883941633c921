// Elemental CUDA models of the math and logic ops (KilnMathOps.td): the CUDA
// templates of their scalar-table rows, with attribute parameters as literals.
#include "ElementalModels.h"

#include "kiln/Evaluator/ScalarSemantics.h"

using namespace mlir;

namespace kiln::cuda {
namespace {

/// Replaces $0..$9 (operands, then parameters) and $U in a table template.
std::string instantiateTemplate(StringRef pattern, ArrayRef<std::string> values,
                                bool isUnsigned) {
  std::string out;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '$' && i + 1 < pattern.size()) {
      char next = pattern[i + 1];
      if (next >= '0' && next <= '9' && size_t(next - '0') < values.size()) {
        out += values[next - '0'];
        ++i;
        continue;
      }
      if (next == 'U') {
        out += isUnsigned ? "true" : "false";
        ++i;
        continue;
      }
    }
    out += pattern[i];
  }
  return out;
}

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
  SmallVector<std::string> values;
  ArrayRef<int64_t> resultShape = shapeOf(op->getResult(0));
  for (Value operand : op->getOperands()) {
    FailureOr<std::string> value = emitter.emit(
        operand, emitter.broadcastIndex(index, resultShape, shapeOf(operand)));
    if (failed(value))
      return failure();
    values.push_back(*value);
  }
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
