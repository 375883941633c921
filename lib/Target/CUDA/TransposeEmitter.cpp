// The tiled transpose template: a kiln.transpose that moves the innermost dim
// goes through 32x32 shared-memory tiles (+1 column of padding against bank
// conflicts) so that both the reads of the input's innermost dim and the
// writes of the output's innermost dim are coalesced. Elementwise producers
// are computed while reading, consumers while writing; tails are guarded.
#include "KernelTemplates.h"

using namespace mlir;

namespace kiln::cuda {

LogicalResult emitTransposeKernel(ElementalEmitter &emitter,
                                  LaunchGeometry &launch) {
  KernelOp kernel = emitter.getKernel();
  FailureOr<TransposeOp> single = emitter.singleOp<TransposeOp>("a transpose");
  if (failed(single))
    return failure();
  TransposeOp transpose = *single;
  ArrayRef<int64_t> perm = transpose.getPerm();
  int64_t rank = perm.size();
  if (rank < 2 || perm[rank - 1] == rank - 1)
    return emitLoopKernel(emitter, launch); // The innermost dim stays put.

  ArrayRef<int64_t> inShape = shapeOf(transpose.getData());
  ArrayRef<int64_t> outShape = shapeOf(transpose.getOutput());
  int64_t count = elementCount(outShape);
  for (Value output : kernel.getOutputs())
    if (elementCount(shapeOf(output)) != count)
      return emitter.error(nullptr)
             << "has an output of " << elementCount(shapeOf(output))
             << " elements; the transpose gives " << count;
  int64_t block = getIntAttr(kernel, "block_size", 0);
  if (block % 32 != 0 || block > 1024)
    return emitter.error(nullptr)
           << "block_size " << block << " is not a multiple of 32 up to 1024";
  int64_t tileRows = block / 32;
  int64_t perThread = getIntAttr(kernel, "elements_per_thread", 32 / tileRows);
  if (tileRows * perThread != 32)
    return emitter.error(nullptr)
           << "block_size / 32 x elements_per_thread = " << tileRows << " x "
           << perThread << " must cover the 32 rows of a tile";

  // Output dim `b` holds the input's innermost dim; the output's innermost
  // dim is input dim `a`.
  int64_t a = perm[rank - 1], b = 0;
  for (int64_t i = 0; i < rank; ++i)
    if (perm[i] == rank - 1)
      b = i;
  int64_t inner = inShape[rank - 1], outer = inShape[a];
  int64_t tilesInner = (inner + 31) / 32, tilesOuter = (outer + 31) / 32;
  SmallVector<int64_t> batchDims, batchShape;
  for (int64_t d = 0; d < rank; ++d)
    if (d != b && d != rank - 1) {
      batchDims.push_back(d);
      batchShape.push_back(outShape[d]);
    }
  int64_t batch = elementCount(batchShape);
  int64_t tiles = batch * tilesInner * tilesOuter;
  Type type = elementTypeOf(transpose.getOutput());

  emitter.line("// Transpose " + std::to_string(inner) + " x " +
               std::to_string(outer) + " planes (" + std::to_string(batch) +
               " of them) in 32x32 tiles; " + std::to_string(perThread) +
               " tile rows per thread.");
  emitter.line("__shared__ " + ElementalEmitter::computeType(type) +
               " kiln_tile[32][33];");
  emitter.line("const int tx = threadIdx.x & 31, ty = threadIdx.x >> 5;");
  emitter.open("for (kiln_index_t tile = blockIdx.x; tile < " +
               std::to_string(tiles) + "; tile += gridDim.x)");
  emitter.line("const kiln_index_t tileInner = tile % " +
               std::to_string(tilesInner) + ";");
  emitter.line("const kiln_index_t tileOuter = (tile / " +
               std::to_string(tilesInner) + ") % " +
               std::to_string(tilesOuter) + ";");
  emitter.line("const kiln_index_t plane = tile / " +
               std::to_string(tilesInner * tilesOuter) + ";");
  SmallVector<std::string> outDims(rank, "0");
  ElementIndex planeIndex = ElementIndex::fromLinear("plane");
  for (auto [j, d] : llvm::enumerate(batchDims))
    outDims[d] = emitter.dimOf(planeIndex, batchShape, j);
  emitter.line("__syncthreads();  // The previous tile has been written out.");

  // Read: coalesced along the input's innermost dim.
  emitter.line("#pragma unroll");
  emitter.open("for (int r = ty; r < 32; r += " + std::to_string(tileRows) +
               ")");
  emitter.line("const kiln_index_t inInner = tileInner * 32 + tx, "
               "inOuter = tileOuter * 32 + r;");
  emitter.open("if (inInner < " + std::to_string(inner) + " && inOuter < " +
               std::to_string(outer) + ")");
  SmallVector<std::string> inDims(rank);
  for (int64_t i = 0; i < rank; ++i)
    inDims[perm[i]] = outDims[i];
  inDims[rank - 1] = "inInner";
  inDims[a] = "inOuter";
  FailureOr<std::string> value =
      emitter.emit(transpose.getData(), ElementIndex::fromDims(inDims));
  if (failed(value))
    return failure();
  emitter.line("kiln_tile[r][tx] = " + *value + ";");
  emitter.close();
  emitter.close();
  emitter.line("__syncthreads();");

  // Write: coalesced along the output's innermost dim.
  emitter.line("#pragma unroll");
  emitter.open("for (int r = ty; r < 32; r += " + std::to_string(tileRows) +
               ")");
  emitter.line("const kiln_index_t outInner = tileOuter * 32 + tx, "
               "outOuter = tileInner * 32 + r;");
  emitter.open("if (outInner < " + std::to_string(outer) + " && outOuter < " +
               std::to_string(inner) + ")");
  outDims[rank - 1] = "outInner";
  outDims[b] = "outOuter";
  ElementIndex outIndex = ElementIndex::fromDims(outDims);
  std::string linear = emitter.linearOf(outIndex, outShape);
  emitter.line("const kiln_index_t o = " + linear + ";");
  Value result = transpose.getOutput();
  emitter.setValueOverride(
      [&](Value v, const ElementIndex &index) -> std::optional<std::string> {
        std::string at = emitter.linearOf(index, outShape);
        if (v == result && (at == linear || at == "o"))
          return std::string("kiln_tile[tx][r]");
        return std::nullopt;
      });
  for (auto [k, v] : llvm::enumerate(kernel.getYield().getValues())) {
    // A yield of another shape (a view of the result) reads the same
    // element by its linear index.
    FailureOr<std::string> out = emitter.emit(
        v, shapeOf(v) == outShape ? outIndex : ElementIndex::fromLinear("o"));
    if (failed(out))
      return failure();
    emitter.line("out" + std::to_string(k) + "[o] = " +
                 ElementalEmitter::storeConversion(elementTypeOf(v), *out) +
                 ";");
  }
  emitter.setValueOverride(nullptr);
  emitter.close();
  emitter.close();
  emitter.close();

  launch.block = block;
  launch.grid = getIntAttr(kernel, "grid_size", 0);
  return success();
}

} // namespace kiln::cuda
