// Elemental CUDA models of the normalisations (layer_norm, instance_norm,
// batch_norm, lrn) and nll_loss: serial loops per result element (correct for
// any shape). layer_norm usually anchors a row_reduce kernel instead
// (LayerNormRowEmitter.cpp); these forms serve every other case.
// reduce_log_sum_exp, arg_max/arg_min, log_softmax, hardmax and cumsum are in
// AlongAxisModels.cpp.
#include "SerialLoops.h"

using namespace mlir;

namespace kiln::cuda {
namespace {

/// Mean and 1/sqrt(var + epsilon) of |input| over the dims from |first| on,
/// with the other dims taken from |dims|; returns the two variable names.
FailureOr<std::pair<std::string, std::string>>
emitStatistics(ElementalEmitter &emitter, Value input,
               ArrayRef<std::string> dims, size_t first, double epsilon) {
  ArrayRef<int64_t> shape = indexedShapeOf(input);
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
  ArrayRef<int64_t> shape = indexedShapeOf(operand);
  size_t offset = dims.size() - shape.size();
  SmallVector<std::string> at;
  for (size_t j = 0; j < shape.size(); ++j)
    at.push_back(shape[j] == 1 ? "0" : dims[offset + j]);
  return emitter.emit(operand, ElementIndex::fromDims(at));
}

FailureOr<std::string> emitLayerNorm(LayerNormOp op, ElementalEmitter &emitter,
                                     const ElementIndex &index) {
  ArrayRef<int64_t> shape = indexedShapeOf(op.getInput());
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
  ArrayRef<int64_t> shape = indexedShapeOf(op.getInput());
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
  ArrayRef<int64_t> shape = indexedShapeOf(op.getInput());
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
  ArrayRef<int64_t> shape = indexedShapeOf(op.getInput());
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
  int64_t classes = indexedShapeOf(op.getInput())[1];
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
  ArrayRef<int64_t> targetShape = indexedShapeOf(op.getTarget());
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

void attachAlongAxisModels(MLIRContext &context);

void attachNormModels(MLIRContext &context) {
  attachAlongAxisModels(context);
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
