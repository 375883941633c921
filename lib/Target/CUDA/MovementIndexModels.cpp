// Elemental CUDA models of the index-driven movement ops: gather_elements,
// gather_nd, scatter_elements/scatter_nd (serial loop over the updates that
// can land on the element), top_k (rank counting), resize and einsum.
#include "ElementalModels.h"

#include "kiln/Dialect/Kiln/IR/MovementSemantics.h"
#include "kiln/artifact_format.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;

namespace kiln::cuda {
namespace {
using Dims = SmallVector<std::string, 4>;
std::string str(int64_t v) { return std::to_string(v); }

constexpr unsigned site(kiln::artifact::BoundsCheckSite value) {
  return static_cast<unsigned>(value);
}

FailureOr<std::string> emitGatherElements(GatherElementsOp op,
                                          ElementalEmitter &e,
                                          const ElementIndex &index) {
  Extents data = e.extentsOf(op.getData());
  int64_t axis = *normalizeAxis(op.getAxis(), data.size());
  auto position = e.emit(op.getIndices(), index);
  if (failed(position))
    return failure();
  Dims d = e.dimsOf(index, e.extentsOf(op.getOutput()));
  d[axis] = e.wrapIndex(*position, data, axis,
                        site(artifact::BoundsCheckSite::GatherElements));
  return e.emit(op.getData(), ElementIndex::fromDims(d));
}

FailureOr<std::string> emitGatherND(GatherNDOp op, ElementalEmitter &e,
                                    const ElementIndex &index) {
  Extents data = e.extentsOf(op.getData());
  ArrayRef<int64_t> indices = indexedShapeOf(op.getIndices());
  int64_t batch = op.getBatchDims(), q = indices.size(), m = indices.back();
  Dims out = e.dimsOf(index, e.extentsOf(op.getOutput()));
  Dims source(out.begin(), out.begin() + batch);
  for (int64_t j = 0; j < m; ++j) {
    Dims at(out.begin(), out.begin() + q - 1);
    at.push_back(str(j));
    auto value = e.emit(op.getIndices(), ElementIndex::fromDims(at));
    if (failed(value))
      return failure();
    source.push_back(e.wrapIndex(*value, data, batch + j,
                                 site(artifact::BoundsCheckSite::GatherND)));
  }
  source.append(out.begin() + q - 1, out.end());
  return e.emit(op.getData(), ElementIndex::fromDims(source));
}

/// acc = reduction(acc, update) in the computation type of |type|.
std::string combine(Type type, StringRef reduction, const std::string &acc,
                    const std::string &update) {
  bool isInt = type.isIntOrIndex();
  std::string u = ElementalEmitter::isUnsignedInteger(type) ? "true" : "false";
  if (reduction == "none")
    return update;
  if (reduction == "add")
    return isInt ? ElementalEmitter::wrapInteger(
                       type, "kiln_iadd(" + acc + ", " + update + ")")
                 : acc + " + " + update;
  if (reduction == "mul")
    return isInt ? ElementalEmitter::wrapInteger(
                       type, "kiln_imul(" + acc + ", " + update + ")")
                 : acc + " * " + update;
  if (reduction == "max")
    return isInt ? "kiln_imax(" + acc + ", " + update + ", " + u + ")"
                 : "kiln_max(" + acc + ", " + update + ")";
  return isInt ? "(kiln_iless(" + update + ", " + acc + ", " + u + ") ? " +
                     update + " : " + acc + ")"
               : "(" + update + " < " + acc + " || " + update + " != " +
                     update + " ? " + update + " : " + acc + ")";
}

FailureOr<std::string> emitScatterElements(ScatterElementsOp op,
                                           ElementalEmitter &e,
                                           const ElementIndex &index) {
  ArrayRef<int64_t> data = indexedShapeOf(op.getData()),
                    indices = indexedShapeOf(op.getIndices());
  int64_t axis = *normalizeAxis(op.getAxis(), data.size());
  Type type = elementTypeOf(op.getOutput());
  Dims d = e.dimsOf(index, data);
  auto initial = e.emit(op.getData(), index);
  if (failed(initial))
    return failure();
  std::string acc = e.fresh("acc");
  e.line(ElementalEmitter::computeType(type) + " " + acc + " = " + *initial +
         ";");
  std::string guard = "true";
  for (size_t k = 0; k < data.size(); ++k)
    if (int64_t(k) != axis)
      guard += " && " + d[k] + " < " + str(indices[k]);
  e.open("if (" + guard + ")");
  std::string j = e.fresh("j");
  e.open("for (kiln_index_t " + j + " = 0; " + j + " < " + str(indices[axis]) +
         "; ++" + j + ")");
  Dims at = d;
  at[axis] = j;
  auto target = e.emit(op.getIndices(), ElementIndex::fromDims(at));
  if (failed(target))
    return failure();
  std::string wrapped =
      e.wrapIndex(*target, data[axis], axis,
                  site(artifact::BoundsCheckSite::ScatterElements));
  e.open("if (" + wrapped + " == " + d[axis] + ")");
  auto update = e.emit(op.getUpdates(), ElementIndex::fromDims(at));
  if (failed(update))
    return failure();
  e.line(acc + " = " + combine(type, op.getReduction(), acc, *update) + ";");
  e.close();
  e.close();
  e.close();
  return acc;
}

FailureOr<std::string> emitScatterND(ScatterNDOp op, ElementalEmitter &e,
                                     const ElementIndex &index) {
  ArrayRef<int64_t> data = indexedShapeOf(op.getData()),
                    indices = indexedShapeOf(op.getIndices());
  int64_t m = indices.back();
  if (m < 1 || m > int64_t(data.size()))
    return e.error(op) << "has indices of last dimension " << m
                       << " for data of rank " << data.size();
  int64_t rows = elementCount(indices.drop_back());
  int64_t slice = elementCount(data.drop_front(m));
  Type type = elementTypeOf(op.getOutput());
  Dims d = e.dimsOf(index, data);
  auto initial = e.emit(op.getData(), index);
  if (failed(initial))
    return failure();
  std::string acc = e.fresh("acc");
  e.line(ElementalEmitter::computeType(type) + " " + acc + " = " + *initial +
         ";");
  std::string r = e.fresh("r");
  e.open("for (kiln_index_t " + r + " = 0; " + r + " < " + str(rows) + "; ++" +
         r + ")");
  std::string match = "true";
  for (int64_t j = 0; j < m; ++j) {
    auto value = e.emit(op.getIndices(), ElementIndex::fromLinear(
                                             "(" + r + " * " + str(m) + " + " +
                                             str(j) + ")"));
    if (failed(value))
      return failure();
    match += " && " +
             e.wrapIndex(*value, data[j], j,
                         site(artifact::BoundsCheckSite::ScatterND)) +
             " == " + d[j];
  }
  e.open("if (" + match + ")");
  std::string inner = e.linearOf(
      ElementIndex::fromDims(Dims(d.begin() + m, d.end())), data.drop_front(m));
  auto update = e.emit(op.getUpdates(),
                       ElementIndex::fromLinear("(" + r + " * " + str(slice) +
                                                " + " + inner + ")"));
  if (failed(update))
    return failure();
  e.line(acc + " = " + combine(type, op.getReduction(), acc, *update) + ";");
  e.close();
  e.close();
  return acc;
}

/// The j-th ranked position along the axis: the element that exactly j
/// others beat (larger/smaller value, NaN above numbers, ties by index).
FailureOr<std::string> emitTopK(TopKOp op, ElementalEmitter &e,
                                const ElementIndex &index) {
  ArrayRef<int64_t> in = indexedShapeOf(op.getInput());
  int64_t axis = *normalizeAxis(op.getAxis(), in.size());
  Type type = elementTypeOf(op.getInput());
  bool isFloat = isa<FloatType>(type), largest = op.getLargest();
  std::string u = ElementalEmitter::isUnsignedInteger(type) ? "true" : "false";
  Dims d = e.dimsOf(index, indexedShapeOf(op.getOutput()));
  std::string rank = d[axis], result = e.fresh("k"), c = e.fresh("c"),
              f = e.fresh("f"), n = str(in[axis]);
  e.line("long long " + result + " = 0;");
  e.open("for (kiln_index_t " + c + " = 0; " + c + " < " + n + "; ++" + c + ")");
  Dims at = d;
  at[axis] = c;
  auto vc = e.emit(op.getInput(), ElementIndex::fromDims(at));
  if (failed(vc))
    return failure();
  std::string count = e.fresh("n");
  e.line("kiln_index_t " + count + " = 0;");
  e.open("for (kiln_index_t " + f + " = 0; " + f + " < " + n + "; ++" + f + ")");
  at[axis] = f;
  auto vf = e.emit(op.getInput(), ElementIndex::fromDims(at));
  if (failed(vf))
    return failure();
  std::string a = *vf, b = *vc, beats;
  if (isFloat) {
    std::string nanA = "(" + a + " != " + a + ")", nanB = "(" + b + " != " + b + ")";
    std::string tie = "((" + a + " == " + b + " || (" + nanA + " && " + nanB +
                      ")) && " + f + " < " + c + ")";
    beats = largest ? "(" + nanA + " && !" + nanB + ") || " + a + " > " + b +
                          " || " + tie
                    : "(!" + nanA + " && " + nanB + ") || " + a + " < " + b +
                          " || " + tie;
  } else {
    std::string better = largest ? "kiln_iless(" + b + ", " + a + ", " + u + ")"
                                 : "kiln_iless(" + a + ", " + b + ", " + u + ")";
    beats = better + " || (" + a + " == " + b + " && " + f + " < " + c + ")";
  }
  e.line("if (" + beats + ") ++" + count + ";");
  e.close();
  e.line("if (" + count + " == " + rank + ") " + result + " = " + c + ";");
  e.close();
  return result;
}
} // namespace

void attachResizeEinsumModels(MLIRContext &context);

void attachMovementIndexModels(MLIRContext &context) {
  GatherElementsOp::attachInterface<
      FunctionModel<GatherElementsOp, emitGatherElements>>(context);
  GatherNDOp::attachInterface<FunctionModel<GatherNDOp, emitGatherND>>(context);
  ScatterElementsOp::attachInterface<
      FunctionModel<ScatterElementsOp, emitScatterElements>>(context);
  ScatterNDOp::attachInterface<FunctionModel<ScatterNDOp, emitScatterND>>(
      context);
  TopKOp::attachInterface<FunctionModel<TopKOp, emitTopK>>(context);
  attachResizeEinsumModels(context);
}

} // namespace kiln::cuda
