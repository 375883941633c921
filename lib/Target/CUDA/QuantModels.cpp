// Elemental CUDA models of QuantizeLinear and DequantizeLinear (per tensor or
// per axis), matching the CPU evaluator: x / scale rounded to the input's
// float type, rint (half to even), + zero point, saturated; NaN gives 0.
#include "ElementalModels.h"

using namespace mlir;

namespace kiln::cuda {
namespace {

/// The index into scale / zero point for the element at |index|.
ElementIndex parameterIndex(ElementalEmitter &emitter, Value parameter,
                            ArrayRef<int64_t> shape, int64_t axis,
                            const ElementIndex &index) {
  ArrayRef<int64_t> scaleShape = indexedShapeOf(parameter);
  if (scaleShape.empty())
    return ElementIndex::fromDims({});
  if (elementCount(scaleShape) == 1)
    return ElementIndex::fromDims({"0"});
  int64_t a = normalizeAxis(axis, shape.size()).value_or(0);
  return ElementIndex::fromDims({emitter.dimOf(index, shape, a)});
}

FailureOr<std::string> emitQuantize(QuantizeLinearOp op,
                                    ElementalEmitter &emitter,
                                    const ElementIndex &index) {
  ArrayRef<int64_t> shape = indexedShapeOf(op.getInput());
  if (indexedShapeOf(op.getScale()).size() == 1 &&
      elementCount(indexedShapeOf(op.getScale())) != 1 &&
      !normalizeAxis(op.getAxis(), shape.size()))
    return emitter.error(op) << "has axis " << op.getAxis() << " out of range";
  ElementIndex at =
      parameterIndex(emitter, op.getScale(), shape, op.getAxis(), index);
  FailureOr<std::string> x = emitter.emit(op.getInput(), index);
  if (failed(x))
    return failure();
  FailureOr<std::string> scale = emitter.emit(op.getScale(), at);
  if (failed(scale))
    return failure();
  FailureOr<std::string> zero = emitter.emit(
      op.getZeroPoint(),
      parameterIndex(emitter, op.getZeroPoint(), shape, op.getAxis(), index));
  if (failed(zero))
    return failure();
  Type inType = elementTypeOf(op.getInput());
  std::string ratio = parenthesize(*x) + " / " + parenthesize(*scale);
  if (inType.isF16())
    ratio = "kiln_round_f16(" + ratio + ")";
  else if (inType.isBF16())
    ratio = "kiln_round_bf16(" + ratio + ")";
  std::string q = emitter.fresh("q");
  emitter.line("const double " + q + " = rint((double)(" + ratio +
               ")) + (double)" + parenthesize(*zero) + ";");
  bool isSigned =
      !ElementalEmitter::isUnsignedInteger(elementTypeOf(op.getOutput()));
  std::string low = isSigned ? "-128.0" : "0.0",
              high = isSigned ? "127.0" : "255.0";
  return "(" + q + " != " + q + " ? 0LL : (long long)fmin(fmax(" + q + ", " +
         low + "), " + high + "))";
}

FailureOr<std::string> emitDequantize(DequantizeLinearOp op,
                                      ElementalEmitter &emitter,
                                      const ElementIndex &index) {
  ArrayRef<int64_t> shape = indexedShapeOf(op.getInput());
  ElementIndex at =
      parameterIndex(emitter, op.getScale(), shape, op.getAxis(), index);
  FailureOr<std::string> x = emitter.emit(op.getInput(), index);
  if (failed(x))
    return failure();
  FailureOr<std::string> scale = emitter.emit(op.getScale(), at);
  if (failed(scale))
    return failure();
  FailureOr<std::string> zero = emitter.emit(
      op.getZeroPoint(),
      parameterIndex(emitter, op.getZeroPoint(), shape, op.getAxis(), index));
  if (failed(zero))
    return failure();
  std::string ctype =
      ElementalEmitter::computeType(elementTypeOf(op.getOutput()));
  return "(" + ctype + ")(" + *x + " - " + parenthesize(*zero) + ") * " +
         parenthesize(*scale);
}

} // namespace

void attachQuantModels(MLIRContext &context) {
  QuantizeLinearOp::attachInterface<
      FunctionModel<QuantizeLinearOp, emitQuantize>>(context);
  DequantizeLinearOp::attachInterface<
      FunctionModel<DequantizeLinearOp, emitDequantize>>(context);
}

} // namespace kiln::cuda
