// The channels-last depthwise convolution template (the channels_last_pool
// variant's window template for a depthwise conv, KernelConfiguration.h):
// each thread takes `elements_per_thread` adjacent output pixels of one row
// (P: 1, or 2-4 with stride 1 along W) x a vector of channels (16 bytes: 8
// f16/bf16 or 4 f32 channels, narrower when C requires, one channel when C
// is odd). Per window row it loads the P + (S - 1) x dilation input columns
// those pixels read once (16-byte vectors of the pixel's channels), then
// per window column the weight (stored [R, S, 1, C] by
// kiln-pack-depthwise-weights) as one vector, and accumulates in the
// computation type; then it computes the fused epilogue (bias, activation,
// anything pointwise the kernel absorbed) lane by lane and stores each
// pixel's channels as one vector. With P = 4 a 3x3 conv loads 6 input
// vectors per window row for 4 outputs instead of 12.
//
// Numerics are the elemental model's (ConvModels.cpp): each accumulator
// starts at the bias and adds x * w over the window in row-major order,
// padding cells skipped.
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
  ArrayRef<int64_t> inShape = shapeOf(input), outShape = shapeOf(result);
  ArrayRef<int64_t> window = shapeOf(stored).take_front(2);
  ArrayRef<int64_t> strides = conv.getStrides(), pads = conv.getPads(),
                    dilations = conv.getDilations();
  int64_t channels = outShape.back(), vectors = channels / width;
  int64_t groups = outShape[2] / pixels; // Of P pixels per output row.
  // The input columns the P pixels read in one window row.
  int64_t columns =
      (pixels - 1) * strides[1] + (window[1] - 1) * dilations[1] + 1;
  Type type = elementTypeOf(result);
  std::string ctype = ElementalEmitter::computeType(type);
  int64_t units = elementCount(outShape) / width / pixels;
  int64_t block = int64_t(kernel.getBlockSize().value_or(256));
  std::string xVector = vectorTypeName(elementTypeOf(input), width);
  std::string wVector = vectorTypeName(elementTypeOf(stored), width);

  emitter.line("// Channels-last depthwise conv " + str(window[0]) + "x" +
               str(window[1]) + ": " + str(units) + " units of " + str(pixels) +
               " output pixel" + (pixels == 1 ? "" : "s") + " x " + str(width) +
               " channels, one per thread and grid-stride step; input and "
               "weight ([R, S, 1, C]) read as vectors, " +
               str(columns) + " input columns per window row.");
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
  emitter.open("for (kiln_index_t kh = 0; kh < " + str(window[0]) + "; ++kh)");
  emitter.line("const kiln_index_t ih = oh * " + str(strides[0]) + " - " +
               str(pads[0]) + " + kh * " + str(dilations[0]) + ";");
  emitter.line("if (ih < 0 || ih >= " + str(inShape[1]) + ") continue;");
  emitter.line("const kiln_index_t line = (n * " + str(inShape[1]) +
               " + ih) * " + str(inShape[2]) + ";");
  // The row's columns, each loaded once; columns in the padding are skipped.
  emitter.line(xVector + " x[" + str(columns) + "];");
  emitter.line("bool inside[" + str(columns) + "];");
  emitter.line("#pragma unroll");
  emitter.open("for (int t = 0; t < " + str(columns) + "; ++t)");
  emitter.line("const kiln_index_t iw = ow * " + str(strides[1]) + " - " +
               str(pads[1]) + " + t;");
  emitter.line("inside[t] = iw >= 0 && iw < " + str(inShape[2]) + ";");
  emitter.line("if (inside[t]) x[t] = reinterpret_cast<const " + xVector +
               "*>(" + emitter.pointerName(inputNumber) + ")[(line + iw) * " +
               str(vectors) + " + cv];");
  emitter.close();
  emitter.line("#pragma unroll");
  emitter.open("for (int kw = 0; kw < " + str(window[1]) + "; ++kw)");
  emitter.line("const " + wVector + " w = reinterpret_cast<const " + wVector +
               "*>(" + emitter.pointerName(weightNumber) + ")[(kh * " +
               str(window[1]) + " + kw) * " + str(vectors) + " + cv];");
  emitter.line("#pragma unroll");
  emitter.open("for (int p = 0; p < " + str(pixels) + "; ++p)");
  std::string t = "p * " + str(strides[1]) + " + kw * " + str(dilations[1]);
  emitter.open("if (inside[" + t + "])");
  emitter.line("#pragma unroll");
  emitter.line(
      "for (int l = 0; l < " + str(width) + "; ++l) acc[p][l] += " +
      ElementalEmitter::loadConversion(elementTypeOf(input),
                                       "x[" + t + "].v[l]") +
      " * " +
      ElementalEmitter::loadConversion(elementTypeOf(stored), "w.v[l]") + ";");
  emitter.close();
  emitter.close();
  emitter.close();
  emitter.close();

  // The epilogue, pixel by pixel and lane by lane: the conv's value at
  // output element (pixel * vectors + cv) * width + lane is acc[p][lane].
  emitter.line("const kiln_index_t first = (row * " + str(outShape[2]) +
               " + ow) * " + str(vectors) + " + cv;");
  for (int64_t p = 0; p < pixels; ++p) {
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
