// The channels-last pool template: a pointwise kernel that is one NHWC
// kiln.max_pool or kiln.average_pool of floats gives each thread one output
// pixel x a vector of channels (16 bytes: 8 f16/bf16 or 4 f32 channels,
// narrower when C is not a multiple of that). Channels are contiguous, so
// for each window cell a warp's 32 x 16-byte loads are whole channel runs of
// a few input pixels (C = 64 f16: four fully used 128-byte lines, one per
// output pixel; the stride skips the lines between, which the neighbouring
// window cells read from L1/L2), and its stores are one contiguous 512-byte
// run: one 16-byte access per thread instead of one 2-byte access per
// channel, and the window's index arithmetic once per vector.
//
// Numerics are the elemental model's (ConvModels.cpp), lane by lane: values
// in the computation type (float for f16/bf16), the first maximum wins and a
// NaN beats any number, padding never takes part in a maximum; the average
// sums in the computation type in window order and divides by the count of
// cells inside the input (or, with count_include_pad, inside the padded
// input). kiln-tile-kernels chooses the template (the kernel's `variant` is
// channels_last_pool) and its vector_width (KernelConfiguration.h); a pool
// whose channels allow no vector of two keeps the loop template (one channel
// per thread).
#include "KernelTemplates.h"
#include "kiln/Dialect/Kiln/KernelKinds/KernelConfiguration.h"

using namespace mlir;

namespace kiln::cuda {
namespace {

struct PoolWindow {
  ArrayRef<int64_t> kernel, strides, pads, dilations;
};

template <typename PoolOpT> PoolWindow windowOf(PoolOpT op) {
  return {op.getKernelShape(), op.getStrides(), op.getPads(),
          op.getDilations()};
}

} // namespace

LogicalResult emitChannelsLastPoolKernel(ElementalEmitter &emitter,
                                         LaunchGeometry &launch) {
  KernelOp kernel = emitter.getKernel();
  Operation *pool = getChannelsLastPool(kernel);
  int64_t width = int64_t(*kernel.getVectorWidth());
  bool average = isa<AveragePoolOp>(pool);
  bool countIncludePad = false;
  PoolWindow window;
  if (auto op = dyn_cast<AveragePoolOp>(pool)) {
    countIncludePad = op.getCountIncludePad();
    window = windowOf(op);
  } else {
    window = windowOf(cast<MaxPoolOp>(pool));
  }
  Value input = pool->getOperand(0), result = pool->getResult(0);
  ArrayRef<int64_t> inShape = indexedShapeOf(input),
                    outShape = indexedShapeOf(result);
  size_t k = inShape.size() - 2;
  ArrayRef<int64_t> spatial = inShape.slice(1, k);
  int64_t channels = outShape.back(), vectors = channels / width;
  Type type = elementTypeOf(result);
  std::string ctype = ElementalEmitter::computeType(type);
  std::string vector = vectorTypeName(type, width);
  int64_t units = elementCount(outShape) / width;
  int64_t block = int64_t(kernel.getBlockSize().value_or(256));
  // A run-time batch (issue 18): the units are counted from the dim
  // parameters; the batch is the pixel's outermost dim, which no index
  // needs the size of.
  FailureOr<std::optional<RunTimeCount>> runTime = getRunTimeCount(kernel);
  if (failed(runTime))
    return failure();
  std::string unitCount = str(units);
  if (*runTime) {
    unitCount = "kiln_units";
    emitter.line("const kiln_index_t kiln_units = (kiln_index_t)(" +
                 (*runTime)->code() + ") / " + str(width) + ";");
  }

  emitter.line(
      "// Channels-last " + std::string(average ? "average" : "max") +
      " pool: " +
      (*runTime ? (*runTime)->count.str() + " / " + str(width) : str(units)) +
      " units of one output pixel x " + str(width) + " channels (one " +
      str(width * (int64_t)((type.getIntOrFloatBitWidth() + 7) / 8)) +
      "-byte vector), one per thread and grid-stride step.");
  emitter.open("for (kiln_index_t i = (kiln_index_t)blockIdx.x * blockDim.x + "
               "threadIdx.x; i < " +
               unitCount + "; i += (kiln_index_t)gridDim.x * blockDim.x)");
  emitter.line("const kiln_index_t cv = i % " + str(vectors) +
               ", pixel = i / " + str(vectors) + ";");
  // The pixel's dims [n, spatial...] of the output.
  SmallVector<std::string> pixelDims =
      emitter.dimsOf(ElementIndex::fromLinear("pixel"), outShape.drop_back());
  if (average) {
    emitter.line(ctype + " sum[" + str(width) + "];");
    emitter.line("#pragma unroll");
    emitter.line("for (int l = 0; l < " + str(width) + "; ++l) sum[l] = " +
                 ElementalEmitter::floatLiteral(type, 0.0) + ";");
    emitter.line("kiln_index_t count = 0;");
  } else {
    emitter.line(ctype + " best[" + str(width) + "];");
    emitter.line("#pragma unroll");
    emitter.line("for (int l = 0; l < " + str(width) + "; ++l) best[l] = " +
                 ElementalEmitter::floatLiteral(type, -INFINITY) + ";");
    emitter.line("bool seen = false;");
  }
  SmallVector<std::string> positions;
  for (size_t i = 0; i < k; ++i) {
    std::string kk = "k" + str(i), q = "q" + str(i);
    emitter.line("#pragma unroll");
    emitter.open("for (kiln_index_t " + kk + " = 0; " + kk + " < " +
                 str(window.kernel[i]) + "; ++" + kk + ")");
    emitter.line("const kiln_index_t " + q + " = " + pixelDims[1 + i] + " * " +
                 str(window.strides[i]) + " - " + str(window.pads[i]) + " + " +
                 kk + " * " + str(window.dilations[i]) + ";");
    positions.push_back(q);
  }
  auto inRange = [&](auto low, auto high) {
    std::string text;
    for (size_t i = 0; i < k; ++i)
      text += (i ? " && " : "") + positions[i] + " >= " + str(low(i)) + " && " +
              positions[i] + " < " + str(high(i));
    return text;
  };
  if (average && countIncludePad)
    emitter.line(
        "if (" +
        inRange([&](size_t i) { return -window.pads[i]; },
                [&](size_t i) { return spatial[i] + window.pads[k + i]; }) +
        ") ++count;");
  emitter.open("if (" +
               inRange([](size_t) { return int64_t(0); },
                       [&](size_t i) { return spatial[i]; }) +
               ")");
  // The input pixel's linear index, in vectors: ((n * H + q0) * W + q1)...
  std::string at = pixelDims[0];
  for (size_t i = 0; i < k; ++i)
    at = "(" + at + ") * " + str(spatial[i]) + " + " + positions[i];
  emitter.line("const " + vector + " x = reinterpret_cast<const " + vector +
               "*>(" + emitter.pointerName(0) + ")[(" + at + ") * " +
               str(vectors) + " + cv];");
  emitter.line("#pragma unroll");
  emitter.open("for (int l = 0; l < " + str(width) + "; ++l)");
  emitter.line("const " + ctype + " v = " +
               ElementalEmitter::loadConversion(type, "x.v[l]") + ";");
  if (average) {
    emitter.line("sum[l] += v;");
  } else {
    // The elemental model's test: the first maximum wins; a NaN beats any
    // number. Every lane sees the same cells, so one `seen` serves them all.
    emitter.line("if (!seen || v > best[l] || (v != v && best[l] == best[l])) "
                 "best[l] = v;");
  }
  emitter.close();
  if (!average)
    emitter.line("seen = true;");
  else if (!countIncludePad)
    emitter.line("++count;");
  emitter.close();
  for (size_t i = 0; i < k; ++i)
    emitter.close();
  emitter.line(vector + " y;");
  emitter.line("#pragma unroll");
  std::string value = average ? "sum[l] / (" + ctype + ")count" : "best[l]";
  emitter.line("for (int l = 0; l < " + str(width) + "; ++l) y.v[l] = " +
               ElementalEmitter::storeConversion(type, value) + ";");
  for (size_t o = 0; o < kernel.getOutputs().size(); ++o)
    emitter.line("reinterpret_cast<" + vector + "*>(out" + str(o) +
                 ")[i] = y;");
  emitter.close();

  launch.block = block;
  // With a run-time batch: the grid at the ranges' largest count; the
  // runtime lowers it.
  launch.grid = *runTime
                    ? std::max<int64_t>(kernel.getGridSize().value_or(1), 1)
                    : unitGrid(kernel, units, block);
  return success();
}

} // namespace kiln::cuda
