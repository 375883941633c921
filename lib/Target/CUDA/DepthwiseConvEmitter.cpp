// The channels-last depthwise convolution template (the channels_last_pool
// variant's window template for a depthwise conv, KernelConfiguration.h):
// each thread takes `elements_per_thread` adjacent output pixels of one row
// (P, 1 to 8; the last group of a row may reach past it, those pixels are
// neither computed into the output nor stored) x a vector of channels. Per
// window row it
//  1. loads the row's S weight vectors (stored [R, S, 1, C] by
//     kiln-pack-depthwise-weights) and converts them to the computation
//     type once;
//  2. walks the (P - 1) x stride + (S - 1) x dilation + 1 input columns the
//     P pixels read: each is loaded once as a vector (zeros where it lies in
//     the padding: a predicated load, no branch), converted once, and
//     multiplied into every (pixel, window column) tap that reads it.
// Everything in a row is unrolled and free of branches, so the conversions
// are shared by the taps (with a branch per tap, the CUDA compiler converted
// x and w again for every multiply-add: 2 conversions and a branch per FMA,
// 4.5 instructions per FMA for ConvNeXt's 7x7) and the FMAs issue back to
// back. Then the fused epilogue (bias, activation, anything pointwise the
// kernel absorbed) lane by lane, each pixel's channels stored as a vector.
//
// Numerics are the elemental model's (ConvModels.cpp): each accumulator
// starts at the bias and adds x * w over the window in row-major order (the
// columns are walked in order, so each pixel's taps are too); padding rows
// are skipped, and padding columns add 0 x w, which leaves the sum as it is
// for finite weights (the sign of a zero sum aside).
#include "KernelTemplates.h"
#include "kiln/Dialect/Kiln/KernelKinds/KernelConfiguration.h"

using namespace mlir;

namespace kiln::cuda {

LogicalResult emitDepthwiseConvKernel(ElementalEmitter &emitter,
                                      LaunchGeometry &launch) {
  KernelOp kernel = emitter.getKernel();
  auto conv = cast<ConvOp>(getChannelsLastWindow(kernel)->op);
  int64_t width = int64_t(*kernel.getVectorWidth());
  int64_t pixels = int64_t(kernel.getElementsPerThread().value_or(1));
  Value input = conv.getInput(), result = conv.getResult();
  Value stored = conv.getWeight().getDefiningOp<TransposeOp>().getData();
  unsigned inputNumber = *kernelInputNumber(kernel, input);
  unsigned weightNumber = *kernelInputNumber(kernel, stored);
  ArrayRef<int64_t> inShape = indexedShapeOf(input),
                    outShape = indexedShapeOf(result);
  ArrayRef<int64_t> window = indexedShapeOf(stored).take_front(2);
  ArrayRef<int64_t> strides = conv.getStrides(), pads = conv.getPads(),
                    dilations = conv.getDilations();
  int64_t channels = outShape.back(), vectors = channels / width;
  // Groups of P pixels per output row; the last may reach past the row.
  int64_t groups = (outShape[2] + pixels - 1) / pixels;
  bool partialGroup = outShape[2] % pixels != 0;
  // The input columns the P pixels read in one window row.
  int64_t columns =
      (pixels - 1) * strides[1] + (window[1] - 1) * dilations[1] + 1;
  Type type = elementTypeOf(result);
  std::string ctype = ElementalEmitter::computeType(type);
  int64_t units = outShape[0] * outShape[1] * groups * vectors;
  int64_t block = int64_t(kernel.getBlockSize().value_or(256));
  std::string xVector = vectorTypeName(elementTypeOf(input), width);
  std::string wVector = vectorTypeName(elementTypeOf(stored), width);

  emitter.line("// Channels-last depthwise conv " + str(window[0]) + "x" +
               str(window[1]) + ": " + str(units) + " units of " + str(pixels) +
               " output pixel" + (pixels == 1 ? "" : "s") + " x " + str(width) +
               " channels, one per thread and grid-stride step; per window "
               "row its " +
               str(window[1]) + " weight vectors ([R, S, 1, C]) and " +
               str(columns) +
               " input columns, each loaded and converted once.");
  emitter.open("for (kiln_index_t i = (kiln_index_t)blockIdx.x * blockDim.x + "
               "threadIdx.x; i < " +
               str(units) + "; i += (kiln_index_t)gridDim.x * blockDim.x)");
  // i = ((n * OH + oh) * groups + group) * vectors + cv; the thread's first
  // pixel is (n, oh, group * P).
  emitter.line("const kiln_index_t cv = i % " + str(vectors) + ", row = i / " +
               str(vectors * groups) + ", ow = (i / " + str(vectors) + ") % " +
               str(groups) + " * " + str(pixels) + ";");
  emitter.line("const kiln_index_t oh = row % " + str(outShape[1]) +
               ", n = row / " + str(outShape[1]) + ";");
  emitter.line(ctype + " acc[" + str(pixels) + "][" + str(width) + "];");
  // The accumulators start at the bias: a vector of a bias input, else its
  // elemental value per lane.
  Value bias = conv.getBias();
  std::optional<unsigned> biasNumber =
      bias ? kernelInputNumber(kernel, bias) : std::nullopt;
  if (biasNumber) {
    std::string vector = vectorTypeName(elementTypeOf(bias), width);
    emitter.line("const " + vector + " bias = reinterpret_cast<const " +
                 vector + "*>(" + emitter.pointerName(*biasNumber) + ")[cv];");
  }
  for (int64_t lane = 0; lane < width; ++lane) {
    std::string init = ElementalEmitter::floatLiteral(type, 0.0);
    if (biasNumber) {
      init = ElementalEmitter::loadConversion(elementTypeOf(bias),
                                              "bias.v[" + str(lane) + "]");
    } else if (bias) {
      FailureOr<std::string> value =
          emitter.emit(bias, ElementIndex::fromDims({"(cv * " + str(width) +
                                                     " + " + str(lane) + ")"}));
      if (failed(value))
        return failure();
      init = *value;
    }
    emitter.line("for (int p = 0; p < " + str(pixels) + "; ++p) acc[p][" +
                 str(lane) + "] = " + init + ";");
  }
  emitter.line("#pragma unroll");
  emitter.open("for (int kh = 0; kh < " + str(window[0]) + "; ++kh)");
  emitter.line("const kiln_index_t ih = oh * " + str(strides[0]) + " - " +
               str(pads[0]) + " + kh * " + str(dilations[0]) + ";");
  emitter.line("if (ih < 0 || ih >= " + str(inShape[1]) + ") continue;");
  emitter.line("const " + xVector + "* line = reinterpret_cast<const " +
               xVector + "*>(" + emitter.pointerName(inputNumber) +
               ") + (n * " + str(inShape[1]) + " + ih) * " +
               str(inShape[2] * vectors) + " + cv;");
  // 1. The row's weights, converted once.
  emitter.line(ctype + " w[" + str(window[1]) + "][" + str(width) + "];");
  emitter.line("#pragma unroll");
  emitter.open("for (int kw = 0; kw < " + str(window[1]) + "; ++kw)");
  emitter.line("const " + wVector + " wv = reinterpret_cast<const " + wVector +
               "*>(" + emitter.pointerName(weightNumber) + ")[(kh * " +
               str(window[1]) + " + kw) * " + str(vectors) + " + cv];");
  emitter.line("#pragma unroll");
  emitter.line(
      "for (int l = 0; l < " + str(width) + "; ++l) w[kw][l] = " +
      ElementalEmitter::loadConversion(elementTypeOf(stored), "wv.v[l]") + ";");
  emitter.close();
  // 2. Each input column once, into every tap that reads it: window column
  // kw of pixel p = (t - kw * dilation) / stride where that divides and p <
  // P (unrolled, the test is the CUDA compiler's; written per kw, it folds
  // early enough that the window rows unroll too, where a loop over p and
  // kw testing p * stride + kw * dilation == t left them rolled).
  emitter.line("#pragma unroll");
  emitter.open("for (int t = 0; t < " + str(columns) + "; ++t)");
  emitter.line("const kiln_index_t iw = ow * " + str(strides[1]) + " - " +
               str(pads[1]) + " + t;");
  emitter.line("const " + xVector + " xv = kiln_load_or_zero(line + iw * " +
               str(vectors) + ", iw >= 0 && iw < " + str(inShape[2]) + ");");
  emitter.line(ctype + " x[" + str(width) + "];");
  emitter.line("#pragma unroll");
  emitter.line(
      "for (int l = 0; l < " + str(width) + "; ++l) x[l] = " +
      ElementalEmitter::loadConversion(elementTypeOf(input), "xv.v[l]") + ";");
  emitter.line("#pragma unroll");
  emitter.open("for (int kw = 0; kw < " + str(window[1]) + "; ++kw)");
  emitter.line("const int d = t - kw * " + str(dilations[1]) + ";");
  emitter.open("if (d >= 0 && d % " + str(strides[1]) + " == 0 && d / " +
               str(strides[1]) + " < " + str(pixels) + ")");
  emitter.line("#pragma unroll");
  emitter.line("for (int l = 0; l < " + str(width) + "; ++l) acc[d / " +
               str(strides[1]) + "][l] += x[l] * w[kw][l];");
  emitter.close();
  emitter.close();
  emitter.close();
  emitter.close();

  // The epilogue, pixel by pixel and lane by lane: the conv's value at
  // output element (pixel * vectors + cv) * width + lane is acc[p][lane].
  // Pixels past the row (a last, partial group) are not there: neither their
  // epilogue's reads nor their store happen.
  emitter.line("const kiln_index_t first = (row * " + str(outShape[2]) +
               " + ow) * " + str(vectors) + " + cv;");
  for (int64_t p = 0; p < pixels; ++p) {
    bool guarded = partialGroup && p > 0;
    if (guarded)
      emitter.open("if (ow + " + str(p) + " < " + str(outShape[2]) + ")");
    std::string at = p ? "(first + " + str(p * vectors) + ")" : "first";
    std::vector<std::string> lanes, keys;
    for (int64_t lane = 0; lane < width; ++lane) {
      lanes.push_back("(" + at + " * " + str(width) + " + " + str(lane) + ")");
      keys.push_back(ElementIndex::fromLinear(lanes.back()).key());
    }
    bool elsewhere = false;
    emitter.setValueOverride(
        [&](Value value,
            const ElementIndex &index) -> std::optional<std::string> {
          if (value != result)
            return std::nullopt;
          auto lane = llvm::find(keys, index.key());
          if (lane != keys.end())
            return "acc[" + str(p) + "][" + str(lane - keys.begin()) + "]";
          elsewhere = true;
          return std::nullopt;
        });
    for (auto [k, value] : llvm::enumerate(kernel.getYield().getValues())) {
      std::string vector = vectorTypeName(elementTypeOf(value), width);
      std::string name = "y" + str(k) + "_" + str(p);
      emitter.line(vector + " " + name + ";");
      for (auto [lane, index] : llvm::enumerate(lanes)) {
        FailureOr<std::string> computed =
            emitter.emit(value, ElementIndex::fromLinear(index));
        if (failed(computed)) {
          emitter.setValueOverride(nullptr);
          return failure();
        }
        emitter.line(
            name + ".v[" + str(lane) + "] = " +
            ElementalEmitter::storeConversion(elementTypeOf(value), *computed) +
            ";");
      }
      emitter.line("reinterpret_cast<" + vector + "*>(out" + str(k) + ")[" +
                   at + "] = " + name + ";");
    }
    emitter.setValueOverride(nullptr);
    if (guarded)
      emitter.close();
    if (elsewhere)
      return emitter.error(nullptr)
             << "reads its depthwise conv at another element than the one it "
                "writes; the template computes each conv value once";
  }
  emitter.close();

  launch.block = block;
  launch.grid = unitGrid(kernel, units, block);
  return success();
}

} // namespace kiln::cuda
