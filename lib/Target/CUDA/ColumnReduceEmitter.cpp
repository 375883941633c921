// The column reduction template (the channels_last_pool variant's window
// template for a sum, mean or max over a contiguous run of axes before the
// innermost, KernelConfiguration.h): the input seen as [outer, length,
// inner] (a global pool of an NHWC tensor: [N, H x W, C]), a block per
// (outer, row of `vectorsPerRow` 16-byte vectors of channels) whose threads
// split the length, each reading one vector of channels per step (a warp
// reads whole 32-byte sectors of several pixels), accumulating in the
// computation type; the partials meet by warp shuffles (the lanes perRow
// apart hold the same channels), then each warp's through shared memory,
// which the first warp combines by shuffles too; its first row writes the
// vector of results (a mean divided by the length, as the elemental model
// does).
//
// The prologue (pointwise ops, data movement such as a channel concat) is
// computed lane by lane, its kernel inputs of the input's shape loaded as
// vectors; a channel concat of the input's shape whose pieces are whole
// vectors (DenseNet's dense blocks) is loaded as one vector from the piece
// that holds it (isVectorConcat, one branch per piece and vector rather than
// per lane: the 17-piece concat before DenseNet-121's global mean took NVRTC
// 3.2 s to compile lane by lane); other reads element by element. Sums add in
// another order than the elemental model's serial loop (as the row templates'
// do); a maximum is the same (NaN wins, kiln_max).
#include "KernelTemplates.h"
#include "kiln/Dialect/Kiln/KernelKinds/KernelConfiguration.h"
#include "kiln/Dialect/Kiln/KernelKinds/OpClasses.h"

using namespace mlir;

namespace kiln::cuda {

LogicalResult emitColumnReductionKernel(ElementalEmitter &emitter,
                                        LaunchGeometry &launch) {
  KernelOp kernel = emitter.getKernel();
  int64_t block = int64_t(*kernel.getBlockSize());
  Operation *reduce = getChannelsLastWindow(kernel)->op;
  ColumnReductionExtents extents = *columnReductionExtents(reduce);
  int64_t width = int64_t(*kernel.getVectorWidth());
  int64_t vectors = extents.inner / width;
  int64_t perRow = columnReductionVectorsPerRow(reduce, width);
  int64_t rows = block / perRow;
  int64_t chunks = (vectors + perRow - 1) / perRow;
  int64_t blocks = extents.outer * chunks;
  Value data = reduce->getOperand(0), result = reduce->getResult(0);
  Type type = elementTypeOf(data);
  std::string ctype = ElementalEmitter::computeType(type);
  bool max = isa<ReduceMaxOp>(reduce), mean = isa<ReduceMeanOp>(reduce);
  auto combine = [&](const std::string &a, const std::string &b) {
    return max ? "kiln_max(" + a + ", " + b + ")" : a + " + " + b;
  };
  std::string initial =
      ElementalEmitter::floatLiteral(type, max ? -INFINITY : 0.0);

  emitter.line(
      "// Column " +
      std::string(max    ? "max"
                  : mean ? "mean"
                         : "sum") +
      " of [" + str(extents.outer) + ", " + str(extents.length) + ", " +
      str(extents.inner) + "] over its middle dim: a block per (" + "outer, " +
      str(perRow) + " vectors of " + str(width) + " channels), " + str(rows) +
      " rows of threads along the length, partials by warp shuffles.");
  if (block > 32)
    emitter.line("__shared__ " + ctype + " kiln_partial[" +
                 str(width * ((block + 31) / 32) * perRow) + "];");
  emitter.line("const kiln_index_t tx = threadIdx.x % " + str(perRow) +
               ", ty = threadIdx.x / " + str(perRow) + ";");
  emitter.open("for (kiln_index_t kiln_block = blockIdx.x; kiln_block < " +
               str(blocks) + "; kiln_block += gridDim.x)");
  emitter.line("const kiln_index_t outer = kiln_block / " + str(chunks) +
               ", cv = (kiln_block % " + str(chunks) + ") * " + str(perRow) +
               " + tx;");
  emitter.line(ctype + " acc[" + str(width) + "];");
  emitter.line("#pragma unroll");
  emitter.line("for (int l = 0; l < " + str(width) +
               "; ++l) acc[l] = " + initial + ";");
  emitter.open("if (cv < " + str(vectors) + ")");
  emitter.line("#pragma unroll 4");
  emitter.open("for (kiln_index_t kiln_row = ty; kiln_row < " +
               str(extents.length) + "; kiln_row += " + str(rows) + ")");
  emitter.line("const kiln_index_t kiln_at = (outer * " + str(extents.length) +
               " + kiln_row) * " + str(vectors) + " + cv;");
  // Every kernel input of the input's shape by vectors; the prologue (or
  // the input itself) lane by lane from them.
  std::vector<unsigned> loaded;
  for (auto [number, value] : llvm::enumerate(kernel.getInputs())) {
    if (indexedShapeOf(value) != indexedShapeOf(data))
      continue;
    loaded.push_back(number);
    std::string vector = vectorTypeName(elementTypeOf(value), width);
    emitter.line("const " + vector + " vin" + str(number) +
                 " = reinterpret_cast<const " + vector + "*>(" +
                 emitter.pointerName(number) + ")[kiln_at];");
  }
  SmallVector<ConcatOp> concats;
  kernel.getBody().walk([&](ConcatOp concat) {
    if (isVectorConcat(kernel, concat, width) &&
        indexedShapeOf(concat.getOutput()) == indexedShapeOf(data))
      concats.push_back(concat);
  });
  for (auto [c, concat] : llvm::enumerate(concats))
    emitConcatVector(emitter, concat, width, "kiln_at", "vcat" + str(c));
  std::vector<std::string> lanes;
  for (int64_t lane = 0; lane < width; ++lane)
    lanes.push_back("(kiln_at * " + str(width) + " + " + str(lane) + ")");
  // A vector concat's lanes, read at the lane's own index, are its vector's
  // elements; read elsewhere, its elemental model chooses the piece.
  emitter.setValueOverride(
      [&](Value value,
          const ElementIndex &index) -> std::optional<std::string> {
        auto concat = llvm::find_if(
            concats, [&](ConcatOp op) { return op.getOutput() == value; });
        auto lane = llvm::find(lanes, index.linear);
        if (concat == concats.end() || lane == lanes.end())
          return std::nullopt;
        return ElementalEmitter::loadConversion(
            elementTypeOf(value), "vcat" + str(concat - concats.begin()) +
                                      ".v[" + str(lane - lanes.begin()) + "]");
      });
  emitter.setLoadOverride(
      [&](unsigned argument,
          const ElementIndex &index) -> std::optional<std::string> {
        auto lane = llvm::find(lanes, index.linear);
        if (!llvm::is_contained(loaded, argument) || lane == lanes.end())
          return std::nullopt;
        return "vin" + str(argument) + ".v[" + str(lane - lanes.begin()) + "]";
      });
  for (auto [lane, at] : llvm::enumerate(lanes)) {
    FailureOr<std::string> value =
        emitter.emit(data, ElementIndex::fromLinear(at));
    if (failed(value)) {
      emitter.setLoadOverride(nullptr);
      emitter.setValueOverride(nullptr);
      return failure();
    }
    std::string acc = "acc[" + str(lane) + "]";
    emitter.line(acc + " = " + combine(acc, *value) + ";");
  }
  emitter.setLoadOverride(nullptr);
  emitter.setValueOverride(nullptr);
  emitter.close();
  emitter.close();
  // The block's rows meet: first within each warp by shuffles (the lanes
  // perRow apart hold the same channels), then the warps' partials through
  // shared memory, which the first warp combines the same way.
  int64_t warpLanes = std::min<int64_t>(block, 32);
  int64_t warps = (block + 31) / 32;
  int64_t slots = warps * perRow;
  auto shuffleDown = [&](int64_t lanes, const std::string &mask) {
    for (int64_t offset = lanes / 2; offset >= perRow; offset /= 2) {
      emitter.line("#pragma unroll");
      emitter.line("for (int l = 0; l < " + str(width) + "; ++l) acc[l] = " +
                   combine("acc[l]", "__shfl_down_sync(" + mask + ", acc[l], " +
                                         str(offset) + ")") +
                   ";");
    }
  };
  shuffleDown(warpLanes,
              warpLanes == 32 ? std::string("0xffffffffu")
                              : str((int64_t(1) << warpLanes) - 1) + "u");
  if (warps > 1) {
    std::string slot = "kiln_partial[l * " + str(slots) + " + ";
    emitter.open("if (threadIdx.x % 32 < " + str(perRow) + ")");
    emitter.line("#pragma unroll");
    emitter.line("for (int l = 0; l < " + str(width) + "; ++l) " + slot +
                 "threadIdx.x / 32 * " + str(perRow) + " + threadIdx.x % " +
                 str(perRow) + "] = acc[l];");
    emitter.close();
    emitter.line("__syncthreads();");
    emitter.open("if (threadIdx.x < 32)");
    emitter.line("#pragma unroll");
    emitter.line("for (int l = 0; l < " + str(width) + "; ++l) acc[l] = " +
                 initial + ";");
    // Lane i takes the slots i, i + 32, ...: all of channel vector i % perRow.
    emitter.open("for (kiln_index_t p = threadIdx.x; p < " + str(slots) +
                 "; p += 32)");
    emitter.line("#pragma unroll");
    emitter.line("for (int l = 0; l < " + str(width) + "; ++l) acc[l] = " +
                 combine("acc[l]", slot + "p]") + ";");
    emitter.close();
    // slots is a power of two: the lanes from it on hold the identity.
    shuffleDown(std::min<int64_t>(slots, 32), "0xffffffffu");
    emitter.close();
  }
  emitter.open("if (ty == 0 && cv < " + str(vectors) + ")");
  Type resultType = elementTypeOf(result);
  std::string vector = vectorTypeName(resultType, width);
  std::string value =
      mean ? "acc[l] / " +
                 ElementalEmitter::floatLiteral(type, double(extents.length))
           : std::string("acc[l]");
  emitter.line(vector + " y;");
  emitter.line("#pragma unroll");
  emitter.line("for (int l = 0; l < " + str(width) + "; ++l) y.v[l] = " +
               ElementalEmitter::storeConversion(resultType, value) + ";");
  for (size_t k = 0; k < kernel.getOutputs().size(); ++k)
    emitter.line("reinterpret_cast<" + vector + "*>(out" + str(k) +
                 ")[outer * " + str(vectors) + " + cv] = y;");
  emitter.close();
  // The next block of the grid-stride loop reuses the partials.
  if (block > 32)
    emitter.line("__syncthreads();");
  emitter.close();

  launch.block = block;
  launch.grid =
      std::clamp<int64_t>(int64_t(kernel.getGridSize().value_or(blocks)), 1,
                          std::max<int64_t>(blocks, 1));
  return success();
}

} // namespace kiln::cuda
