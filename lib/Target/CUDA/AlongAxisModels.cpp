// Elemental CUDA models of reduce_log_sum_exp, arg_max/arg_min, log_softmax,
// hardmax and cumsum: serial loops over the reduced or scanned axes per
// result element (correct for any shape). Last-axis log_softmax usually
// anchors a row_reduce kernel instead (RowReduceEmitter.cpp); these forms
// serve every other case.
#include "SerialLoops.h"

#include <cmath>

using namespace mlir;

namespace kiln::cuda {
namespace {

/// log(sum(e^x)) over the reduced dims: max pass, then sum of e^(x - max).
FailureOr<std::string> emitReduceLogSumExp(ReduceLogSumExpOp op,
                                           ElementalEmitter &emitter,
                                           const ElementIndex &index) {
  ArrayRef<int64_t> inShape = indexedShapeOf(op.getData());
  Type type = elementTypeOf(op.getData());
  if (type.isIntOrIndex())
    return emitter.error(op) << "needs a float type";
  int64_t rank = inShape.size();
  std::vector<bool> reduced(rank, false);
  SmallVector<int64_t> axes;
  if (op.getAxes()) {
    FailureOr<SmallVector<int64_t>> list =
        constantIntegers(emitter, op, 1, "axes");
    if (failed(list))
      return failure();
    axes = *list;
  }
  if (axes.empty() && op.getNoopWithEmptyAxes())
    return emitter.emit(op.getData(), index);
  if (axes.empty())
    reduced.assign(rank, true);
  for (int64_t axis : axes) {
    FailureOr<int64_t> a = axisOf(emitter, op, axis, rank);
    if (failed(a))
      return failure();
    reduced[*a] = true;
  }
  SmallVector<std::string> out =
      emitter.dimsOf(index, indexedShapeOf(op.getOutput()));
  std::string ctype = ElementalEmitter::computeType(type);
  std::string maxName = emitter.fresh("max"), sumName = emitter.fresh("sum");
  emitter.line(ctype + " " + maxName + " = " +
               ElementalEmitter::floatLiteral(type, -INFINITY) + ";");
  emitter.line(ctype + " " + sumName + " = " +
               ElementalEmitter::floatLiteral(type, 0.0) + ";");
  for (int pass = 0; pass < 2; ++pass) {
    SmallVector<std::string> dims;
    size_t next = 0;
    unsigned loops = 0;
    for (int64_t d = 0; d < rank; ++d) {
      if (!reduced[d]) {
        dims.push_back(out[next++]);
        continue;
      }
      if (op.getKeepdims())
        ++next;
      std::string r = emitter.fresh("r");
      emitter.open(loopHeader(r, "0", std::to_string(inShape[d])));
      ++loops;
      dims.push_back(r);
    }
    FailureOr<std::string> x =
        emitter.emit(op.getData(), ElementIndex::fromDims(dims));
    if (failed(x))
      return failure();
    if (pass == 0)
      emitter.line(maxName + " = kiln_max(" + maxName + ", " + *x + ");");
    else
      emitter.line("if (" + *x + " != " +
                   ElementalEmitter::floatLiteral(type, -INFINITY) + ") " +
                   sumName + " += kiln_exp(" + *x + " - " + maxName + ");");
    closeLoops(emitter, loops);
  }
  return "(" + sumName + " == " + ElementalEmitter::floatLiteral(type, 0.0) +
         " ? " + ElementalEmitter::floatLiteral(type, -INFINITY) + " : " +
         maxName + " + kiln_log(" + sumName + "))";
}

/// Index of the first (or last) maximum/minimum along the axis; NaN ranks
/// above every number, as in the CPU evaluator.
template <typename OpT, bool isMax>
FailureOr<std::string> emitArgReduce(OpT op, ElementalEmitter &emitter,
                                     const ElementIndex &index) {
  ArrayRef<int64_t> inShape = indexedShapeOf(op.getData());
  FailureOr<int64_t> axis = axisOf(emitter, op, op.getAxis(), inShape.size());
  if (failed(axis))
    return failure();
  Type type = elementTypeOf(op.getData());
  SmallVector<std::string> out =
      emitter.dimsOf(index, indexedShapeOf(op.getOutput()));
  SmallVector<std::string> dims;
  size_t next = 0;
  for (size_t d = 0; d < inShape.size(); ++d) {
    if (int64_t(d) == *axis) {
      dims.push_back("0");
      if (op.getKeepdims())
        ++next;
      continue;
    }
    dims.push_back(out[next++]);
  }
  std::string best = emitter.fresh("best"), bestIndex = emitter.fresh("arg");
  FailureOr<std::string> first =
      emitter.emit(op.getData(), ElementIndex::fromDims(dims));
  if (failed(first))
    return failure();
  std::string ctype = ElementalEmitter::computeType(type);
  emitter.line(ctype + " " + best + " = " + *first + ";");
  emitter.line("long long " + bestIndex + " = 0;");
  std::string k = emitter.fresh("k");
  emitter.open(loopHeader(k, "1", std::to_string(inShape[*axis])));
  dims[*axis] = k;
  FailureOr<std::string> x =
      emitter.emit(op.getData(), ElementIndex::fromDims(dims));
  if (failed(x))
    return failure();
  std::string v = emitter.materialize(type, *x);
  std::string better, same;
  if (type.isIntOrIndex()) {
    std::string u =
        ElementalEmitter::isUnsignedInteger(type) ? "true" : "false";
    better = isMax ? "kiln_iless(" + best + ", " + v + ", " + u + ")"
                   : "kiln_iless(" + v + ", " + best + ", " + u + ")";
    same = v + " == " + best;
  } else {
    better = "(" + best + " == " + best + " && (" + v + " != " + v + " || " +
             v + (isMax ? " > " : " < ") + best + "))";
    same = "(" + v + " == " + best + " || (" + v + " != " + v + " && " + best +
           " != " + best + "))";
  }
  std::string condition =
      op.getSelectLastIndex() ? better + " || " + same : better;
  emitter.open("if (" + condition + ")");
  emitter.line(best + " = " + v + ";");
  emitter.line(bestIndex + " = " + k + ";");
  emitter.close();
  emitter.close();
  return bestIndex;
}

FailureOr<std::string> emitArgMax(ArgMaxOp op, ElementalEmitter &emitter,
                                  const ElementIndex &index) {
  return emitArgReduce<ArgMaxOp, true>(op, emitter, index);
}
FailureOr<std::string> emitArgMin(ArgMinOp op, ElementalEmitter &emitter,
                                  const ElementIndex &index) {
  return emitArgReduce<ArgMinOp, false>(op, emitter, index);
}

/// log_softmax (|hard| false) or hardmax (|hard| true) at one element.
FailureOr<std::string> emitAlongAxis(Operation *op, Value input,
                                     int64_t axisAttr, bool hard,
                                     ElementalEmitter &emitter,
                                     const ElementIndex &index) {
  ArrayRef<int64_t> shape = indexedShapeOf(input);
  FailureOr<int64_t> axis = axisOf(emitter, op, axisAttr, shape.size());
  if (failed(axis))
    return failure();
  Type type = elementTypeOf(input);
  std::string ctype = ElementalEmitter::computeType(type);
  SmallVector<std::string> dims = emitter.dimsOf(index, shape);
  std::string maxName = emitter.fresh("max"), argName = emitter.fresh("arg");
  std::string sumName = emitter.fresh("sum");
  emitter.line(ctype + " " + maxName + " = " +
               ElementalEmitter::floatLiteral(type, -INFINITY) + ";");
  emitter.line("kiln_index_t " + argName + " = 0;");
  emitter.line(ctype + " " + sumName + " = " +
               ElementalEmitter::floatLiteral(type, 0.0) + ";");
  for (int pass = 0; pass < (hard ? 1 : 2); ++pass) {
    std::string k = emitter.fresh("k");
    emitter.open(loopHeader(k, "0", std::to_string(shape[*axis])));
    SmallVector<std::string> at(dims);
    at[*axis] = k;
    FailureOr<std::string> x = emitter.emit(input, ElementIndex::fromDims(at));
    if (failed(x))
      return failure();
    std::string v = emitter.materialize(type, *x);
    if (pass == 0) {
      emitter.open("if (" + v + " > " + maxName + " || (" + v + " != " + v +
                   " && " + maxName + " == " + maxName + "))");
      emitter.line(maxName + " = " + v + ";");
      emitter.line(argName + " = " + k + ";");
      emitter.close();
    } else {
      emitter.line(sumName + " += kiln_exp(" + v + " - " + maxName + ");");
    }
    emitter.close();
  }
  if (hard)
    return "(" + argName + " == " + dims[*axis] + " ? " +
           ElementalEmitter::floatLiteral(type, 1.0) + " : " +
           ElementalEmitter::floatLiteral(type, 0.0) + ")";
  FailureOr<std::string> x = emitter.emit(input, index);
  if (failed(x))
    return failure();
  return *x + " - " + maxName + " - kiln_log(" + sumName + ")";
}

FailureOr<std::string> emitLogSoftmax(LogSoftmaxOp op,
                                      ElementalEmitter &emitter,
                                      const ElementIndex &index) {
  return emitAlongAxis(op, op.getInput(), op.getAxis(), false, emitter, index);
}
FailureOr<std::string> emitHardmax(HardmaxOp op, ElementalEmitter &emitter,
                                   const ElementIndex &index) {
  return emitAlongAxis(op, op.getInput(), op.getAxis(), true, emitter, index);
}

FailureOr<std::string> emitCumSum(CumSumOp op, ElementalEmitter &emitter,
                                  const ElementIndex &index) {
  FailureOr<SmallVector<int64_t>> axisList =
      constantIntegers(emitter, op, 1, "axis");
  if (failed(axisList))
    return failure();
  if (axisList->size() != 1)
    return emitter.error(op) << "needs one axis";
  ArrayRef<int64_t> shape = indexedShapeOf(op.getInput());
  FailureOr<int64_t> axis = axisOf(emitter, op, (*axisList)[0], shape.size());
  if (failed(axis))
    return failure();
  Type type = elementTypeOf(op.getInput());
  SmallVector<std::string> dims = emitter.dimsOf(index, shape);
  std::string position = dims[*axis];
  std::string begin = "0", end = position;
  bool exclusive = op.getExclusive();
  if (op.getReverse()) {
    begin = parenthesize(position) + (exclusive ? " + 1" : "");
    end = std::to_string(shape[*axis]);
  } else if (!exclusive) {
    end = parenthesize(position) + " + 1";
  }
  std::string acc = emitter.fresh("acc");
  bool isInt = type.isIntOrIndex();
  emitter.line(
      ElementalEmitter::computeType(type) + " " + acc + " = " +
      (isInt ? std::string("0LL") : ElementalEmitter::floatLiteral(type, 0.0)) +
      ";");
  std::string k = emitter.fresh("k");
  emitter.open(loopHeader(k, begin, end));
  dims[*axis] = k;
  FailureOr<std::string> x =
      emitter.emit(op.getInput(), ElementIndex::fromDims(dims));
  if (failed(x))
    return failure();
  emitter.line(isInt ? acc + " = kiln_iadd(" + acc + ", " + *x + ");"
                     : acc + " += " + *x + ";");
  emitter.close();
  return ElementalEmitter::wrapInteger(type, acc);
}

} // namespace

void attachAlongAxisModels(MLIRContext &context) {
  ReduceLogSumExpOp::attachInterface<
      FunctionModel<ReduceLogSumExpOp, emitReduceLogSumExp>>(context);
  ArgMaxOp::attachInterface<FunctionModel<ArgMaxOp, emitArgMax>>(context);
  ArgMinOp::attachInterface<FunctionModel<ArgMinOp, emitArgMin>>(context);
  LogSoftmaxOp::attachInterface<FunctionModel<LogSoftmaxOp, emitLogSoftmax>>(
      context);
  HardmaxOp::attachInterface<FunctionModel<HardmaxOp, emitHardmax>>(context);
  CumSumOp::attachInterface<FunctionModel<CumSumOp, emitCumSum>>(context);
}

} // namespace kiln::cuda
