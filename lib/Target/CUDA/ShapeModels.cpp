// Elemental CUDA models of views (reshape, flatten, squeeze, unsqueeze),
// data movement (transpose, expand, slice, gather, concat) and constants.
#include "ElementalModels.h"

#include "kiln/Evaluator/Tensor.h"
#include "kiln/artifact_format.h"

#include "llvm/ADT/StringExtras.h"

#include <algorithm>

using namespace mlir;

namespace kiln::cuda {

FailureOr<SmallVector<int64_t>> constantIntegers(ElementalEmitter &emitter,
                                                 Operation *op,
                                                 unsigned operand,
                                                 StringRef what) {
  std::optional<SmallVector<int64_t>> values =
      getConstantIntegers(op->getOperand(operand));
  if (!values)
    return emitter.error(op)
           << "needs a constant '" << what
           << "' operand inside the kernel (fusion clones small constants)";
  return *values;
}

namespace {

std::string addOffset(const std::string &index, int64_t offset) {
  if (offset == 0)
    return index;
  return "(" + index + (offset > 0 ? " + " : " - ") +
         std::to_string(offset > 0 ? offset : -offset) + ")";
}

/// Views keep the row-major order: the input's linear index is the output's.
FailureOr<std::string> emitLinearView(Operation *op, ElementalEmitter &emitter,
                                      const ElementIndex &index) {
  Value input = op->getOperand(0);
  Extents out = emitter.extentsOf(op->getResult(0));
  if (emitter.extentsOf(input) == out)
    return emitter.emit(input, index);
  return emitter.emit(input,
                      ElementIndex::fromLinear(emitter.linearOf(index, out)));
}

/// The input dims of a reshape from its output's per-dim index |outDims|
/// when the dims fall into groups of equal products: a run-time extent
/// alone in its group on both sides with the same expression (its index
/// passes through), static dims grouped by their products (each input dim
/// computed within its group by static divisions), size-1 dims anywhere;
/// std::nullopt otherwise. A linearisation of the whole index followed by a
/// delinearisation would divide by every run-time stride: BERT's ranged
/// head split `[batch, seq, 768] -> [batch, seq, 12, 64]` read through a
/// transpose divided by seq a dozen times per element.
std::optional<SmallVector<std::string>>
regroupedDims(const Extents &out, const Extents &in,
              ArrayRef<std::string> outDims) {
  auto unknown = [](const Extents &extents, size_t d) {
    return StringRef(extents.texts[d]).contains(kUnknownExtentText);
  };
  SmallVector<std::string> inDims(in.size(), "0");
  size_t i = 0, j = 0;
  while (i < out.size() || j < in.size()) {
    if (i < out.size() && out[i] == 1) {
      ++i;
      continue;
    }
    if (j < in.size() && in[j] == 1) {
      ++j;
      continue;
    }
    if (i == out.size() || j == in.size())
      return std::nullopt;
    bool outRunTime = ShapedType::isDynamic(out[i]);
    bool inRunTime = ShapedType::isDynamic(in[j]);
    if (outRunTime || inRunTime) {
      if (!outRunTime || !inRunTime || unknown(out, i) || unknown(in, j) ||
          out.texts[i] != in.texts[j])
        return std::nullopt;
      inDims[j++] = outDims[i++];
      continue;
    }
    // A static group: extend the side with the smaller product.
    size_t outEnd = i + 1, inEnd = j + 1;
    int64_t outProduct = out[i], inProduct = in[j];
    while (outProduct != inProduct) {
      bool growOut = outProduct < inProduct;
      size_t &end = growOut ? outEnd : inEnd;
      const Extents &side = growOut ? out : in;
      if (end == side.size() || ShapedType::isDynamic(side[end]))
        return std::nullopt;
      (growOut ? outProduct : inProduct) *= side[end++];
    }
    std::string linear;
    for (size_t d = i; d < outEnd; ++d)
      if (out[d] != 1)
        linear = linear.empty()
                     ? outDims[d]
                     : "(" + linear + " * " + std::to_string(out[d]) + " + " +
                           outDims[d] + ")";
    if (linear.empty())
      linear = "0";
    int64_t stride = inProduct;
    for (size_t d = j; d < inEnd; ++d) {
      stride /= in[d];
      if (in[d] == 1)
        continue;
      std::string dim = stride == 1 ? parenthesize(linear)
                                    : "(" + parenthesize(linear) + " / " +
                                          std::to_string(stride) + ")";
      if (stride * in[d] != inProduct)
        dim = "(" + dim + " % " + std::to_string(in[d]) + ")";
      inDims[d] = dim;
    }
    i = outEnd;
    j = inEnd;
  }
  return inDims;
}

/// Reshape, flatten, squeeze and unsqueeze: the linear index passes
/// through; a per-dim index is regrouped (regroupedDims: size-1 dims read
/// index 0, the others map group by group) where it can be. With static
/// extents the linear index goes along (the input's element is the same),
/// so a consumer that reads by linear index (a load) takes it as before,
/// and one that needs the input's dims (a transpose, slice, concat) takes
/// the regrouped ones instead of dividing the whole linear index by every
/// stride: Swin-V2's window reverse ([512, 64, 96] -> [8, 8, 8, 8, 8, 96],
/// a transpose, -> [8, 64, 64, 96], the shift's slices and concats)
/// divided a 4-level linear index by 393216, 49152, 6144, 768 and 96 for
/// each of 8 loads per thread, and its LayerNorm ran at 0.10 of copy.
template <typename OpT>
FailureOr<std::string> emitView(OpT op, ElementalEmitter &emitter,
                                const ElementIndex &index) {
  if (index.hasDims) {
    Extents out = emitter.extentsOf(op->getResult(0));
    Extents in = emitter.extentsOf(op->getOperand(0));
    bool runTime = llvm::any_of(out.sizes, ShapedType::isDynamic) ||
                   llvm::any_of(in.sizes, ShapedType::isDynamic);
    if (std::optional<SmallVector<std::string>> dims =
            regroupedDims(out, in, index.dims)) {
      ElementIndex regrouped = ElementIndex::fromDims(*dims);
      // The given linear index, else with static extents its Horner form;
      // with run-time extents that would multiply by run-time strides
      // wherever it is used, and the regrouped dims serve alone.
      regrouped.linear = !index.linear.empty() || runTime
                             ? index.linear
                             : emitter.linearOf(index, out);
      return emitter.emit(op->getOperand(0), regrouped);
    }
  }
  return emitLinearView(op, emitter, index);
}

FailureOr<std::string> emitExpand(ExpandOp op, ElementalEmitter &emitter,
                                  const ElementIndex &index) {
  return emitter.emit(op.getInput(),
                      emitter.broadcastIndex(index,
                                             emitter.extentsOf(op.getOutput()),
                                             emitter.extentsOf(op.getInput())));
}

FailureOr<std::string> emitTranspose(TransposeOp op, ElementalEmitter &emitter,
                                     const ElementIndex &index) {
  ArrayRef<int64_t> perm = op.getPerm();
  Extents outShape = emitter.extentsOf(op.getOutput());
  SmallVector<std::string> dims(perm.size());
  for (size_t i = 0; i < perm.size(); ++i)
    dims[perm[i]] = emitter.dimOf(index, outShape, i);
  return emitter.emit(op.getData(), ElementIndex::fromDims(dims));
}

/// Slice with constant starts/ends/axes/steps, clamped as the evaluator does.
FailureOr<std::string> emitSlice(SliceOp op, ElementalEmitter &emitter,
                                 const ElementIndex &index) {
  ArrayRef<int64_t> inShape = indexedShapeOf(op.getData());
  Extents outShape = emitter.extentsOf(op.getOutput());
  const char *names[] = {"starts", "ends", "axes", "steps"};
  SmallVector<int64_t> lists[4];
  for (unsigned i = 0; i < 4; ++i) {
    // The ends are not read: the result's extents give each length (a
    // computed end, `positions[:seq]`, is allowed with steps of 1).
    if (i == 1)
      continue;
    FailureOr<SmallVector<int64_t>> list =
        constantIntegers(emitter, op, i + 1, names[i]);
    if (failed(list))
      return failure();
    lists[i] = *list;
  }
  SmallVector<int64_t> begin(inShape.size(), 0), step(inShape.size(), 1);
  for (size_t i = 0;
       i < lists[0].size() && i < lists[2].size() && i < lists[3].size(); ++i) {
    std::optional<int64_t> axis = normalizeAxis(lists[2][i], inShape.size());
    if (!axis || lists[3][i] == 0)
      return emitter.error(op) << "has an invalid axis or a zero step";
    if (ShapedType::isDynamic(inShape[*axis]))
      return emitter.error(op) << "slices along a run-time extent";
    int64_t dim = inShape[*axis], start = lists[0][i];
    if (start < 0)
      start += dim;
    start = lists[3][i] > 0 ? std::clamp<int64_t>(start, 0, dim)
                            : std::clamp<int64_t>(start, 0, dim - 1);
    begin[*axis] = start;
    step[*axis] = lists[3][i];
  }
  SmallVector<std::string> dims;
  for (size_t d = 0; d < inShape.size(); ++d) {
    std::string out = emitter.dimOf(index, outShape, d);
    if (step[d] == 1 || outShape[d] == 1) {
      dims.push_back(out == "0" ? std::to_string(begin[d])
                                : addOffset(out, begin[d]));
      continue;
    }
    int64_t magnitude = step[d] > 0 ? step[d] : -step[d];
    dims.push_back("(" + std::to_string(begin[d]) +
                   (step[d] > 0 ? " + " : " - ") + out + " * " +
                   std::to_string(magnitude) + ")");
  }
  return emitter.emit(op.getData(), ElementIndex::fromDims(dims));
}

/// Gather: negative indices wrap once; indices still out of range are
/// clamped to [0, dim) so that a bad index cannot read outside the buffer
/// (the CPU evaluator reports them as an error instead), or, with bounds
/// checks, recorded as the kernel's fault (ElementalEmitter::wrapIndex).
FailureOr<std::string> emitGather(GatherOp op, ElementalEmitter &emitter,
                                  const ElementIndex &index) {
  Extents dataShape = emitter.extentsOf(op.getData());
  ArrayRef<int64_t> indicesShape = indexedShapeOf(op.getIndices());
  Extents outShape = emitter.extentsOf(op.getOutput());
  std::optional<int64_t> axis = normalizeAxis(op.getAxis(), dataShape.size());
  if (!axis)
    return emitter.error(op) << "has axis " << op.getAxis() << " out of range";
  SmallVector<std::string> out = emitter.dimsOf(index, outShape);
  size_t q = indicesShape.size();
  SmallVector<std::string> indexDims(out.begin() + *axis,
                                     out.begin() + *axis + q);
  FailureOr<std::string> position =
      emitter.emit(op.getIndices(), ElementIndex::fromDims(indexDims));
  if (failed(position))
    return failure();
  std::string clamped = emitter.wrapIndex(
      *position, dataShape, *axis,
      static_cast<unsigned>(artifact::BoundsCheckSite::Gather));
  SmallVector<std::string> dims(out.begin(), out.begin() + *axis);
  dims.push_back(clamped);
  dims.append(out.begin() + *axis + q, out.end());
  return emitter.emit(op.getData(), ElementIndex::fromDims(dims));
}

/// Concat: only the input that holds the element is read (if/else chain).
FailureOr<std::string> emitConcat(ConcatOp op, ElementalEmitter &emitter,
                                  const ElementIndex &index) {
  Extents outShape = emitter.extentsOf(op.getOutput());
  std::optional<int64_t> axis = normalizeAxis(op.getAxis(), outShape.size());
  if (!axis)
    return emitter.error(op) << "has axis " << op.getAxis() << " out of range";
  SmallVector<std::string> out = emitter.dimsOf(index, outShape);
  std::string position = emitter.fresh("c");
  emitter.line("const kiln_index_t " + position + " = " + out[*axis] + ";");
  std::string result = emitter.fresh("v");
  Type type = elementTypeOf(op.getOutput());
  emitter.line(ElementalEmitter::computeType(type) + " " + result + ";");
  int64_t offset = 0;
  size_t count = op.getInputs().size();
  for (auto [k, input] : llvm::enumerate(op.getInputs())) {
    int64_t size = indexedShapeOf(input)[*axis];
    std::string header =
        k + 1 == count
            ? ""
            : "if (" + position + " < " + std::to_string(offset + size) + ")";
    if (k == 0)
      emitter.open(header);
    else
      emitter.open(header.empty() ? "else" : "else " + header);
    SmallVector<std::string> dims(out);
    dims[*axis] = addOffset(position, -offset);
    FailureOr<std::string> value =
        emitter.emit(input, ElementIndex::fromDims(dims));
    if (failed(value))
      return failure();
    emitter.line(result + " = " + *value + ";");
    emitter.close();
    offset += size;
  }
  return result;
}

/// kiln.shape of a value with run-time extents (static ones fold before
/// fusion): element k is the extent of dim start + k, a run-time one
/// computed from the kernel's dim parameters.
FailureOr<std::string> emitShape(ShapeOp op, ElementalEmitter &emitter,
                                 const ElementIndex &index) {
  Extents data = emitter.extentsOf(op.getData());
  int64_t rank = data.size();
  auto clampIndex = [&](int64_t at) {
    return std::clamp<int64_t>(at < 0 ? at + rank : at, 0, rank);
  };
  int64_t first = clampIndex(op.getStart());
  int64_t last = op.getEnd() ? clampIndex(*op.getEnd()) : rank;
  if (last <= first)
    return emitter.error(op) << "selects no dims";
  std::string position =
      emitter.linearOf(index, indexedShapeOf(op.getResult()));
  auto extent = [&](int64_t d) {
    return ShapedType::isDynamic(data[d])
               ? "(long long)" + data.texts[d]
               : ElementalEmitter::intLiteral(data[d]);
  };
  std::string result = extent(last - 1);
  for (int64_t d = last - 2; d >= first; --d)
    result = "(" + parenthesize(position) + " == " + std::to_string(d - first) +
             " ? " + extent(d) + " : " + result + ")";
  return result;
}

/// Constants in a kernel: splats and single values become literals, small
/// tables a file-scope __device__ array.
FailureOr<std::string> emitConstant(ConstantOp op, ElementalEmitter &emitter,
                                    const ElementIndex &index) {
  llvm::Expected<eval::Tensor> tensor = eval::tensorFromAttr(op.getValue());
  if (!tensor) {
    std::string message = llvm::toString(tensor.takeError());
    return emitter.error(op) << "cannot read its value: " << message;
  }
  Type type = elementTypeOf(op.getOutput());
  auto literal = [&](int64_t i) -> std::string {
    if (tensor->isFloat())
      return ElementalEmitter::floatLiteral(type, tensor->getDouble(i));
    if (type.isInteger(1))
      return tensor->ints()[i] ? "true" : "false";
    return ElementalEmitter::intLiteral(tensor->ints()[i]);
  };
  int64_t count = tensor->numElements();
  if (count == 0)
    return emitter.error(op) << "is empty";
  bool splat = true;
  for (int64_t i = 1; i < count && splat; ++i)
    splat = tensor->isFloat()
                ? tensor->floats()[i] == tensor->floats()[0] ||
                      (tensor->floats()[i] != tensor->floats()[i] &&
                       tensor->floats()[0] != tensor->floats()[0])
                : tensor->ints()[i] == tensor->ints()[0];
  if (splat)
    return literal(0);
  constexpr int64_t kMaxTableElements = 4096;
  if (count > kMaxTableElements)
    return emitter.error(op) << "has " << count << " elements; constants of "
                             << "more than " << kMaxTableElements
                             << " elements must be kernel inputs";
  std::string name = emitter.fresh("kiln_table");
  SmallVector<std::string> values;
  for (int64_t i = 0; i < count; ++i)
    values.push_back(literal(i));
  emitter.addGlobal("static __device__ const " +
                    ElementalEmitter::computeType(type) + " " + name + "[" +
                    std::to_string(count) + "] = {" + llvm::join(values, ", ") +
                    "};");
  return name + "[" + emitter.linearOf(index, indexedShapeOf(op.getOutput())) +
         "]";
}

} // namespace

void attachShapeModels(MLIRContext &context) {
  ReshapeOp::attachInterface<FunctionModel<ReshapeOp, emitView<ReshapeOp>>>(
      context);
  FlattenOp::attachInterface<FunctionModel<FlattenOp, emitView<FlattenOp>>>(
      context);
  SqueezeOp::attachInterface<FunctionModel<SqueezeOp, emitView<SqueezeOp>>>(
      context);
  UnsqueezeOp::attachInterface<
      FunctionModel<UnsqueezeOp, emitView<UnsqueezeOp>>>(context);
  ExpandOp::attachInterface<FunctionModel<ExpandOp, emitExpand>>(context);
  TransposeOp::attachInterface<FunctionModel<TransposeOp, emitTranspose>>(
      context);
  SliceOp::attachInterface<FunctionModel<SliceOp, emitSlice>>(context);
  GatherOp::attachInterface<FunctionModel<GatherOp, emitGather>>(context);
  ConcatOp::attachInterface<FunctionModel<ConcatOp, emitConcat>>(context);
  ConstantOp::attachInterface<FunctionModel<ConstantOp, emitConstant>>(context);
  ShapeOp::attachInterface<FunctionModel<ShapeOp, emitShape>>(context);
}

} // namespace kiln::cuda
