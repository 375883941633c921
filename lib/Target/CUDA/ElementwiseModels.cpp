// Elemental CUDA models of the elementwise ops, instantiated from the CUDA
// templates of the scalar-semantics table, plus Cast and Pow.
#include "ElementalModels.h"

#include "kiln/Evaluator/ScalarSemantics.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;

namespace kiln::cuda {

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

/// The operands of |op| at the indices that broadcasting to the result reads.
FailureOr<SmallVector<std::string>> emitBroadcastOperands(Operation *op,
                                                 ElementalEmitter &emitter,
                                                 const ElementIndex &index) {
  SmallVector<std::string> values;
  Extents result = emitter.extentsOf(op->getResult(0));
  for (Value operand : op->getOperands()) {
    FailureOr<std::string> value = emitter.emit(
        operand,
        emitter.broadcastIndex(index, result, emitter.extentsOf(operand)));
    if (failed(value))
      return failure();
    values.push_back(*value);
  }
  return values;
}

/// The op's row template on its operands (broadcast to the result's index)
/// and its parameters as literals of the operands' computation type.
FailureOr<std::string> emitTableOp(Operation *op, ElementalEmitter &emitter,
                                   const ElementIndex &index) {
  std::optional<eval::ElementwiseKind> kind = eval::getElementwiseKind(op);
  if (!kind)
    return emitter.error(op) << "has no scalar-table row";
  const eval::ElementwiseSemantics &row = eval::getElementwiseSemantics(*kind);
  size_t firstValue = row.result == eval::ResultElement::SameAsValues ? 1 : 0;
  Type valueType = elementTypeOf(op->getOperand(firstValue));
  std::optional<ComputeKind> compute = ElementalEmitter::computeKind(valueType);
  if (!compute)
    return emitter.error(op) << "has unsupported element type " << valueType;
  bool isFloat =
      *compute == ComputeKind::Float || *compute == ComputeKind::Double;
  Type resultType = elementTypeOf(op->getResult(0));
  const char *pattern = isFloat ? row.cudaFloat : row.cudaInt;
  if (isFloat && row.cudaHalf && resultType.isF16())
    pattern = row.cudaHalf;
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
  if (*ElementalEmitter::computeKind(resultType) == ComputeKind::Int)
    expression = ElementalEmitter::wrapInteger(resultType, expression);
  return expression;
}

namespace {

FailureOr<std::string> emitCast(CastOp op, ElementalEmitter &emitter,
                                const ElementIndex &index) {
  Type from = elementTypeOf(op.getInput());
  Type to = elementTypeOf(op.getOutput());
  if (!ElementalEmitter::computeKind(from) ||
      !ElementalEmitter::computeKind(to))
    return emitter.error(op)
           << "casts between unsupported types " << from << " and " << to;
  FailureOr<std::string> value = emitter.emit(op.getInput(), index);
  if (failed(value))
    return failure();
  return castExpression(from, to, *value);
}

/// Whether |value| is a kiln.constant whose every element is 2 (float or
/// integer): the exponent of a square (x.pow(2) in RMSNorm and variances).
bool isConstantTwo(Value value) {
  auto constant = value.getDefiningOp<ConstantOp>();
  auto elements =
      constant ? dyn_cast<DenseElementsAttr>(constant.getValue()) : nullptr;
  if (!elements || !elements.isSplat())
    return false;
  if (auto floats = dyn_cast<FloatType>(elements.getElementType()))
    return elements.getSplatValue<APFloat>().isExactlyValue(2.0);
  if (elements.getElementType().isInteger())
    return elements.getSplatValue<APInt>() == 2;
  return false;
}

/// Pow: the result has the base's type; the exponent's may differ.
FailureOr<std::string> emitPow(PowOp op, ElementalEmitter &emitter,
                               const ElementIndex &index) {
  FailureOr<SmallVector<std::string>> operands =
      emitBroadcastOperands(op, emitter, index);
  if (failed(operands))
    return failure();
  Type baseType = elementTypeOf(op.getBase());
  Type exponentType = elementTypeOf(op.getExponent());
  std::optional<ComputeKind> base = ElementalEmitter::computeKind(baseType);
  std::optional<ComputeKind> exponent =
      ElementalEmitter::computeKind(exponentType);
  if (!base || !exponent)
    return emitter.error(op) << "has unsupported element types";
  auto isFloat = [](ComputeKind kind) {
    return kind == ComputeKind::Float || kind == ComputeKind::Double;
  };
  const std::string &b = (*operands)[0], &e = (*operands)[1];
  if (isFloat(*base) && isConstantTwo(op.getExponent()))
    return "kiln_square(" + b + ")";
  if (isFloat(*base))
    return "kiln_pow(" + b + ", (" + ElementalEmitter::computeType(baseType) +
           ")" + e + ")";
  if (isFloat(*exponent)) {
    // Integer base, float exponent: computed in double, then cast.
    Type f64 = Float64Type::get(op.getContext());
    return castExpression(f64, baseType,
                          "kiln_pow((double)" + b + ", (double)" + e + ")");
  }
  return ElementalEmitter::wrapInteger(
      baseType,
      "kiln_ipow(" + b + ", " + e + ", " +
          (ElementalEmitter::isUnsignedInteger(baseType) ? "true" : "false") +
          ")");
}

template <typename... Ops> void attachTable(MLIRContext &context) {
  (Ops::template attachInterface<TableModel<Ops>>(context), ...);
}

} // namespace

std::string castExpression(Type from, Type to, const std::string &input) {
  // f16/bf16 values are computed in float without rounding between fused
  // ops; a cast observes the value, so round it to its type first (a no-op
  // for loaded values).
  std::string value = input;
  if (from.isF16())
    value = "kiln_round_f16(" + input + ")";
  else if (from.isBF16())
    value = "kiln_round_bf16(" + input + ")";
  ComputeKind fromKind = *ElementalEmitter::computeKind(from);
  ComputeKind toKind = *ElementalEmitter::computeKind(to);
  bool fromFloat =
      fromKind == ComputeKind::Float || fromKind == ComputeKind::Double;
  if (toKind == ComputeKind::Bool)
    return "(" + value + " != 0)"; // NaN != 0 is true, as in the table.
  std::string toType = ElementalEmitter::computeType(to);
  if (fromKind == ComputeKind::Bool)
    return "(" + toType + ")" + value;
  bool fromU64 = from.isUnsignedInteger(64);
  if (toKind == ComputeKind::Float || toKind == ComputeKind::Double) {
    std::string wide = value;
    if (!fromFloat)
      wide = fromU64 ? "(unsigned long long)" + value : value;
    if (to.isF16() || to.isBF16()) {
      std::string function = to.isF16() ? "kiln_round_f16" : "kiln_round_bf16";
      // Integers go through double, as castIntToFloat does.
      return function + "(" + (fromFloat ? value : "(double)" + wide) + ")";
    }
    if (fromFloat &&
        (from == to || ((from.isF16() || from.isBF16()) && to.isF32())))
      return value; // f16/bf16 values are exact in float.
    return "(" + toType + ")" + wide;
  }
  // To an integer.
  if (!fromFloat)
    return ElementalEmitter::wrapInteger(to, value);
  if (to.isSignlessInteger(64) || to.isSignedInteger(64))
    return "kiln_f2i64(" + value + ")";
  if (to.isUnsignedInteger(64))
    return "kiln_f2u64(" + value + ")";
  auto integer = cast<IntegerType>(to);
  unsigned width = integer.getWidth();
  double low = integer.isUnsigned() ? 0.0 : -std::ldexp(1.0, width - 1);
  double high = integer.isUnsigned() ? std::ldexp(1.0, width) - 1
                                     : std::ldexp(1.0, width - 1) - 1;
  Type f64 = Float64Type::get(to.getContext());
  return "kiln_f2i(" + value + ", " + ElementalEmitter::floatLiteral(f64, low) +
         ", " + ElementalEmitter::floatLiteral(f64, high) + ")";
}

void attachElementwiseModels(MLIRContext &context) {
  attachTable<NegOp, AbsOp, ExpOp, LogOp, SqrtOp, ReciprocalOp, ReluOp,
              SigmoidOp, TanhOp, ErfOp, NotOp, IdentityOp, AddOp, SubOp, MulOp,
              DivOp, EqualOp, LessOp, GreaterOp, WhereOp, GeluOp>(context);
  CastOp::attachInterface<FunctionModel<CastOp, emitCast>>(context);
  PowOp::attachInterface<FunctionModel<PowOp, emitPow>>(context);
}

} // namespace kiln::cuda
