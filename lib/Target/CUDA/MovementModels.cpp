// Elemental CUDA models of the movement ops: generators, re-indexing
// (pad, tile, trilu, depth/space, reverse_sequence) and index-driven ops
// (gather/scatter variants, top_k, resize, einsum) as serial loops per
// element where an element depends on many inputs.
#include "ElementalModels.h"

#include "kiln/Dialect/Kiln/IR/MovementSemantics.h"
#include "kiln/Evaluator/Tensor.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace kiln::cuda {
namespace {
using Dims = SmallVector<std::string, 4>;
std::string str(int64_t v) { return std::to_string(v); }

/// A literal of |type|'s computation type from a double.
std::string literalOf(Type type, double value) {
  if (isa<FloatType>(type))
    return ElementalEmitter::floatLiteral(type, value);
  if (type.isInteger(1))
    return value != 0 ? "true" : "false";
  return ElementalEmitter::intLiteral(int64_t(value));
}

std::string zeroOf(Type type) { return literalOf(type, 0); }

FailureOr<std::string> emitRange(RangeOp op, ElementalEmitter &e,
                                 const ElementIndex &index) {
  auto start = e.emit(op.getStart(), ElementIndex::fromDims({}));
  auto delta = e.emit(op.getDelta(), ElementIndex::fromDims({}));
  if (failed(start) || failed(delta))
    return failure();
  Type type = elementTypeOf(op.getOutput());
  std::string i = e.linearOf(index, indexedShapeOf(op.getOutput()));
  if (isa<FloatType>(type))
    return *start + " + (" + ElementalEmitter::computeType(type) + ")(" + i +
           ") * " + *delta;
  return ElementalEmitter::wrapInteger(
      type, "kiln_iadd(" + *start + ", kiln_imul((long long)(" + i + "), " +
                *delta + "))");
}

FailureOr<std::string> emitConstantOfShape(ConstantOfShapeOp op,
                                           ElementalEmitter &e,
                                           const ElementIndex &) {
  llvm::Expected<eval::Tensor> value = eval::tensorFromAttr(op.getValue());
  if (!value) {
    llvm::consumeError(value.takeError());
    return e.error(op) << "cannot read its value";
  }
  return literalOf(elementTypeOf(op.getOutput()), value->getDouble(0));
}

FailureOr<std::string> emitEyeLike(EyeLikeOp op, ElementalEmitter &e,
                                   const ElementIndex &index) {
  Dims d = e.dimsOf(index, indexedShapeOf(op.getOutput()));
  Type type = elementTypeOf(op.getOutput());
  return "((" + d[1] + " - " + d[0] + ") == " + str(op.getK()) + " ? " +
         literalOf(type, 1) + " : " + zeroOf(type) + ")";
}

FailureOr<std::string> emitSize(SizeOp op, ElementalEmitter &,
                                const ElementIndex &) {
  return ElementalEmitter::intLiteral(
      elementCount(indexedShapeOf(op.getInput())));
}

FailureOr<std::string> emitOneHot(OneHotOp op, ElementalEmitter &e,
                                  const ElementIndex &index) {
  ArrayRef<int64_t> outShape = indexedShapeOf(op.getOutput());
  int64_t axis = *normalizeAxis(op.getAxis(), outShape.size());
  Dims d = e.dimsOf(index, outShape);
  std::string position = d[axis];
  d.erase(d.begin() + axis);
  auto id = e.emit(op.getIndices(), ElementIndex::fromDims(d));
  auto on = e.emit(op.getValues(), ElementIndex::fromDims({"1"}));
  auto off = e.emit(op.getValues(), ElementIndex::fromDims({"0"}));
  if (failed(id) || failed(on) || failed(off))
    return failure();
  std::string depth = str(outShape[axis]);
  std::string k = e.fresh("h");
  e.line("long long " + k + " = (long long)(" + *id + ");");
  e.line("if (" + k + " < 0) " + k + " += " + depth + ";");
  return "(" + k + " == (long long)" + position + " ? " + *on + " : " + *off +
         ")";
}

FailureOr<std::string> emitPad(PadOp op, ElementalEmitter &e,
                               const ElementIndex &index) {
  ArrayRef<int64_t> in = indexedShapeOf(op.getData()),
                    out = indexedShapeOf(op.getOutput());
  std::optional<SmallVector<int64_t>> amounts = op.getConstantAmounts();
  if (!amounts)
    return e.error(op) << "needs constant 'pads' and 'axes' operands of the "
                          "data's rank inside the kernel (fusion clones small "
                          "constants)";
  ArrayRef<int64_t> begin = ArrayRef(*amounts).take_front(in.size());
  StringRef mode = op.getMode();
  Dims d = e.dimsOf(index, out), source;
  std::string inside = "true";
  for (size_t k = 0; k < in.size(); ++k) {
    std::string p = e.fresh("p"), n = str(in[k]);
    e.line("kiln_index_t " + p + " = " + d[k] + " - (" + str(begin[k]) + ");");
    if (mode == "constant")
      inside += " && " + p + " >= 0 && " + p + " < " + n;
    else if (mode == "edge")
      e.line(p + " = " + p + " < 0 ? 0 : (" + p + " >= " + n + " ? " + n +
             " - 1 : " + p + ");");
    else if (mode == "wrap")
      e.line(p + " = ((" + p + " % " + n + ") + " + n + ") % " + n + ";");
    else if (in[k] == 1)
      e.line(p + " = 0;");
    else {
      std::string period = str(2 * (in[k] - 1));
      e.line(p + " = (" + p + " < 0 ? -" + p + " : " + p + ") % " + period +
             ";");
      e.line(p + " = " + p + " >= " + n + " ? " + period + " - " + p + " : " +
             p + ";");
    }
    source.push_back(p);
  }
  Type type = elementTypeOf(op.getOutput());
  std::string result = e.fresh("v");
  e.line(ElementalEmitter::computeType(type) + " " + result + ";");
  e.open("if (" + inside + ")");
  auto value = e.emit(op.getData(), ElementIndex::fromDims(source));
  if (failed(value))
    return failure();
  e.line(result + " = " + *value + ";");
  e.close();
  e.open("else");
  std::string fill = zeroOf(type);
  if (op.getConstantValue()) {
    auto constant = e.emit(op.getConstantValue(), ElementIndex::fromDims({}));
    if (failed(constant))
      return failure();
    fill = *constant;
  }
  e.line(result + " = " + fill + ";");
  e.close();
  return result;
}

FailureOr<std::string> emitTile(TileOp op, ElementalEmitter &e,
                                const ElementIndex &index) {
  ArrayRef<int64_t> in = indexedShapeOf(op.getInput());
  Dims d = e.dimsOf(index, indexedShapeOf(op.getOutput()));
  for (size_t k = 0; k < in.size(); ++k)
    d[k] = in[k] == 1 ? "0" : "(" + d[k] + " % " + str(in[k]) + ")";
  return e.emit(op.getInput(), ElementIndex::fromDims(d));
}

FailureOr<std::string> emitTrilu(TriluOp op, ElementalEmitter &e,
                                 const ElementIndex &index) {
  ArrayRef<int64_t> shape = indexedShapeOf(op.getOutput());
  Dims d = e.dimsOf(index, shape);
  std::string k = "0LL";
  if (op.getK()) {
    auto value = e.emit(op.getK(), ElementIndex::fromDims({}));
    if (failed(value))
      return failure();
    k = *value;
  }
  auto x = e.emit(op.getInput(), index);
  if (failed(x))
    return failure();
  std::string diff = "((long long)" + d[shape.size() - 1] + " - (long long)" +
                     d[shape.size() - 2] + ")";
  return "(" + diff + (op.getUpper() ? " >= " : " <= ") + k + " ? " + *x +
         " : " + zeroOf(elementTypeOf(op.getOutput())) + ")";
}

FailureOr<std::string> emitBlocks(Operation *op, Value input, int64_t b,
                                  bool toSpace, bool crd, ElementalEmitter &e,
                                  const ElementIndex &index) {
  ArrayRef<int64_t> in = indexedShapeOf(input),
                    out = indexedShapeOf(op->getResult(0));
  Dims o = e.dimsOf(index, out);
  std::string B = str(b);
  Dims s(4);
  s[0] = o[0];
  if (toSpace) {
    std::string bh = "(" + o[2] + " % " + B + ")", bw = "(" + o[3] + " % " + B + ")";
    s[1] = crd ? "(" + o[1] + " * " + str(b * b) + " + " + bh + " * " + B +
                     " + " + bw + ")"
               : "((" + bh + " * " + B + " + " + bw + ") * " + str(out[1]) +
                     " + " + o[1] + ")";
    s[2] = "(" + o[2] + " / " + B + ")";
    s[3] = "(" + o[3] + " / " + B + ")";
  } else {
    std::string block = "(" + o[1] + " / " + str(in[1]) + ")";
    s[1] = "(" + o[1] + " % " + str(in[1]) + ")";
    s[2] = "(" + o[2] + " * " + B + " + " + block + " / " + B + ")";
    s[3] = "(" + o[3] + " * " + B + " + " + block + " % " + B + ")";
  }
  return e.emit(input, ElementIndex::fromDims(s));
}

FailureOr<std::string> emitDepthToSpace(DepthToSpaceOp op, ElementalEmitter &e,
                                        const ElementIndex &index) {
  return emitBlocks(op, op.getInput(), op.getBlocksize(), true,
                    op.getMode() == "CRD", e, index);
}
FailureOr<std::string> emitSpaceToDepth(SpaceToDepthOp op, ElementalEmitter &e,
                                        const ElementIndex &index) {
  return emitBlocks(op, op.getInput(), op.getBlocksize(), false, false, e,
                    index);
}

FailureOr<std::string> emitReverseSequence(ReverseSequenceOp op,
                                           ElementalEmitter &e,
                                           const ElementIndex &index) {
  ArrayRef<int64_t> shape = indexedShapeOf(op.getOutput());
  int64_t batch = *normalizeAxis(op.getBatchAxis(), shape.size());
  int64_t time = *normalizeAxis(op.getTimeAxis(), shape.size());
  Dims d = e.dimsOf(index, shape);
  auto length = e.emit(op.getSequenceLens(), ElementIndex::fromDims({d[batch]}));
  if (failed(length))
    return failure();
  std::string t = e.fresh("t"), n = str(shape[time]);
  e.line("long long " + t + " = " + *length + " > " + n + " ? " + n + " : " +
         *length + ";");
  e.line(t + " = " + d[time] + " < " + t + " ? " + t + " - 1 - " + d[time] +
         " : " + d[time] + ";");
  d[time] = t;
  return e.emit(op.getInput(), ElementIndex::fromDims(d));
}
} // namespace

void attachMovementIndexModels(MLIRContext &context);

void attachMovementModels(MLIRContext &context) {
  RangeOp::attachInterface<FunctionModel<RangeOp, emitRange>>(context);
  ConstantOfShapeOp::attachInterface<
      FunctionModel<ConstantOfShapeOp, emitConstantOfShape>>(context);
  EyeLikeOp::attachInterface<FunctionModel<EyeLikeOp, emitEyeLike>>(context);
  SizeOp::attachInterface<FunctionModel<SizeOp, emitSize>>(context);
  OneHotOp::attachInterface<FunctionModel<OneHotOp, emitOneHot>>(context);
  PadOp::attachInterface<FunctionModel<PadOp, emitPad>>(context);
  TileOp::attachInterface<FunctionModel<TileOp, emitTile>>(context);
  TriluOp::attachInterface<FunctionModel<TriluOp, emitTrilu>>(context);
  DepthToSpaceOp::attachInterface<
      FunctionModel<DepthToSpaceOp, emitDepthToSpace>>(context);
  SpaceToDepthOp::attachInterface<
      FunctionModel<SpaceToDepthOp, emitSpaceToDepth>>(context);
  ReverseSequenceOp::attachInterface<
      FunctionModel<ReverseSequenceOp, emitReverseSequence>>(context);
  attachMovementIndexModels(context);
}

} // namespace kiln::cuda
