// Elemental CUDA models of reduce_log_sum_exp, arg_max/arg_min, log_softmax,
// hardmax, cumsum, the normalisations and nll_loss: serial loops per result
// element (correct for any shape). layer_norm and last-axis log_softmax
// usually anchor row_reduce kernels instead (RowReduceEmitter.cpp,
// LayerNormRowEmitter.cpp); these forms serve every other case.
#include "ElementalModels.h"

#include <cmath>

using namespace mlir;

namespace kiln::cuda {
namespace {

std::string loopHeader(const std::string &var, const std::string &begin,
                       const std::string &end) {
  return "for (kiln_index_t " + var + " = " + begin + "; " + var + " < " + end +
         "; ++" + var + ")";
}

/// Opens one loop per dim of |shape| from |first| on, replacing those entries
/// of |dims| with the loop variables; returns the number of loops opened.
unsigned openLoops(ElementalEmitter &emitter, ArrayRef<int64_t> shape,
                   size_t first, SmallVectorImpl<std::string> &dims) {
  for (size_t d = first; d < shape.size(); ++d) {
    std::string r = emitter.fresh("r");
    emitter.open(loopHeader(r, "0", std::to_string(shape[d])));
    dims[d] = r;
  }
  return shape.size() - first;
}

void closeLoops(ElementalEmitter &emitter, unsigned count) {
  for (unsigned i = 0; i < count; ++i)
    emitter.close();
}

FailureOr<int64_t> axisOf(ElementalEmitter &emitter, Operation *op,
                          int64_t axis, int64_t rank) {
  std::optional<int64_t> normalized =
      normalizeAxis(axis, std::max<int64_t>(rank, 1));
  if (!normalized)
    return emitter.error(op) << "has axis " << axis << " out of range";
  return *normalized;
}

/// log(sum(e^x)) over the reduced dims: max pass, then sum of e^(x - max).
FailureOr<std::string> emitReduceLogSumExp(ReduceLogSumExpOp op,
                                           ElementalEmitter &emitter,
                                           const ElementIndex &index) {
  ArrayRef<int64_t> inShape = shapeOf(op.getData());
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
  SmallVector<std::string> out = emitter.dimsOf(index, shapeOf(op.getOutput()));
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
  ArrayRef<int64_t> inShape = shapeOf(op.getData());
  FailureOr<int64_t> axis = axisOf(emitter, op, op.getAxis(), inShape.size());
  if (failed(axis))
    return failure();
  Type type = elementTypeOf(op.getData());
  SmallVector<std::string> out = emitter.dimsOf(index, shapeOf(op.getOutput()));
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
  ArrayRef<int64_t> shape = shapeOf(input);
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
  ArrayRef<int64_t> shape = shapeOf(op.getInput());
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

/// Mean and 1/sqrt(var + epsilon) of |input| over the dims from |first| on,
/// with the other dims taken from |dims|; returns the two variable names.
FailureOr<std::pair<std::string, std::string>>
emitStatistics(ElementalEmitter &emitter, Value input,
               ArrayRef<std::string> dims, size_t first, double epsilon) {
  ArrayRef<int64_t> shape = shapeOf(input);
  Type type = elementTypeOf(input);
  std::string ctype = ElementalEmitter::computeType(type);
  int64_t count = 1;
  for (size_t d = first; d < shape.size(); ++d)
    count *= shape[d];
  std::string mean = emitter.fresh("mean"), var = emitter.fresh("var");
  emitter.line(ctype + " " + mean + " = " +
               ElementalEmitter::floatLiteral(type, 0.0) + ";");
  emitter.line(ctype + " " + var + " = " +
               ElementalEmitter::floatLiteral(type, 0.0) + ";");
  for (int pass = 0; pass < 2; ++pass) {
    SmallVector<std::string> at(dims.begin(), dims.end());
    unsigned loops = openLoops(emitter, shape, first, at);
    FailureOr<std::string> x = emitter.emit(input, ElementIndex::fromDims(at));
    if (failed(x))
      return failure();
    if (pass == 0) {
      emitter.line(mean + " += " + *x + ";");
    } else {
      std::string centred = emitter.materialize(type, *x + " - " + mean, "d");
      emitter.line(var + " += " + centred + " * " + centred + ";");
    }
    closeLoops(emitter, loops);
    std::string n = ElementalEmitter::floatLiteral(type, double(count));
    emitter.line((pass == 0 ? mean : var) + " /= " + n + ";");
  }
  std::string inverse = emitter.fresh("inv");
  emitter.line("const " + ctype + " " + inverse + " = " +
               ElementalEmitter::floatLiteral(type, 1.0) + " / kiln_sqrt(" +
               var + " + " + ElementalEmitter::floatLiteral(type, epsilon) +
               ");");
  return std::make_pair(mean, inverse);
}

/// |operand| (right-aligned against the dims from |first| on) at |dims|.
FailureOr<std::string> emitTrailingOperand(ElementalEmitter &emitter,
                                           Value operand,
                                           ArrayRef<std::string> dims,
                                           size_t first) {
  ArrayRef<int64_t> shape = shapeOf(operand);
  size_t offset = dims.size() - shape.size();
  SmallVector<std::string> at;
  for (size_t j = 0; j < shape.size(); ++j)
    at.push_back(shape[j] == 1 ? "0" : dims[offset + j]);
  return emitter.emit(operand, ElementIndex::fromDims(at));
}

FailureOr<std::string> emitLayerNorm(LayerNormOp op, ElementalEmitter &emitter,
                                     const ElementIndex &index) {
  ArrayRef<int64_t> shape = shapeOf(op.getInput());
  FailureOr<int64_t> axis = axisOf(emitter, op, op.getAxis(), shape.size());
  if (failed(axis))
    return failure();
  SmallVector<std::string> dims = emitter.dimsOf(index, shape);
  auto stats = emitStatistics(emitter, op.getInput(), dims, *axis,
                              op.getEpsilon().convertToFloat());
  if (failed(stats))
    return failure();
  FailureOr<std::string> x = emitter.emit(op.getInput(), index);
  FailureOr<std::string> scale =
      emitTrailingOperand(emitter, op.getScale(), dims, *axis);
  if (failed(x) || failed(scale))
    return failure();
  std::string y = "(" + *x + " - " + stats->first + ") * " + stats->second +
                  " * " + parenthesize(*scale);
  if (op.getBias()) {
    FailureOr<std::string> bias =
        emitTrailingOperand(emitter, op.getBias(), dims, *axis);
    if (failed(bias))
      return failure();
    y += " + " + parenthesize(*bias);
  }
  return y;
}

FailureOr<std::string> emitInstanceNorm(InstanceNormOp op,
                                        ElementalEmitter &emitter,
                                        const ElementIndex &index) {
  ArrayRef<int64_t> shape = shapeOf(op.getInput());
  SmallVector<std::string> dims = emitter.dimsOf(index, shape);
  auto stats = emitStatistics(emitter, op.getInput(), dims, 2,
                              op.getEpsilon().convertToFloat());
  if (failed(stats))
    return failure();
  ElementIndex channel = ElementIndex::fromDims({dims[1]});
  FailureOr<std::string> x = emitter.emit(op.getInput(), index);
  FailureOr<std::string> scale = emitter.emit(op.getScale(), channel);
  FailureOr<std::string> bias = emitter.emit(op.getBias(), channel);
  if (failed(x) || failed(scale) || failed(bias))
    return failure();
  return "(" + *x + " - " + stats->first + ") * " + stats->second + " * " +
         parenthesize(*scale) + " + " + parenthesize(*bias);
}

FailureOr<std::string> emitBatchNorm(BatchNormOp op, ElementalEmitter &emitter,
                                     const ElementIndex &index) {
  ArrayRef<int64_t> shape = shapeOf(op.getInput());
  Type type = elementTypeOf(op.getInput());
  std::string c = emitter.dimOf(index, shape, 1);
  ElementIndex channel = ElementIndex::fromDims({c});
  FailureOr<std::string> x = emitter.emit(op.getInput(), index);
  FailureOr<std::string> scale = emitter.emit(op.getScale(), channel);
  FailureOr<std::string> bias = emitter.emit(op.getBias(), channel);
  FailureOr<std::string> mean = emitter.emit(op.getMean(), channel);
  FailureOr<std::string> var = emitter.emit(op.getVariance(), channel);
  if (failed(x) || failed(scale) || failed(bias) || failed(mean) || failed(var))
    return failure();
  return "(" + *x + " - " + parenthesize(*mean) + ") / kiln_sqrt(" + *var +
         " + " +
         ElementalEmitter::floatLiteral(type,
                                        op.getEpsilon().convertToFloat()) +
         ") * " + parenthesize(*scale) + " + " + parenthesize(*bias);
}

FailureOr<std::string> emitLRN(LRNOp op, ElementalEmitter &emitter,
                               const ElementIndex &index) {
  ArrayRef<int64_t> shape = shapeOf(op.getInput());
  Type type = elementTypeOf(op.getInput());
  std::string ctype = ElementalEmitter::computeType(type);
  SmallVector<std::string> dims = emitter.dimsOf(index, shape);
  int64_t size = op.getSize();
  int64_t before = (size - 1) / 2, after = size - 1 - before;
  std::string c =
      emitter.materialize(IntegerType::get(op.getContext(), 64), dims[1], "c");
  std::string sum = emitter.fresh("sum"), j = emitter.fresh("j");
  emitter.line(ctype + " " + sum + " = " +
               ElementalEmitter::floatLiteral(type, 0.0) + ";");
  emitter.open("for (kiln_index_t " + j + " = (" + c + " > " +
               std::to_string(before) + " ? " + c + " - " +
               std::to_string(before) + " : 0); " + j + " <= " + c + " + " +
               std::to_string(after) + " && " + j + " < " +
               std::to_string(shape[1]) + "; ++" + j + ")");
  SmallVector<std::string> at(dims);
  at[1] = j;
  FailureOr<std::string> v =
      emitter.emit(op.getInput(), ElementIndex::fromDims(at));
  if (failed(v))
    return failure();
  std::string value = emitter.materialize(type, *v);
  emitter.line(sum + " += " + value + " * " + value + ";");
  emitter.close();
  FailureOr<std::string> x = emitter.emit(op.getInput(), index);
  if (failed(x))
    return failure();
  auto literal = [&](APFloat f) {
    return ElementalEmitter::floatLiteral(type, f.convertToFloat());
  };
  return *x + " / kiln_pow(" + literal(op.getBias()) + " + " +
         literal(op.getAlpha()) + " / " +
         ElementalEmitter::floatLiteral(type, double(size)) + " * " + sum +
         ", " + literal(op.getBeta()) + ")";
}

/// The loss at one target element: statements that set |loss| and |weight|
/// (0 for ignored or out-of-range targets, which the CPU evaluator reports).
LogicalResult emitElementLoss(NLLLossOp op, ElementalEmitter &emitter,
                              ArrayRef<std::string> targetDims,
                              const std::string &loss,
                              const std::string &weight) {
  Type type = elementTypeOf(op.getInput());
  int64_t classes = shapeOf(op.getInput())[1];
  FailureOr<std::string> t =
      emitter.emit(op.getTarget(), ElementIndex::fromDims(targetDims));
  if (failed(t))
    return failure();
  std::string target =
      emitter.materialize(elementTypeOf(op.getTarget()), *t, "t");
  std::string valid =
      target + " >= 0 && " + target + " < " + std::to_string(classes) + "LL";
  if (IntegerAttr ignore = op.getIgnoreIndexAttr())
    valid += " && " + target +
             " != " + ElementalEmitter::intLiteral(ignore.getInt());
  emitter.open("if (" + valid + ")");
  SmallVector<std::string> inputDims{targetDims[0], target};
  inputDims.append(targetDims.begin() + 1, targetDims.end());
  FailureOr<std::string> x =
      emitter.emit(op.getInput(), ElementIndex::fromDims(inputDims));
  if (failed(x))
    return failure();
  std::string w = ElementalEmitter::floatLiteral(type, 1.0);
  if (op.getWeight()) {
    FailureOr<std::string> wv =
        emitter.emit(op.getWeight(), ElementIndex::fromDims({target}));
    if (failed(wv))
      return failure();
    w = *wv;
  }
  emitter.line(weight + " = " + w + ";");
  emitter.line(loss + " = -" + parenthesize(*x) + " * " + weight + ";");
  emitter.close();
  return success();
}

FailureOr<std::string> emitNLLLoss(NLLLossOp op, ElementalEmitter &emitter,
                                   const ElementIndex &index) {
  Type type = elementTypeOf(op.getInput());
  std::string ctype = ElementalEmitter::computeType(type);
  std::string zero = ElementalEmitter::floatLiteral(type, 0.0);
  ArrayRef<int64_t> targetShape = shapeOf(op.getTarget());
  if (op.getReduction() == "none") {
    std::string loss = emitter.fresh("loss"), weight = emitter.fresh("w");
    emitter.line(ctype + " " + loss + " = " + zero + ";");
    emitter.line(ctype + " " + weight + " = " + zero + ";");
    SmallVector<std::string> dims = emitter.dimsOf(index, targetShape);
    if (failed(emitElementLoss(op, emitter, dims, loss, weight)))
      return failure();
    return loss;
  }
  std::string lossSum = emitter.fresh("loss_sum");
  std::string weightSum = emitter.fresh("weight_sum");
  emitter.line(ctype + " " + lossSum + " = " + zero + ";");
  emitter.line(ctype + " " + weightSum + " = " + zero + ";");
  SmallVector<std::string> dims(targetShape.size());
  unsigned loops = openLoops(emitter, targetShape, 0, dims);
  std::string loss = emitter.fresh("loss"), weight = emitter.fresh("w");
  emitter.line(ctype + " " + loss + " = " + zero + ";");
  emitter.line(ctype + " " + weight + " = " + zero + ";");
  if (failed(emitElementLoss(op, emitter, dims, loss, weight)))
    return failure();
  emitter.line(lossSum + " += " + loss + ";");
  emitter.line(weightSum + " += " + weight + ";");
  closeLoops(emitter, loops);
  if (op.getReduction() == "sum")
    return lossSum;
  return lossSum + " / " + weightSum;
}

} // namespace

void attachNormModels(MLIRContext &context) {
  ReduceLogSumExpOp::attachInterface<
      FunctionModel<ReduceLogSumExpOp, emitReduceLogSumExp>>(context);
  ArgMaxOp::attachInterface<FunctionModel<ArgMaxOp, emitArgMax>>(context);
  ArgMinOp::attachInterface<FunctionModel<ArgMinOp, emitArgMin>>(context);
  LogSoftmaxOp::attachInterface<FunctionModel<LogSoftmaxOp, emitLogSoftmax>>(
      context);
  HardmaxOp::attachInterface<FunctionModel<HardmaxOp, emitHardmax>>(context);
  CumSumOp::attachInterface<FunctionModel<CumSumOp, emitCumSum>>(context);
  LayerNormOp::attachInterface<FunctionModel<LayerNormOp, emitLayerNorm>>(
      context);
  InstanceNormOp::attachInterface<
      FunctionModel<InstanceNormOp, emitInstanceNorm>>(context);
  BatchNormOp::attachInterface<FunctionModel<BatchNormOp, emitBatchNorm>>(
      context);
  LRNOp::attachInterface<FunctionModel<LRNOp, emitLRN>>(context);
  NLLLossOp::attachInterface<FunctionModel<NLLLossOp, emitNLLLoss>>(context);
}

} // namespace kiln::cuda
