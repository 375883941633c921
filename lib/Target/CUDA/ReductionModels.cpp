// Elemental CUDA models of reductions and softmax outside a row_reduce
// template: a serial loop over the reduced dims per element (correct for any
// axes; the row_reduce template overrides the anchor with its parallel form).
#include "ElementalModels.h"

#include "kiln/Evaluator/ScalarSemantics.h"
#include "kiln/Evaluator/Tensor.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;

namespace kiln::cuda {

namespace {

enum class Combiner { Sum, Mean, Max, Min, Prod };

/// Which input dims |op| reduces; std::nullopt for a no-op reduction.
template <typename OpT>
FailureOr<std::optional<std::vector<bool>>>
reducedDims(OpT op, ElementalEmitter &emitter) {
  int64_t rank = indexedShapeOf(op.getData()).size();
  std::vector<bool> reduced(rank, false);
  SmallVector<int64_t> axes;
  if (op.getAxes()) {
    FailureOr<SmallVector<int64_t>> list =
        constantIntegers(emitter, op, 1, "axes");
    if (failed(list))
      return failure();
    axes = *list;
  }
  if (axes.empty()) {
    if (op.getNoopWithEmptyAxes())
      return std::optional<std::vector<bool>>();
    reduced.assign(rank, true);
    return std::optional<std::vector<bool>>(reduced);
  }
  for (int64_t axis : axes) {
    std::optional<int64_t> a = normalizeAxis(axis, rank);
    if (!a)
      return emitter.error(op) << "has axis " << axis << " out of range";
    reduced[*a] = true;
  }
  return std::optional<std::vector<bool>>(reduced);
}

std::string initialValue(Type type, Combiner combiner) {
  if (combiner == Combiner::Prod)
    return type.isF64() ? "1.0" : (type.isIntOrIndex() ? "1LL" : "1.0f");
  if (combiner == Combiner::Min) {
    if (!type.isIntOrIndex())
      return ElementalEmitter::floatLiteral(type, INFINITY);
    if (ElementalEmitter::isUnsignedInteger(type))
      return type.getIntOrFloatBitWidth() == 64
                 ? "(long long)~0ULL"
                 : ElementalEmitter::intLiteral(
                       int64_t((uint64_t(1) << type.getIntOrFloatBitWidth()) - 1));
    return ElementalEmitter::intLiteral(
        int64_t((uint64_t(1) << (type.getIntOrFloatBitWidth() - 1)) - 1));
  }
  if (combiner != Combiner::Max)
    return type.isF64() ? "0.0" : (type.isIntOrIndex() ? "0LL" : "0.0f");
  if (!type.isIntOrIndex())
    return ElementalEmitter::floatLiteral(type, -INFINITY);
  if (ElementalEmitter::isUnsignedInteger(type))
    return "0LL";
  return ElementalEmitter::intLiteral(
      -(int64_t(1) << (type.getIntOrFloatBitWidth() - 1)));
}

std::string combine(Type type, Combiner combiner, const std::string &acc,
                    const std::string &value) {
  bool isInt = type.isIntOrIndex();
  std::string u = ElementalEmitter::isUnsignedInteger(type) ? "true" : "false";
  if (combiner == Combiner::Max)
    return isInt ? "kiln_imax(" + acc + ", " + value + ", " + u + ")"
                 : "kiln_max(" + acc + ", " + value + ")";
  if (combiner == Combiner::Min)
    return isInt ? "kiln_imin(" + acc + ", " + value + ", " + u + ")"
                 : "kiln_min(" + acc + ", " + value + ")";
  if (combiner == Combiner::Prod)
    return isInt ? "kiln_imul(" + acc + ", " + value + ")" : acc + " * " + value;
  return isInt ? "kiln_iadd(" + acc + ", " + value + ")" : acc + " + " + value;
}

template <typename OpT>
FailureOr<std::string> emitReduce(OpT op, ElementalEmitter &emitter,
                                  const ElementIndex &index,
                                  Combiner combiner) {
  auto reducedOr = reducedDims(op, emitter);
  if (failed(reducedOr))
    return failure();
  if (!*reducedOr)
    return emitter.emit(op.getData(), index);
  const std::vector<bool> &reduced = **reducedOr;
  ArrayRef<int64_t> inShape = indexedShapeOf(op.getData());
  ArrayRef<int64_t> outShape = indexedShapeOf(op.getOutput());
  Type type = elementTypeOf(op.getData());
  SmallVector<std::string> out = emitter.dimsOf(index, outShape);

  std::string acc = emitter.fresh("acc");
  emitter.line(ElementalEmitter::computeType(type) + " " + acc + " = " +
               initialValue(type, combiner) + ";");
  SmallVector<std::string> dims;
  size_t next = 0;
  int64_t count = 1;
  unsigned loops = 0;
  for (size_t d = 0; d < inShape.size(); ++d) {
    if (!reduced[d]) {
      dims.push_back(out[next++]);
      continue;
    }
    if (op.getKeepdims())
      ++next;
    count *= inShape[d];
    std::string r = emitter.fresh("r");
    emitter.open("for (kiln_index_t " + r + " = 0; " + r + " < " +
                 std::to_string(inShape[d]) + "; ++" + r + ")");
    ++loops;
    dims.push_back(r);
  }
  FailureOr<std::string> value =
      emitter.emit(op.getData(), ElementIndex::fromDims(dims));
  if (failed(value))
    return failure();
  emitter.line(acc + " = " + combine(type, combiner, acc, *value) + ";");
  for (unsigned i = 0; i < loops; ++i)
    emitter.close();
  if (combiner != Combiner::Mean)
    return ElementalEmitter::wrapInteger(type, acc);
  if (type.isIntOrIndex())
    return ElementalEmitter::wrapInteger(
        type, "kiln_idiv(" + acc + ", " + std::to_string(count) + "LL, " +
                  (type.isUnsignedInteger(64) ? "true" : "false") + ")");
  return acc + " / " +
         ElementalEmitter::floatLiteral(type, static_cast<double>(count));
}

FailureOr<std::string> emitReduceSum(ReduceSumOp op, ElementalEmitter &emitter,
                                     const ElementIndex &index) {
  return emitReduce(op, emitter, index, Combiner::Sum);
}
FailureOr<std::string> emitReduceMean(ReduceMeanOp op,
                                      ElementalEmitter &emitter,
                                      const ElementIndex &index) {
  return emitReduce(op, emitter, index, Combiner::Mean);
}
FailureOr<std::string> emitReduceMax(ReduceMaxOp op, ElementalEmitter &emitter,
                                     const ElementIndex &index) {
  return emitReduce(op, emitter, index, Combiner::Max);
}

FailureOr<std::string> emitReduceMin(ReduceMinOp op, ElementalEmitter &emitter,
                                     const ElementIndex &index) {
  return emitReduce(op, emitter, index, Combiner::Min);
}
FailureOr<std::string> emitReduceProd(ReduceProdOp op,
                                      ElementalEmitter &emitter,
                                      const ElementIndex &index) {
  return emitReduce(op, emitter, index, Combiner::Prod);
}

/// Softmax at one element: max pass and sum-of-exp pass along the axis.
FailureOr<std::string> emitSoftmax(SoftmaxOp op, ElementalEmitter &emitter,
                                   const ElementIndex &index) {
  ArrayRef<int64_t> shape = indexedShapeOf(op.getInput());
  std::optional<int64_t> axis = normalizeAxis(op.getAxis(), shape.size());
  if (!axis)
    return emitter.error(op) << "has axis " << op.getAxis() << " out of range";
  Type type = elementTypeOf(op.getInput());
  std::string ctype = ElementalEmitter::computeType(type);
  SmallVector<std::string> dims = emitter.dimsOf(index, shape);
  std::string maxName = emitter.fresh("max"), sumName = emitter.fresh("sum");
  emitter.line(ctype + " " + maxName + " = " +
               ElementalEmitter::floatLiteral(type, -INFINITY) + ";");
  emitter.line(ctype + " " + sumName + " = " +
               ElementalEmitter::floatLiteral(type, 0.0) + ";");
  for (int pass = 0; pass < 2; ++pass) {
    std::string k = emitter.fresh("k");
    emitter.open("for (kiln_index_t " + k + " = 0; " + k + " < " +
                 std::to_string(shape[*axis]) + "; ++" + k + ")");
    SmallVector<std::string> at(dims);
    at[*axis] = k;
    FailureOr<std::string> x =
        emitter.emit(op.getInput(), ElementIndex::fromDims(at));
    if (failed(x))
      return failure();
    if (pass == 0)
      emitter.line(maxName + " = kiln_max(" + maxName + ", " + *x + ");");
    else
      emitter.line(sumName + " += kiln_exp(" + *x + " - " + maxName + ");");
    emitter.close();
  }
  FailureOr<std::string> x = emitter.emit(op.getInput(), index);
  if (failed(x))
    return failure();
  return "kiln_exp(" + *x + " - " + maxName + ") / " + sumName;
}

} // namespace

void attachReductionModels(MLIRContext &context) {
  ReduceSumOp::attachInterface<FunctionModel<ReduceSumOp, emitReduceSum>>(
      context);
  ReduceMeanOp::attachInterface<FunctionModel<ReduceMeanOp, emitReduceMean>>(
      context);
  ReduceMaxOp::attachInterface<FunctionModel<ReduceMaxOp, emitReduceMax>>(
      context);
  ReduceMinOp::attachInterface<FunctionModel<ReduceMinOp, emitReduceMin>>(
      context);
  ReduceProdOp::attachInterface<FunctionModel<ReduceProdOp, emitReduceProd>>(
      context);
  SoftmaxOp::attachInterface<FunctionModel<SoftmaxOp, emitSoftmax>>(context);
}

} // namespace kiln::cuda
