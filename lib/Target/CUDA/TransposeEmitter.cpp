// The transpose templates, for a kiln.transpose that moves the innermost dim.
// Elementwise producers are computed while reading, consumers while writing;
// tails are guarded. Two variants, the kernel's `variant` (kiln-tile-kernels
// chooses it, KernelConfiguration.h):
//  - Tiles (the general case): 32x32 shared-memory tiles (+1 column of
//    padding against bank conflicts), so that both the reads of the input's
//    innermost dim and the writes of the output's innermost dim are
//    coalesced.
//  - Short rows: when the output's innermost dim is short (at most
//    kShortRowElements: NCHW -> NHWC of an image, C = 3) and the input's
//    innermost dim becomes the output's second-innermost, a 32x32 tile would
//    hold only 32 x C useful elements and its write phase would run warps
//    that store C elements each. Instead thread t of a block takes output
//    row r0 + t (a pixel's C channels): for each c, a warp reads 32
//    consecutive input elements (consecutive rows are consecutive along the
//    input's innermost dim: one 128-byte line of f32), and parks them in
//    shared memory; the block then writes its rows' blockDim.x x C output
//    elements, which are contiguous, with consecutive threads on consecutive
//    elements (each store instruction of a warp is one contiguous 32-element
//    run). Rows are padded to an odd stride so the parking stores of a warp
//    (32 rows apart by that stride) hit 32 distinct banks.
#include "KernelTemplates.h"
#include "kiln/Dialect/Kiln/KernelKinds/KernelConfiguration.h"
#include "kiln/Dialect/Kiln/KernelKinds/KernelKinds.h"

using namespace mlir;

namespace kiln::cuda {
namespace {

/// Emits the output element at linear index "o" for every yield, reading the
/// transpose's result through |staged| where the yield asks for it there.
LogicalResult emitYields(ElementalEmitter &emitter, TransposeOp transpose,
                         const ElementIndex &outIndex,
                         const std::string &linear, const std::string &staged) {
  KernelOp kernel = emitter.getKernel();
  ArrayRef<int64_t> outShape = indexedShapeOf(transpose.getOutput());
  Value result = transpose.getOutput();
  emitter.setValueOverride(
      [&](Value v, const ElementIndex &index) -> std::optional<std::string> {
        std::string at = emitter.linearOf(index, outShape);
        if (v == result && (at == linear || at == "o"))
          return staged;
        return std::nullopt;
      });
  for (auto [k, v] : llvm::enumerate(kernel.getYield().getValues())) {
    // A yield of another shape (a view of the result) reads the same
    // element by its linear index.
    FailureOr<std::string> out = emitter.emit(
        v, indexedShapeOf(v) == outShape ? outIndex
                                         : ElementIndex::fromLinear("o"));
    if (failed(out)) {
      emitter.setValueOverride(nullptr);
      return failure();
    }
    emitter.line("out" + std::to_string(k) + "[o] = " +
                 ElementalEmitter::storeConversion(elementTypeOf(v), *out) +
                 ";");
  }
  emitter.setValueOverride(nullptr);
  return success();
}

/// The short-row variant (see the file comment); its preconditions hold.
LogicalResult emitShortRows(ElementalEmitter &emitter, TransposeOp transpose,
                            int64_t block, LaunchGeometry &launch) {
  ArrayRef<int64_t> perm = transpose.getPerm();
  int64_t rank = perm.size();
  ArrayRef<int64_t> outShape = indexedShapeOf(transpose.getOutput());
  int64_t width = outShape[rank - 1];
  Type type = elementTypeOf(transpose.getOutput());
  std::string ctype = ElementalEmitter::computeType(type);
  // An odd row stride: thread t parks element c at t * stride + c.
  int64_t stride = width | 1;

  int64_t count = elementCount(outShape);
  int64_t rows = count / std::max<int64_t>(width, 1);
  int64_t rowBlocks = (rows + block - 1) / block;
  std::string blockText = std::to_string(block);
  std::string widthText = std::to_string(width);
  std::string strideText = std::to_string(stride);
  emitter.line("// Transpose into " + std::to_string(rows) +
               " output rows of " + widthText + ": " + blockText +
               " rows per block, a row per thread read along the input's "
               "innermost dim, parked in shared memory at an odd stride (" +
               strideText + "), then written contiguously.");
  emitter.line("__shared__ " + ctype + " kiln_rows[" +
               std::to_string(block * stride) + "];");
  emitter.open("for (kiln_index_t rowBlock = blockIdx.x; rowBlock < " +
               std::to_string(rowBlocks) + "; rowBlock += gridDim.x)");
  emitter.line("__syncthreads();  // The previous rows have been written out.");
  // Read: thread t's row, one element per output channel c; across a warp
  // each c is 32 consecutive elements of the input's innermost dim.
  emitter.line("const kiln_index_t row = rowBlock * " + blockText +
               " + threadIdx.x;");
  emitter.open("if (row < " + std::to_string(rows) + ")");
  SmallVector<std::string> outDims;
  ElementIndex rowIndex = ElementIndex::fromLinear("row");
  for (int64_t d = 0; d + 1 < rank; ++d)
    outDims.push_back(emitter.dimOf(rowIndex, outShape.drop_back(), d));
  for (int64_t c = 0; c < width; ++c) {
    outDims.push_back(std::to_string(c));
    SmallVector<std::string> inDims(rank);
    for (int64_t i = 0; i < rank; ++i)
      inDims[perm[i]] = outDims[i];
    outDims.pop_back();
    FailureOr<std::string> value =
        emitter.emit(transpose.getData(), ElementIndex::fromDims(inDims));
    if (failed(value))
      return failure();
    emitter.line("kiln_rows[threadIdx.x * " + strideText + " + " +
                 std::to_string(c) + "] = " + *value + ";");
  }
  emitter.close();
  emitter.line("__syncthreads();");
  // Write: the block's rows are one contiguous run of the output.
  emitter.line("#pragma unroll");
  emitter.open("for (int e = threadIdx.x; e < " +
               std::to_string(block * width) + "; e += " + blockText + ")");
  emitter.line("const kiln_index_t o = rowBlock * " +
               std::to_string(block * width) + " + e;");
  emitter.open("if (o < " + std::to_string(count) + ")");
  std::string parked = stride == width
                           ? "kiln_rows[e]"
                           : "kiln_rows[(e / " + widthText + ") * " +
                                 strideText + " + e % " + widthText + "]";
  if (failed(emitYields(emitter, transpose, ElementIndex::fromLinear("o"), "o",
                        parked)))
    return failure();
  emitter.close();
  emitter.close();
  emitter.close();

  launch.block = block;
  launch.grid = std::clamp<int64_t>(
      int64_t(emitter.getKernel().getGridSize().value_or(rowBlocks)), 1,
      rowBlocks);
  return success();
}

} // namespace

LogicalResult emitTransposeKernel(ElementalEmitter &emitter,
                                  LaunchGeometry &launch) {
  KernelOp kernel = emitter.getKernel();
  // The verifier has checked the contract: one transpose moves the innermost
  // dim (the other transposes of the prologue keep it and are read
  // elementally, their index maps composed with the tile's), and its result
  // reaches the output only through pointwise ops and views of its size.
  auto transpose = cast<TransposeOp>(getKernelAnchor(kernel));
  ArrayRef<int64_t> perm = transpose.getPerm();
  int64_t rank = perm.size();

  ArrayRef<int64_t> inShape = indexedShapeOf(transpose.getData());
  ArrayRef<int64_t> outShape = indexedShapeOf(transpose.getOutput());
  int64_t block = int64_t(kernel.getBlockSize().value_or(0));
  if (block % 32 != 0 || block > 1024)
    return emitter.error(nullptr)
           << "block_size " << block << " is not a multiple of 32 up to 1024";
  KernelVariant variant = *getKernelVariant(kernel);
  if (std::string unmet = unmetVariantPrecondition(kernel, variant, block);
      !unmet.empty())
    return emitter.error(nullptr) << "cannot run its variant '"
                                  << stringifyKernelVariant(variant)
                                  << "': " << unmet;
  if (variant == KernelVariant::ShortRows)
    return emitShortRows(emitter, transpose, block, launch);
  if (variant != KernelVariant::Tiles)
    return emitter.error(nullptr) << "records variant '"
                                  << stringifyKernelVariant(variant)
                                  << "', which no transpose template runs";

  int64_t tileRows = block / 32;
  int64_t perThread =
      int64_t(kernel.getElementsPerThread().value_or(32 / tileRows));
  if (tileRows * perThread != 32)
    return emitter.error(nullptr)
           << "block_size / 32 x elements_per_thread = " << tileRows << " x "
           << perThread << " must cover the 32 rows of a tile";

  // Output dim `b` holds the input's innermost dim; the output's innermost
  // dim is input dim `a`.
  int64_t a = perm[rank - 1], b = outputDimOfInputInner(perm);
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
  if (failed(
          emitYields(emitter, transpose, outIndex, linear, "kiln_tile[tx][r]")))
    return failure();
  emitter.close();
  emitter.close();
  emitter.close();

  launch.block = block;
  launch.grid = int64_t(kernel.getGridSize().value_or(0));
  return success();
}

} // namespace kiln::cuda
