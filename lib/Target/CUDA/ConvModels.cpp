// Elemental CUDA models of convolutions and pools: each output element is a
// serial loop over (input channels x) the kernel window, with bounds tests
// for padding. Correct first; cuDNN / implicit GEMM come with the performance
// work. Fusion keeps their producers out of these kernels (docs/fusion.md).
#include "ElementalModels.h"

using namespace mlir;

namespace kiln::cuda {
namespace {

std::string str(int64_t value) { return std::to_string(value); }

/// Opens one loop per kernel dim and defines the input position it reads:
/// q_i = o_i * stride - pad_begin + k_i * dilation. Returns the names of the
/// kernel counters and positions; the caller closes |kernel.size()| scopes.
void openWindowLoops(ElementalEmitter &emitter, ArrayRef<std::string> out,
                     ArrayRef<int64_t> kernel, ArrayRef<int64_t> strides,
                     ArrayRef<int64_t> pads, ArrayRef<int64_t> dilations,
                     SmallVectorImpl<std::string> &counters,
                     SmallVectorImpl<std::string> &positions) {
  for (size_t i = 0; i < kernel.size(); ++i) {
    std::string k = emitter.fresh("k"), q = emitter.fresh("q");
    emitter.open("for (kiln_index_t " + k + " = 0; " + k + " < " +
                 str(kernel[i]) + "; ++" + k + ")");
    emitter.line("const kiln_index_t " + q + " = " + out[i] + " * " +
                 str(strides[i]) + " - " + str(pads[i]) + " + " + k + " * " +
                 str(dilations[i]) + ";");
    counters.push_back(k);
    positions.push_back(q);
  }
}

/// "q0 >= lo && q0 < hi && ..." over every position.
std::string inRange(ArrayRef<std::string> positions, ArrayRef<int64_t> low,
                    ArrayRef<int64_t> high) {
  std::string text;
  for (size_t i = 0; i < positions.size(); ++i) {
    if (i)
      text += " && ";
    text += positions[i] + " >= " + str(low[i]) + " && " + positions[i] +
            " < " + str(high[i]);
  }
  return text;
}

std::string accumulate(Type type, const std::string &acc, const std::string &x,
                       const std::string &w) {
  if (type.isIntOrIndex())
    return acc + " = kiln_iadd(" + acc + ", kiln_imul(" + x + ", " + w + "));";
  return acc + " += " + x + " * " + w + ";";
}

/// Declares the accumulator of an output element in the computation type of
/// |type|, starting at |bias|[|channel|] when there is a bias, else 0; its
/// name.
FailureOr<std::string> declareAccumulator(ElementalEmitter &emitter, Type type,
                                          Value bias,
                                          const std::string &channel) {
  std::string acc = emitter.fresh("acc");
  std::string init =
      type.isIntOrIndex() ? "0LL" : ElementalEmitter::floatLiteral(type, 0.0);
  if (bias) {
    FailureOr<std::string> value =
        emitter.emit(bias, ElementIndex::fromDims({channel}));
    if (failed(value))
      return failure();
    init = *value;
  }
  emitter.line(ElementalEmitter::computeType(type) + " " + acc + " = " + init +
               ";");
  return acc;
}

/// conv: acc = bias[m] + sum_{c, k} x[n, g*C/group + c, q(k)] * w[m, c, k]
/// (channels last: x[n, q(k), g*C/group + c] * w[m, k, c]).
FailureOr<std::string> emitConv(ConvOp op, ElementalEmitter &emitter,
                                const ElementIndex &index) {
  bool channelsLast = op.isChannelsLast();
  ArrayRef<int64_t> outShape = indexedShapeOf(op.getOutput());
  ArrayRef<int64_t> inShape = indexedShapeOf(op.getInput());
  ArrayRef<int64_t> wShape = indexedShapeOf(op.getWeight());
  size_t k = inShape.size() - 2;
  // The spatial dims: 2.. channels first, 1..rank-2 channels last.
  size_t spatialBegin = channelsLast ? 1 : 2;
  int64_t group = op.getGroup();
  int64_t cg = channelsLast ? wShape.back() : wShape[1],
          mg = wShape[0] / group;
  Type type = elementTypeOf(op.getOutput());
  SmallVector<std::string> dims = emitter.dimsOf(index, outShape);
  // |out| in channels-first order: n, m, spatial...
  SmallVector<std::string> out{dims[0], channelsLast ? dims.back() : dims[1]};
  for (size_t i = 0; i < k; ++i)
    out.push_back(dims[spatialBegin + i]);
  FailureOr<std::string> acc =
      declareAccumulator(emitter, type, op.getBias(), out[1]);
  if (failed(acc))
    return failure();
  std::string base = emitter.fresh("cbase");
  emitter.line("const kiln_index_t " + base + " = (" + out[1] + " / " +
               str(mg) + ") * " + str(cg) + ";");
  SmallVector<std::string> counters, positions;
  SmallVector<int64_t> zeros(k, 0);
  openWindowLoops(emitter, ArrayRef<std::string>(out).drop_front(2),
                  wShape.slice(spatialBegin, k), op.getStrides(), op.getPads(),
                  op.getDilations(), counters, positions);
  emitter.open("if (" +
               inRange(positions, zeros, inShape.slice(spatialBegin, k)) + ")");
  std::string c = emitter.fresh("c");
  emitter.open("for (kiln_index_t " + c + " = 0; " + c + " < " + str(cg) +
               "; ++" + c + ")");
  SmallVector<std::string> xDims{out[0]}, wDims{out[1]};
  if (!channelsLast) {
    xDims.push_back(base + " + " + c);
    wDims.push_back(c);
  }
  xDims.append(positions.begin(), positions.end());
  wDims.append(counters.begin(), counters.end());
  if (channelsLast) {
    xDims.push_back(base + " + " + c);
    wDims.push_back(c);
  }
  FailureOr<std::string> x =
      emitter.emit(op.getInput(), ElementIndex::fromDims(xDims));
  if (failed(x))
    return failure();
  FailureOr<std::string> w =
      emitter.emit(op.getWeight(), ElementIndex::fromDims(wDims));
  if (failed(w))
    return failure();
  emitter.line(accumulate(type, *acc, *x, *w));
  for (size_t i = 0; i < k + 2; ++i)
    emitter.close();
  return type.isIntOrIndex() ? ElementalEmitter::wrapInteger(type, *acc) : *acc;
}

/// conv_transpose: output o receives input i through kernel tap k when
/// o + pad_begin - k * dilation == i * stride.
FailureOr<std::string> emitConvTranspose(ConvTransposeOp op,
                                         ElementalEmitter &emitter,
                                         const ElementIndex &index) {
  ArrayRef<int64_t> outShape = indexedShapeOf(op.getOutput());
  ArrayRef<int64_t> inShape = indexedShapeOf(op.getInput());
  ArrayRef<int64_t> wShape = indexedShapeOf(op.getWeight());
  size_t k = inShape.size() - 2;
  int64_t group = op.getGroup();
  int64_t cg = inShape[1] / group, mg = wShape[1];
  Type type = elementTypeOf(op.getOutput());
  SmallVector<std::string> out = emitter.dimsOf(index, outShape);
  FailureOr<std::string> acc =
      declareAccumulator(emitter, type, op.getBias(), out[1]);
  if (failed(acc))
    return failure();
  std::string g = emitter.fresh("grp");
  emitter.line("const kiln_index_t " + g + " = " + out[1] + " / " + str(mg) +
               ";");
  SmallVector<std::string> counters, positions;
  for (size_t i = 0; i < k; ++i) {
    std::string kk = emitter.fresh("k"), t = emitter.fresh("t"),
                p = emitter.fresh("p");
    emitter.open("for (kiln_index_t " + kk + " = 0; " + kk + " < " +
                 str(wShape[2 + i]) + "; ++" + kk + ")");
    emitter.line("const kiln_index_t " + t + " = " + out[2 + i] + " + " +
                 str(op.getPads()[i]) + " - " + kk + " * " +
                 str(op.getDilations()[i]) + ";");
    emitter.line("if (" + t + " < 0 || " + t + " % " + str(op.getStrides()[i]) +
                 " != 0) continue;");
    emitter.line("const kiln_index_t " + p + " = " + t + " / " +
                 str(op.getStrides()[i]) + ";");
    emitter.line("if (" + p + " >= " + str(inShape[2 + i]) + ") continue;");
    counters.push_back(kk);
    positions.push_back(p);
  }
  std::string c = emitter.fresh("c");
  emitter.open("for (kiln_index_t " + c + " = 0; " + c + " < " + str(cg) +
               "; ++" + c + ")");
  std::string channel = g + " * " + str(cg) + " + " + c;
  SmallVector<std::string> xDims{out[0], channel};
  xDims.append(positions.begin(), positions.end());
  SmallVector<std::string> wDims{channel, out[1] + " - " + g + " * " + str(mg)};
  wDims.append(counters.begin(), counters.end());
  FailureOr<std::string> x =
      emitter.emit(op.getInput(), ElementIndex::fromDims(xDims));
  if (failed(x))
    return failure();
  FailureOr<std::string> w =
      emitter.emit(op.getWeight(), ElementIndex::fromDims(wDims));
  if (failed(w))
    return failure();
  emitter.line(accumulate(type, *acc, *x, *w));
  for (size_t i = 0; i < k + 1; ++i)
    emitter.close();
  return type.isIntOrIndex() ? ElementalEmitter::wrapInteger(type, *acc) : *acc;
}

enum class PoolKind { Max, MaxIndices, Average };

/// Pools: one pass over the window; padding never takes part in a maximum,
/// and the average divides by the elements inside the input (or, with
/// count_include_pad, inside the padded input). Channels last, the output
/// index is [n, h, w, c]: consecutive threads take consecutive channels, so
/// every window load of a warp is one contiguous run. (A kernel that is one
/// channels-last float pool goes a vector of channels per thread instead,
/// with these numerics lane by lane: PoolEmitter.cpp.)
template <typename PoolOpT>
FailureOr<std::string> emitPool(PoolOpT op, ElementalEmitter &emitter,
                                const ElementIndex &index, PoolKind kind,
                                bool countIncludePad, int64_t storageOrder,
                                bool channelsLast = false) {
  ArrayRef<int64_t> outShape = indexedShapeOf(op.getOutput());
  ArrayRef<int64_t> inShape = indexedShapeOf(op.getInput());
  ArrayRef<int64_t> spatial = channelsLast
                                  ? inShape.slice(1, inShape.size() - 2)
                                  : inShape.drop_front(2);
  size_t k = spatial.size();
  ArrayRef<int64_t> pads = op.getPads();
  Type type = elementTypeOf(op.getInput());
  std::string ctype = ElementalEmitter::computeType(type);
  bool isInt = type.isIntOrIndex();
  SmallVector<std::string> dims = emitter.dimsOf(index, outShape);
  // |out| in channels-first order: n, c, spatial...
  SmallVector<std::string> out{dims[0], channelsLast ? dims.back() : dims[1]};
  for (size_t i = 0; i < k; ++i)
    out.push_back(dims[(channelsLast ? 1 : 2) + i]);
  std::string best = emitter.fresh("best"), where = emitter.fresh("arg"),
              sum = emitter.fresh("sum"), count = emitter.fresh("n");
  if (kind == PoolKind::Average) {
    emitter.line(ctype + " " + sum + " = " +
                 ElementalEmitter::floatLiteral(type, 0.0) + ";");
    emitter.line("kiln_index_t " + count + " = 0;");
  } else {
    std::string lowest =
        !isInt ? ElementalEmitter::floatLiteral(type, -INFINITY)
        : ElementalEmitter::isUnsignedInteger(type)
            ? "0LL"
            : ElementalEmitter::intLiteral(
                  -(int64_t(1) << (type.getIntOrFloatBitWidth() - 1)));
    emitter.line(ctype + " " + best + " = " + lowest + ";");
    emitter.line("long long " + where + " = -1LL;");
  }
  SmallVector<std::string> counters, positions;
  openWindowLoops(emitter, ArrayRef<std::string>(out).drop_front(2),
                  op.getKernelShape(), op.getStrides(), pads, op.getDilations(),
                  counters, positions);
  if (kind == PoolKind::Average && countIncludePad) {
    SmallVector<int64_t> low, high;
    for (size_t i = 0; i < k; ++i) {
      low.push_back(-pads[i]);
      high.push_back(spatial[i] + pads[k + i]);
    }
    emitter.line("if (" + inRange(positions, low, high) + ") ++" + count + ";");
  }
  emitter.open("if (" +
               inRange(positions, SmallVector<int64_t>(k, 0), spatial) + ")");
  SmallVector<std::string> xDims{out[0]};
  if (!channelsLast)
    xDims.push_back(out[1]);
  xDims.append(positions.begin(), positions.end());
  if (channelsLast)
    xDims.push_back(out[1]);
  FailureOr<std::string> x =
      emitter.emit(op.getInput(), ElementIndex::fromDims(xDims));
  if (failed(x))
    return failure();
  if (kind == PoolKind::Average) {
    emitter.line(sum + " += " + *x + ";");
    if (!countIncludePad)
      emitter.line("++" + count + ";");
  } else {
    std::string v = emitter.materialize(type, *x);
    // The first maximum wins; a NaN beats any number (NaN-propagating max).
    std::string better = where + " < 0 || " + v + " > " + best;
    if (!isInt)
      better += " || (" + v + " != " + v + " && " + best + " == " + best + ")";
    // The values output only needs to know that a maximum was seen; the
    // indices output (always NCHW) records the flat input index.
    std::string flat = "0LL";
    if (kind == PoolKind::MaxIndices) {
      int64_t planeSize = elementCount(spatial);
      std::string plane = "(" + out[0] + " * " + str(inShape[1]) + " + " +
                          out[1] + ") * " + str(planeSize);
      if (storageOrder == 1) { // Column-major spatial index.
        flat = positions[k - 1];
        for (int64_t i = int64_t(k) - 2; i >= 0; --i)
          flat = positions[i] + " + " + str(spatial[i]) + " * (" + flat + ")";
      } else {
        flat = positions[0];
        for (size_t i = 1; i < k; ++i)
          flat = "(" + flat + ") * " + str(spatial[i]) + " + " + positions[i];
      }
      flat = plane + " + " + flat;
    }
    emitter.open("if (" + better + ")");
    emitter.line(best + " = " + v + ";");
    emitter.line(where + " = " + flat + ";");
    emitter.close();
  }
  for (size_t i = 0; i < k + 1; ++i)
    emitter.close();
  if (kind == PoolKind::MaxIndices)
    return where;
  if (kind == PoolKind::Max)
    return best;
  return sum + " / (" + ctype + ")" + count;
}

FailureOr<std::string> emitMaxPool(MaxPoolOp op, ElementalEmitter &emitter,
                                   const ElementIndex &index) {
  return emitPool(op, emitter, index, PoolKind::Max, false, 0,
                  op.isChannelsLast());
}
FailureOr<std::string> emitMaxPoolIndices(MaxPoolIndicesOp op,
                                          ElementalEmitter &emitter,
                                          const ElementIndex &index) {
  return emitPool(op, emitter, index, PoolKind::MaxIndices, false,
                  op.getStorageOrder());
}
FailureOr<std::string> emitAveragePool(AveragePoolOp op,
                                       ElementalEmitter &emitter,
                                       const ElementIndex &index) {
  return emitPool(op, emitter, index, PoolKind::Average,
                  op.getCountIncludePad(), 0, op.isChannelsLast());
}

} // namespace

void attachConvModels(MLIRContext &context) {
  ConvOp::attachInterface<FunctionModel<ConvOp, emitConv>>(context);
  ConvTransposeOp::attachInterface<
      FunctionModel<ConvTransposeOp, emitConvTranspose>>(context);
  MaxPoolOp::attachInterface<FunctionModel<MaxPoolOp, emitMaxPool>>(context);
  MaxPoolIndicesOp::attachInterface<
      FunctionModel<MaxPoolIndicesOp, emitMaxPoolIndices>>(context);
  AveragePoolOp::attachInterface<FunctionModel<AveragePoolOp, emitAveragePool>>(
      context);
}

} // namespace kiln::cuda
