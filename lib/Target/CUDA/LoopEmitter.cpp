// The loop template (pointwise and data_movement kernels): a grid-stride loop
// in which each thread computes `elements_per_thread` consecutive elements,
// or consecutive vectors of `vector_width` elements with aligned vector loads
// and stores.
#include "KernelTemplates.h"

using namespace mlir;

namespace kiln::cuda {

int64_t getIntAttr(KernelOp kernel, StringRef name, int64_t fallback) {
  if (auto attr = kernel->getAttrOfType<IntegerAttr>(name))
    return attr.getInt();
  return fallback;
}

namespace {

std::string vectorType(Type elementType, int64_t width) {
  return "kiln_vec<" + ElementalEmitter::storageType(elementType) + ", " +
         std::to_string(width) + ">";
}

} // namespace

LogicalResult emitLoopKernel(ElementalEmitter &emitter,
                             LaunchGeometry &launch) {
  KernelOp kernel = emitter.getKernel();
  YieldOp yield = kernel.getYield();
  int64_t count = elementCount(shapeOf(kernel.getOutputs()[0]));
  for (Value output : kernel.getOutputs())
    if (elementCount(shapeOf(output)) != count)
      return emitter.error(nullptr)
             << "has outputs of different element counts; the loop template "
                "writes all outputs at one linear index";
  int64_t perThread = getIntAttr(kernel, "elements_per_thread", 1);
  int64_t width = getIntAttr(kernel, "vector_width", 1);
  if (width > 16 || (width & (width - 1)) != 0)
    return emitter.error(nullptr)
           << "vector_width " << width << " is not a power of two <= 16";
  if (count % width != 0)
    return emitter.error(nullptr)
           << "vector_width " << width << " does not divide the " << count
           << " output elements";

  int64_t vectors = count / width;
  std::string unit = width == 1 ? "element" : "vector";
  emitter.line(
      "// " + std::to_string(count) + " elements; " +
      std::to_string(perThread) + " consecutive " + unit +
      (perThread == 1 ? "" : "s") + " per thread" +
      (width == 1 ? ""
                  : " of " + std::to_string(width) + " elements (vectorised)") +
      ", grid-stride.");
  emitter.line("const kiln_index_t kiln_count = " + std::to_string(vectors) +
               ";");
  emitter.open("for (kiln_index_t chunk = (kiln_index_t)blockIdx.x * "
               "blockDim.x + threadIdx.x; " +
               (perThread == 1 ? std::string("chunk")
                               : "chunk * " + std::to_string(perThread)) +
               " < kiln_count; chunk += (kiln_index_t)gridDim.x * blockDim.x)");
  if (perThread > 1) {
    emitter.line("#pragma unroll");
    emitter.open("for (int e = 0; e < " + std::to_string(perThread) + "; ++e)");
    emitter.line("const kiln_index_t i = chunk * " + std::to_string(perThread) +
                 " + e;");
    emitter.line("if (i >= kiln_count) break;");
  } else {
    emitter.line("const kiln_index_t i = chunk;");
  }

  unsigned numInputs = emitter.getNumInputs();
  if (width == 1) {
    for (auto [k, value] : llvm::enumerate(yield.getValues())) {
      FailureOr<std::string> result =
          emitter.emit(value, ElementIndex::fromLinear("i"));
      if (failed(result))
        return failure();
      emitter.line(
          "out" + std::to_string(k) + "[i] = " +
          ElementalEmitter::storeConversion(elementTypeOf(value), *result) +
          ";");
    }
  } else {
    // Lanes: element i * width + lane. Inputs read at that linear index come
    // from one vector load each; other reads stay scalar.
    std::vector<std::string> lanes;
    for (int64_t lane = 0; lane < width; ++lane) {
      lanes.push_back("i" + std::to_string(lane));
      emitter.line("const kiln_index_t " + lanes.back() + " = i * " +
                   std::to_string(width) + " + " + std::to_string(lane) + ";");
    }
    std::vector<bool> loaded(numInputs, false);
    emitter.setLoadOverride(
        [&](unsigned argument,
            const ElementIndex &index) -> std::optional<std::string> {
          Value input = kernel.getInputs()[argument];
          if (elementCount(shapeOf(input)) != count || index.linear.empty())
            return std::nullopt;
          auto lane = llvm::find(lanes, index.linear);
          if (lane == lanes.end())
            return std::nullopt;
          std::string name = "vin" + std::to_string(argument);
          if (!loaded[argument]) {
            std::string type = vectorType(elementTypeOf(input), width);
            emitter.line("const " + type + " " + name +
                         " = reinterpret_cast<const " + type + "*>(in" +
                         std::to_string(argument) + ")[i];");
            loaded[argument] = true;
          }
          return name + ".v[" + std::to_string(lane - lanes.begin()) + "]";
        });
    for (auto [k, value] : llvm::enumerate(yield.getValues())) {
      std::string type = vectorType(elementTypeOf(value), width);
      std::string name = "vout" + std::to_string(k);
      std::vector<std::string> results;
      for (const std::string &lane : lanes) {
        FailureOr<std::string> result =
            emitter.emit(value, ElementIndex::fromLinear(lane));
        if (failed(result))
          return failure();
        results.push_back(*result);
      }
      emitter.line(type + " " + name + ";");
      for (auto [lane, result] : llvm::enumerate(results))
        emitter.line(
            name + ".v[" + std::to_string(lane) + "] = " +
            ElementalEmitter::storeConversion(elementTypeOf(value), result) +
            ";");
      emitter.line("reinterpret_cast<" + type + "*>(out" + std::to_string(k) +
                   ")[i] = " + name + ";");
    }
    emitter.setLoadOverride(nullptr);
  }
  if (perThread > 1)
    emitter.close();
  emitter.close();

  launch.block = getIntAttr(kernel, "block_size", 0);
  launch.grid = getIntAttr(kernel, "grid_size", 0);
  return success();
}

} // namespace kiln::cuda
