// The configuration part of the kernel kinds' contract: each kind's template
// variants, their preconditions, the choice kiln-tile-kernels records and
// the check of a recorded choice (KernelConfiguration.h).
#include "kiln/Dialect/Kiln/KernelKinds/KernelConfiguration.h"

#include "kiln/Dialect/Kiln/IR/ShapeUtils.h"
#include "kiln/Dialect/Kiln/KernelKinds/KernelKinds.h"
#include "kiln/Dialect/Kiln/KernelKinds/OpClasses.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <algorithm>
#include <numeric>

using namespace mlir;

namespace kiln {
namespace {

Type elementTypeOf(Value value) {
  return getElementTypeOrSelf(value.getType());
}

/// short_rows: the output's rows are short and the input's innermost dim
/// becomes the output's second-innermost, so a block of threads, one output
/// row each, reads along the input's innermost dim and its staged rows (at
/// an odd stride, in the computation type) fit the shared memory.
std::string shortRowsPrecondition(KernelOp kernel,
                                  std::optional<int64_t> blockSize) {
  auto transpose = dyn_cast_or_null<TransposeOp>(getKernelAnchor(kernel));
  if (!transpose)
    return "it has no tiled transpose";
  ArrayRef<int64_t> perm = transpose.getPerm();
  int64_t rank = perm.size();
  int64_t width = shapeOf(transpose.getOutput()).back();
  if (width > kShortRowElements)
    return "its output rows have " + std::to_string(width) +
           " elements, more than " + std::to_string(kShortRowElements);
  if (outputDimOfInputInner(perm) != rank - 2)
    return "the input's innermost dim does not become the output's "
           "second-innermost";
  Type type = elementTypeOf(transpose.getOutput());
  int64_t computeBytes = type.isF16() || type.isBF16() || type.isF32() ? 4 : 8;
  int64_t stride = width | 1;
  if (blockSize && *blockSize * stride * computeBytes > kShortRowSharedBytes)
    return "block_size " + std::to_string(*blockSize) + " stages " +
           std::to_string(*blockSize * stride * computeBytes) +
           " bytes of rows, more than " + std::to_string(kShortRowSharedBytes);
  return "";
}

/// warp_rows: warpRowLanes threads per row (a warp, or part of one for short
/// rows), rows_per_block rows per block, so the block is rows_per_block x
/// lanes threads, whole warps. block_rows: a block of whole warps per row.
std::string rowsPrecondition(KernelOp kernel, bool warp,
                             std::optional<int64_t> blockSize) {
  Operation *anchor = getKernelAnchor(kernel);
  if (!anchor || !isRowReduction(anchor))
    return "it has no row reduction";
  std::optional<uint64_t> rowsPerBlock = kernel.getRowsPerBlock();
  if (!warp && rowsPerBlock && *rowsPerBlock != 1)
    return "rows_per_block is " + std::to_string(*rowsPerBlock) +
           ", not 1 (a block per row)";
  // A reduction's row is read in vectors of a power of two of up to 16
  // elements dividing it (the layer_norm and softmax templates check their
  // own); one of integers element by element.
  if (std::optional<uint64_t> recorded = kernel.getVectorWidth();
      recorded && *recorded > 1 &&
      !isa<LayerNormOp, SoftmaxOp, LogSoftmaxOp>(anchor)) {
    int64_t width = int64_t(*recorded), length = rowReduceLength(kernel);
    if (!isa<FloatType>(elementTypeOf(anchor->getOperand(0))))
      return "vector_width " + std::to_string(width) +
             " on a reduction of integers, which reads elements";
    if (width > 16 || (width & (width - 1)) != 0 ||
        (length > 0 && length % width != 0))
      return "vector_width " + std::to_string(width) +
             " is not a power of two up to 16 dividing the rows of " +
             std::to_string(length) + " elements";
  }
  if (!blockSize || *blockSize <= 0)
    return "";
  if (*blockSize % 32 != 0)
    return "block_size " + std::to_string(*blockSize) +
           " is not a multiple of 32";
  if (!warp || !rowsPerBlock)
    return "";
  int64_t lanes = warpRowLanes(kernel);
  if (*blockSize != int64_t(lanes * *rowsPerBlock))
    return "block_size " + std::to_string(*blockSize) +
           " != " + std::to_string(lanes) + " x " +
           std::to_string(*rowsPerBlock) + " rows_per_block (" +
           std::to_string(lanes) + " lanes a row)";
  return "";
}

/// The bytes of a query_rows accumulator: double for f64, else float.
int64_t queryRowsAccumulatorBytes(AttentionOp attention) {
  return elementTypeOf(attention.getQuery()).isF64() ? 8 : 4;
}

/// The keys of a chunk that the shared memory left beside the query row of
/// |attention| and 32 partials holds.
/// The keys of |attention|, or for a run-time key count (issue 18) the
/// largest chunk the query-row template takes: its loop over chunks takes
/// the count at run time.
int64_t keysAtMost(AttentionOp attention) {
  int64_t sk = shapeOf(attention.getKey()).drop_back().back();
  return ShapedType::isDynamic(sk) ? kQueryRowsMaxKeyChunk : sk;
}

int64_t queryRowsChunkCapacity(AttentionOp attention) {
  int64_t accBytes = queryRowsAccumulatorBytes(attention);
  int64_t d = shapeOf(attention.getKey()).back();
  return (kQueryRowsSharedBytes - (d + 32) * accBytes) / accBytes;
}

/// query_rows: a block of whole warps (at most 1024 threads) per query row,
/// each thread holding at most kQueryRowsMaxOutputs output columns, and key
/// chunks of at least 32 keys (or all of them) that fit the shared memory.
std::string queryRowsPrecondition(KernelOp kernel,
                                  std::optional<int64_t> blockSize) {
  auto attention = dyn_cast_or_null<AttentionOp>(getKernelAnchor(kernel));
  if (!attention)
    return "it has no kiln.attention";
  int64_t sk = keysAtMost(attention);
  int64_t d = shapeOf(attention.getKey()).back();
  int64_t dv = shapeOf(attention.getValue()).back();
  int64_t capacity = queryRowsChunkCapacity(attention);
  if (capacity < std::min<int64_t>(sk, 32))
    return "head size " + std::to_string(d) +
           " leaves shared memory for fewer than 32 keys";
  if (std::optional<uint64_t> chunk = kernel.getKeyChunk())
    if (int64_t(*chunk) > std::min({sk, kQueryRowsMaxKeyChunk, capacity}))
      return "key_chunk " + std::to_string(*chunk) + " is more than " +
             std::to_string(std::min({sk, kQueryRowsMaxKeyChunk, capacity})) +
             " (the keys, at most " + std::to_string(kQueryRowsMaxKeyChunk) +
             ", that the shared memory holds)";
  if (!blockSize || *blockSize <= 0)
    return "";
  if (*blockSize % 32 != 0 || *blockSize > 1024)
    return "block_size " + std::to_string(*blockSize) +
           " is not a multiple of 32 up to 1024";
  if ((dv + *blockSize - 1) / *blockSize > kQueryRowsMaxOutputs)
    return "value head size " + std::to_string(dv) + " needs more than " +
           std::to_string(kQueryRowsMaxOutputs) +
           " outputs per thread at block_size " + std::to_string(*blockSize);
  return "";
}

/// flash: f16/bf16 throughout, head sizes the tensor-core tiles take, q, k
/// and v read from kernel inputs (or strided views of them) with 16-byte
/// aligned rows, the output written in 4-byte pairs, kFlashAttentionWarps
/// warps.
std::string flashPrecondition(KernelOp kernel,
                              std::optional<int64_t> blockSize) {
  auto attention = dyn_cast_or_null<AttentionOp>(getKernelAnchor(kernel));
  if (!attention)
    return "it has no kiln.attention";
  Type type = elementTypeOf(attention.getQuery());
  if (!type.isF16() && !type.isBF16())
    return "the query is not f16 or bf16";
  int64_t d = shapeOf(attention.getKey()).back();
  int64_t dv = shapeOf(attention.getValue()).back();
  int64_t groupThreads = 32 * kFlashAttentionWarps;
  if (blockSize) {
    int64_t groups = *blockSize / groupThreads;
    if (*blockSize % groupThreads != 0 || groups < 1 ||
        groups > kFlashAttentionMaxKeyGroups)
      return "block_size " + std::to_string(*blockSize) + " is not " +
             std::to_string(groupThreads) + " x 1 to " +
             std::to_string(kFlashAttentionMaxKeyGroups) + " key groups";
    if (flashSharedBytes(groups, d, dv) > kFlashAttentionSharedBytes)
      return "block_size " + std::to_string(*blockSize) + ": " +
             std::to_string(groups) + " key groups need " +
             std::to_string(flashSharedBytes(groups, d, dv)) +
             " bytes of shared memory, more than " +
             std::to_string(kFlashAttentionSharedBytes);
  }
  for (Value value :
       {attention.getKey(), attention.getValue(), attention.getResult()})
    if (elementTypeOf(value) != type)
      return "q, k, v and the result do not share one element type";
  // Rows are copied in 16-byte pieces and written in 4-byte pairs.
  for (Value value :
       {attention.getQuery(), attention.getKey(), attention.getValue()}) {
    std::optional<StridedOperand> operand =
        attentionOperandLayout(kernel, value);
    if (!operand || !hasAlignedRows(operand->layout, 8))
      return "q, k or v is not a kernel input read by rows aligned to 16 "
             "bytes";
  }
  std::optional<StridedLayout> stored =
      attentionOutputLayout(kernel, attention);
  if (!stored || !hasAlignedRows(*stored, 2))
    return "the output is not written by rows aligned to 4 bytes";
  if (d % 16 != 0 || d > kFlashAttentionMaxHeadSize || dv % 8 != 0 ||
      dv > kFlashAttentionMaxHeadSize)
    return "head sizes " + std::to_string(d) + "/" + std::to_string(dv) +
           " are not multiples of 16/8 up to " +
           std::to_string(kFlashAttentionMaxHeadSize);
  return "";
}

int64_t storageBytesOf(Type type) {
  return (type.getIntOrFloatBitWidth() + 7) / 8;
}

/// 16 bytes of |bytes|-wide elements, halved until the width divides
/// |channels|.
int64_t vectorOfChannels(int64_t bytes, int64_t channels) {
  int64_t width = kVectorBytes / std::max<int64_t>(bytes, 1);
  while (width > 1 && channels % width != 0)
    width /= 2;
  return std::max<int64_t>(width, 1);
}

/// Whether every op that uses |value| in the kernel body, directly or not,
/// is pointwise with |value|'s shape and one result (so it is computed at
/// |value|'s own index, once per element).
bool onlyPointwiseUsers(Value value) {
  SmallVector<Value> worklist{value};
  while (!worklist.empty()) {
    Value current = worklist.pop_back_val();
    for (Operation *user : current.getUsers()) {
      if (isa<YieldOp>(user))
        continue;
      if (classifyForFusion(user) != FusionClass::Pointwise ||
          user->getNumResults() != 1 ||
          shapeOf(user->getResult(0)) != shapeOf(value))
        return false;
      worklist.push_back(user->getResult(0));
    }
  }
  return true;
}

/// A depthwise conv the window template runs: see KernelConfiguration.h.
std::string depthwiseConvUnmet(KernelOp kernel, ConvOp conv) {
  if (!isDepthwiseChannelsLast(conv))
    return "its conv is not a channels-last depthwise one";
  Type type = elementTypeOf(conv.getResult());
  if (!isa<FloatType>(type) || elementTypeOf(conv.getInput()) != type)
    return "its depthwise conv is not of floats";
  ArrayRef<int64_t> in = shapeOf(conv.getInput()),
                    weight = shapeOf(conv.getWeight());
  int64_t group = int64_t(conv.getGroup());
  if (in.back() != group || weight.front() != group)
    return "its depthwise conv has " + std::to_string(weight.front()) +
           " output channels for " + std::to_string(in.back()) +
           " input channels (a channel multiplier)";
  if (!kernelInputNumber(kernel, conv.getInput()))
    return "its depthwise conv's input is not a kernel input";
  auto stored = conv.getWeight().getDefiningOp<TransposeOp>();
  if (!stored || !isDepthwiseWeightLayout(stored) ||
      !kernelInputNumber(kernel, stored.getData()))
    return "its depthwise conv's weight is not a kernel input stored "
           "channels innermost (kiln-pack-depthwise-weights)";
  for (Value value : kernel.getYield().getValues())
    if (shapeOf(value) != shapeOf(conv.getResult()))
      return "it yields a value of another shape than its depthwise conv";
  if (!onlyPointwiseUsers(conv.getResult()))
    return "an op that uses its depthwise conv is not pointwise with the "
           "conv's shape";
  return "";
}

/// A column reduction the window template runs: see KernelConfiguration.h.
std::string columnReductionUnmet(KernelOp kernel, Operation *reduce) {
  for (Value value : kernel.getYield().getValues())
    if (value != reduce->getResult(0))
      return "it yields a value other than its column reduction's result";
  // The prologue is read lane by lane through the elemental models: any
  // pointwise op, and data movement (a channel concat, a slice, a
  // transpose), each with one result.
  for (Operation &op : kernel.getBody().front().without_terminator()) {
    if (&op == reduce || isa<ConstantOp>(op))
      continue;
    FusionClass fusionClass = classifyForFusion(&op);
    if ((fusionClass != FusionClass::Pointwise &&
         fusionClass != FusionClass::View &&
         fusionClass != FusionClass::DataMovement) ||
        op.getNumResults() != 1)
      return "'" + op.getName().getStringRef().str() +
             "' is not a pointwise or data-movement prologue of the reduction";
  }
  return "";
}

/// channels_last_pool, the channels-last window template: one window op of
/// KernelConfiguration.h's forms whose channels allow vectors (of two or
/// more for a pool), a recorded vector_width that is such a vector, and for
/// a column reduction a block of whole rows of vectors, a power of two of
/// them, that fits the shared memory.
std::string channelsLastPoolPrecondition(KernelOp kernel,
                                         std::optional<int64_t> blockSize) {
  std::string why;
  std::optional<ChannelsLastWindow> window =
      getChannelsLastWindow(kernel, &why);
  if (!window)
    return why;
  bool pool = window->kind == ChannelsLastWindowKind::Pool;
  int64_t widest = channelsLastWindowVectorWidth(kernel, *window);
  if (pool && widest < 2)
    return "its " + std::to_string(shapeOf(window->op->getResult(0)).back()) +
           " channels allow no vector of two";
  int64_t width = widest;
  if (std::optional<uint64_t> recorded = kernel.getVectorWidth()) {
    width = int64_t(*recorded);
    if (width < (pool ? 2 : 1) || widest % width != 0)
      return "vector_width " + std::to_string(width) + " is not a vector of " +
             (pool ? "two or more channels" : "channels") + " dividing " +
             std::to_string(widest);
  }
  if (std::optional<uint64_t> perThread = kernel.getElementsPerThread();
      perThread && *perThread != 1) {
    auto conv = dyn_cast<ConvOp>(window->op);
    int64_t pixels = int64_t(*perThread);
    if (!conv)
      return "elements_per_thread " + std::to_string(pixels) +
             ": only a depthwise conv takes several pixels per thread";
    int64_t outputWidth = shapeOf(conv.getResult())[2];
    if (pixels < 1 || pixels > kMaxDepthwisePixels || pixels > outputWidth)
      return "elements_per_thread " + std::to_string(pixels) +
             " is not a number of adjacent pixels up to " +
             std::to_string(kMaxDepthwisePixels) + " and the output width " +
             std::to_string(outputWidth);
  }
  if (window->kind != ChannelsLastWindowKind::ColumnReduction || !blockSize ||
      *blockSize <= 0)
    return "";
  int64_t perRow = columnReductionVectorsPerRow(window->op, width);
  int64_t rows = *blockSize / perRow;
  if (*blockSize > 1024 || *blockSize % perRow != 0 || (rows & (rows - 1)))
    return "block_size " + std::to_string(*blockSize) +
           " is not a power of two of rows of " + std::to_string(perRow) +
           " vectors up to 1024 threads";
  int64_t partialBytes = columnReductionPartialBytes(
      window->op, *blockSize, perRow, width);
  if (partialBytes > kColumnReductionSharedBytes)
    return "block_size " + std::to_string(*blockSize) + " keeps " +
           std::to_string(partialBytes) + " bytes of partials, more than " +
           std::to_string(kColumnReductionSharedBytes);
  return "";
}

} // namespace

int64_t flashTileElements(int64_t cols) {
  return kFlashAttentionKeys * (cols + kFlashAttentionPad);
}

int64_t flashMergePostValues(int64_t dv) { return 4 + dv / 2; }

int64_t flashSharedBytes(int64_t groups, int64_t d, int64_t dv) {
  int64_t tiles = (flashTileElements(d) + flashTileElements(dv)) * 2;
  int64_t posted = 32 * kFlashAttentionWarps * flashMergePostValues(dv) * 4;
  return std::max(groups * tiles, (groups - 1) * posted);
}

int64_t flashKeyGroups(KernelOp kernel, int64_t multiprocessors) {
  auto attention = dyn_cast_or_null<AttentionOp>(getKernelAnchor(kernel));
  if (!attention)
    return 1;
  auto output = cast<RankedTensorType>(attention.getType());
  ArrayRef<int64_t> keyShape = shapeOf(attention.getKey());
  if (!output.hasStaticShape() ||
      ShapedType::isDynamic(keyShape.drop_back().back()))
    return 1;
  int64_t rank = output.getRank();
  int64_t rowsPerTile = 16 * kFlashAttentionWarps;
  int64_t queryTiles =
      output.getNumElements() / output.getDimSize(rank - 1) /
      output.getDimSize(rank - 2) *
      ((output.getDimSize(rank - 2) + rowsPerTile - 1) / rowsPerTile);
  int64_t keyTiles = (keyShape.drop_back().back() + kFlashAttentionKeys - 1) /
                     kFlashAttentionKeys;
  int64_t d = keyShape.back(), dv = shapeOf(attention.getValue()).back();
  bool fits = flashSharedBytes(2, d, dv) <= kFlashAttentionStaticSharedBytes;
  bool resident = 2 * queryTiles <= kFlashResidentGroups * multiprocessors;
  return keyTiles >= kFlashKeyGroupsMinKeyTiles && fits && resident ? 2 : 1;
}

int64_t queryRowsKeyChunk(KernelOp kernel) {
  auto attention = dyn_cast_or_null<AttentionOp>(getKernelAnchor(kernel));
  if (!attention)
    return 0;
  int64_t sk = keysAtMost(attention);
  return std::max<int64_t>(
      std::min({sk, kQueryRowsMaxKeyChunk, queryRowsChunkCapacity(attention)}),
      1);
}

std::optional<RowReduceExtents> rowReduceExtents(KernelOp kernel) {
  Operation *anchor = getKernelAnchor(kernel);
  std::optional<int64_t> first =
      anchor ? rowReductionFirstAxis(anchor) : std::nullopt;
  if (!first)
    return std::nullopt;
  ArrayRef<int64_t> shape =
      cast<RankedTensorType>(anchor->getOperand(0).getType()).getShape();
  RowReduceExtents extents;
  for (int64_t d = 0; d < int64_t(shape.size()); ++d) {
    if (ShapedType::isDynamic(shape[d])) {
      if (d >= *first)
        return std::nullopt; // A run-time row length: not a row reduction.
      extents.runTimeRows = true;
      continue;
    }
    (d < *first ? extents.rows : extents.length) *= shape[d];
  }
  return extents;
}

bool keepsInnermostDim(ArrayRef<int64_t> operand, ArrayRef<int64_t> result) {
  if (operand.empty() || result.empty() || operand.size() > result.size() ||
      operand.back() != result.back() || result.back() <= 1)
    return false;
  ArrayRef<int64_t> aligned = result.take_back(operand.size());
  return llvm::all_of(llvm::zip_equal(operand, aligned), [](auto dims) {
    auto [from, to] = dims;
    return from == to || from == 1;
  });
}

int64_t rowBroadcastRun(ArrayRef<int64_t> operand, ArrayRef<int64_t> result) {
  if (operand.size() != result.size() || operand.empty())
    return 0;
  size_t kept = 0;
  while (kept < operand.size() && operand[kept] == result[kept])
    ++kept;
  int64_t run = 1;
  for (size_t dim = kept; dim < operand.size(); ++dim) {
    if (operand[dim] != 1 || ShapedType::isDynamic(result[dim]))
      return 0;
    run *= result[dim];
  }
  return run > 1 ? run : 0;
}

std::optional<int64_t> innermostRunOfMovement(Operation &op) {
  if (!isa<TransposeOp, PadOp, SliceOp, ConcatOp>(op))
    return std::nullopt;
  auto result = cast<RankedTensorType>(op.getResult(0).getType());
  auto data = cast<RankedTensorType>(op.getOperand(0).getType());
  int64_t rank = result.getRank();
  if (rank == 0 || !result.hasStaticShape() || !data.hasStaticShape())
    return 0;
  int64_t last = result.getShape().back();
  if (auto transpose = dyn_cast<TransposeOp>(op))
    return transpose.getPerm().back() == rank - 1 ? last : 0;
  if (auto pad = dyn_cast<PadOp>(op)) {
    std::optional<SmallVector<int64_t>> amounts = pad.getConstantAmounts();
    return amounts && (*amounts)[rank - 1] == 0 && (*amounts)[2 * rank - 1] == 0
               ? last
               : 0;
  }
  if (auto slice = dyn_cast<SliceOp>(op)) {
    auto starts = getConstantIntegers(slice.getStarts());
    auto axes = getConstantIntegers(slice.getAxes());
    auto steps = getConstantIntegers(slice.getSteps());
    if (!starts || !axes || !steps || starts->size() != axes->size() ||
        steps->size() != axes->size())
      return 0;
    int64_t run = std::gcd(last, data.getShape().back());
    for (auto [i, axis] : llvm::enumerate(*axes)) {
      if (normalizeAxis(axis, rank) != rank - 1)
        continue;
      int64_t dim = data.getShape().back(), start = (*starts)[i];
      if ((*steps)[i] != 1)
        return 0;
      start = std::clamp<int64_t>(start < 0 ? start + dim : start, 0, dim);
      run = std::gcd(run, start);
    }
    return run;
  }
  auto concat = cast<ConcatOp>(op);
  return normalizeAxis(concat.getAxis(), rank) == rank - 1 ? 0 : last;
}

int64_t innermostConcatOfInputs(KernelOp kernel, ConcatOp concat) {
  auto result = cast<RankedTensorType>(concat.getOutput().getType());
  int64_t rank = result.getRank();
  if (rank == 0 || (concat.getAxis() != rank - 1 && concat.getAxis() != -1))
    return 0;
  int64_t pieces = 0;
  for (Value input : concat.getInputs()) {
    int64_t innermost = shapeOf(input).back();
    if (!kernelInputNumber(kernel, input) || ShapedType::isDynamic(innermost))
      return 0;
    pieces = std::gcd(pieces, innermost);
  }
  return pieces;
}

int64_t launchUnitsPerBlock(KernelOp kernel) {
  auto attribute = [&](std::optional<uint64_t> value) {
    return int64_t(value.value_or(1));
  };
  switch (kernel.getKind()) {
  case KernelKind::Pointwise:
  case KernelKind::DataMovement:
    return attribute(kernel.getBlockSize()) *
           attribute(kernel.getVectorWidth()) *
           attribute(kernel.getElementsPerThread());
  case KernelKind::Attention: {
    // Output elements per block and grid-stride step: a query row of the
    // row template, kFlashAttentionWarps x 16 rows of the flash one.
    auto attention = dyn_cast_or_null<AttentionOp>(getKernelAnchor(kernel));
    if (!attention)
      return 0;
    int64_t dv = shapeOf(attention.getResult()).back();
    return getKernelVariant(kernel) == KernelVariant::Flash
               ? 16 * kFlashAttentionWarps * dv
               : dv;
  }
  case KernelKind::RowReduce: {
    Operation *anchor = getKernelAnchor(kernel);
    bool perElement =
        isa_and_nonnull<SoftmaxOp, LogSoftmaxOp, LayerNormOp>(anchor);
    return attribute(kernel.getRowsPerBlock()) *
           (perElement ? std::max<int64_t>(rowReduceLength(kernel), 1) : 1);
  }
  default:
    return 0;
  }
}

int64_t rowReduceLength(KernelOp kernel) {
  std::optional<RowReduceExtents> extents = rowReduceExtents(kernel);
  return extents ? extents->length : 0;
}

int64_t warpRowLanes(int64_t vectors, const RowReduceExtents &extents) {
  if (extents.runTimeRows)
    return 32;
  int64_t lanes = 1;
  while (lanes < 32 && lanes < vectors)
    lanes *= 2;
  while (lanes < 32 && extents.rows % (32 / lanes) != 0)
    lanes *= 2;
  return lanes;
}

int64_t warpRowLanes(KernelOp kernel) {
  std::optional<RowReduceExtents> extents = rowReduceExtents(kernel);
  if (!extents)
    return 32;
  int64_t width = std::max<int64_t>(kernel.getVectorWidth().value_or(1), 1);
  return warpRowLanes(extents->length / width, *extents);
}

int64_t outputDimOfInputInner(ArrayRef<int64_t> perm) {
  int64_t rank = perm.size();
  for (int64_t i = 0; i < rank; ++i)
    if (perm[i] == rank - 1)
      return i;
  return 0;
}

ArrayRef<KernelVariant> kernelVariants(KernelKind kind) {
  static constexpr KernelVariant pointwise[] = {
      KernelVariant::Loop, KernelVariant::ChannelsLastPool};
  static constexpr KernelVariant dataMovement[] = {KernelVariant::Loop};
  static constexpr KernelVariant transpose[] = {KernelVariant::Tiles,
                                                KernelVariant::ShortRows};
  static constexpr KernelVariant attention[] = {KernelVariant::QueryRows,
                                                KernelVariant::Flash};
  static constexpr KernelVariant rowReduce[] = {KernelVariant::WarpRows,
                                                KernelVariant::BlockRows};
  switch (kind) {
  case KernelKind::Pointwise:
    return pointwise;
  case KernelKind::DataMovement:
    return dataMovement;
  case KernelKind::Transpose:
    return transpose;
  case KernelKind::Attention:
    return attention;
  case KernelKind::RowReduce:
    return rowReduce;
  case KernelKind::Library:
    break;
  }
  return {};
}

std::optional<KernelVariant> getKernelVariant(KernelOp kernel) {
  if (std::optional<KernelVariant> recorded = kernel.getVariant())
    return recorded;
  ArrayRef<KernelVariant> variants = kernelVariants(kernel.getKind());
  if (variants.empty())
    return std::nullopt;
  return variants.front();
}

std::string unmetVariantPrecondition(KernelOp kernel, KernelVariant variant,
                                     std::optional<int64_t> blockSize) {
  switch (variant) {
  case KernelVariant::Loop:
  case KernelVariant::Tiles:
    return ""; // The general templates: the kind's contract is enough.
  case KernelVariant::QueryRows:
    return queryRowsPrecondition(kernel, blockSize);
  case KernelVariant::ShortRows:
    return shortRowsPrecondition(kernel, blockSize);
  case KernelVariant::Flash:
    return flashPrecondition(kernel, blockSize);
  case KernelVariant::ChannelsLastPool:
    return channelsLastPoolPrecondition(kernel, blockSize);
  case KernelVariant::WarpRows:
  case KernelVariant::BlockRows:
    return rowsPrecondition(kernel, variant == KernelVariant::WarpRows,
                            blockSize);
  }
  return "";
}

std::optional<KernelVariant> selectKernelVariant(KernelOp kernel,
                                                 int64_t blockSize) {
  ArrayRef<KernelVariant> variants = kernelVariants(kernel.getKind());
  if (variants.empty())
    return std::nullopt;
  // Both row templates take any row: the row length chooses between them.
  if (kernel.getKind() == KernelKind::RowReduce)
    return rowReduceLength(kernel) > kWarpRowElements &&
                   unmetVariantPrecondition(kernel, KernelVariant::BlockRows,
                                            blockSize)
                       .empty()
               ? KernelVariant::BlockRows
               : KernelVariant::WarpRows;
  for (KernelVariant variant : variants.drop_front())
    if (unmetVariantPrecondition(kernel, variant, blockSize).empty())
      return variant;
  return variants.front();
}

LogicalResult verifyKernelVariant(KernelOp kernel) {
  std::optional<KernelVariant> variant = kernel.getVariant();
  if (!variant)
    return success();
  ArrayRef<KernelVariant> variants = kernelVariants(kernel.getKind());
  if (!llvm::is_contained(variants, *variant)) {
    SmallVector<StringRef> names;
    for (KernelVariant known : variants)
      names.push_back(stringifyKernelVariant(known));
    return kernel.emitOpError("'")
           << kernel.getSymName() << "' records variant '"
           << stringifyKernelVariant(*variant) << "', which is not a "
           << stringifyKernelKind(kernel.getKind()) << " template ("
           << (names.empty() ? std::string("the kind has none")
                             : "its templates: " + llvm::join(names, ", "))
           << ")";
  }
  std::optional<int64_t> blockSize;
  if (std::optional<uint64_t> block = kernel.getBlockSize())
    blockSize = int64_t(*block);
  std::string unmet = unmetVariantPrecondition(kernel, *variant, blockSize);
  if (!unmet.empty())
    return kernel.emitOpError("'")
           << kernel.getSymName() << "' records variant '"
           << stringifyKernelVariant(*variant)
           << "', whose precondition does not hold: " << unmet;
  return success();
}

Operation *getChannelsLastPool(KernelOp kernel) {
  Block &body = kernel.getBody().front();
  Operation *pool = nullptr;
  for (Operation &op : body.without_terminator()) {
    if (pool)
      return nullptr;
    pool = &op;
  }
  if (!pool || body.getNumArguments() == 0)
    return nullptr;
  bool channelsLast = false;
  if (auto max = dyn_cast<MaxPoolOp>(pool))
    channelsLast = max.isChannelsLast();
  else if (auto average = dyn_cast<AveragePoolOp>(pool))
    channelsLast = average.isChannelsLast();
  if (!channelsLast || pool->getOperand(0) != body.getArgument(0) ||
      !isa<FloatType>(elementTypeOf(pool->getResult(0))))
    return nullptr;
  for (Value value : kernel.getYield().getValues())
    if (value != pool->getResult(0))
      return nullptr;
  return pool;
}

int64_t channelsLastPoolVectorWidth(Operation *pool) {
  Type type = elementTypeOf(pool->getResult(0));
  int64_t channels = shapeOf(pool->getResult(0)).back();
  int64_t width = kVectorBytes / ((type.getIntOrFloatBitWidth() + 7) / 8);
  // Each vector starts at (pixel * C + c) elements, a multiple of the width
  // when C is: 16-byte alignment holds with the 16-byte-aligned pointers
  // (LoopEmitter.cpp says why they are).
  while (width > 1 && channels % width != 0)
    width /= 2;
  return width;
}

std::optional<ChannelsLastWindow> getChannelsLastWindow(KernelOp kernel,
                                                        std::string *why) {
  auto fail = [&](std::string reason) -> std::optional<ChannelsLastWindow> {
    if (why)
      *why = std::move(reason);
    return std::nullopt;
  };
  if (Operation *pool = getChannelsLastPool(kernel))
    return ChannelsLastWindow{pool, ChannelsLastWindowKind::Pool};
  Operation *window = nullptr, *movement = nullptr;
  for (Operation &op : kernel.getBody().front().without_terminator()) {
    FusionClass fusionClass = classifyForFusion(&op);
    if (isa<ConstantOp>(op) || fusionClass == FusionClass::Pointwise ||
        fusionClass == FusionClass::View || isDepthwiseWeightLayout(&op))
      continue;
    // Data movement may feed a column reduction (columnReductionUnmet).
    if (fusionClass == FusionClass::DataMovement) {
      movement = movement ? movement : &op;
      continue;
    }
    if (window)
      return fail("it holds two window or reduction ops");
    window = &op;
  }
  if (!window)
    return fail("its body has no window op (a channels-last pool, a "
                "depthwise conv or a column reduction)");
  if (movement && !columnReductionExtents(window))
    return fail("'" + movement->getName().getStringRef().str() +
                "' moves data in a kernel whose window op is not a column "
                "reduction");
  if (auto conv = dyn_cast<ConvOp>(window)) {
    std::string unmet = depthwiseConvUnmet(kernel, conv);
    if (!unmet.empty())
      return fail(unmet);
    return ChannelsLastWindow{window, ChannelsLastWindowKind::DepthwiseConv};
  }
  if (columnReductionExtents(window)) {
    std::string unmet = columnReductionUnmet(kernel, window);
    if (!unmet.empty())
      return fail(unmet);
    return ChannelsLastWindow{window, ChannelsLastWindowKind::ColumnReduction};
  }
  return fail("'" + window->getName().getStringRef().str() +
              "' is neither one channels-last float pool of its first input, "
              "a depthwise conv nor a column reduction");
}

int64_t channelsLastWindowVectorWidth(KernelOp kernel,
                                      const ChannelsLastWindow &window) {
  switch (window.kind) {
  case ChannelsLastWindowKind::Pool:
    return channelsLastPoolVectorWidth(window.op);
  case ChannelsLastWindowKind::DepthwiseConv: {
    // Input, weight and each output by vectors of channels.
    int64_t bytes = storageBytesOf(elementTypeOf(window.op->getOperand(0)));
    for (Value value : kernel.getYield().getValues())
      bytes = std::max(bytes, storageBytesOf(elementTypeOf(value)));
    return vectorOfChannels(bytes, shapeOf(window.op->getResult(0)).back());
  }
  case ChannelsLastWindowKind::ColumnReduction: {
    // The inputs of the reduction's input shape and the output by vectors.
    Value data = window.op->getOperand(0);
    int64_t bytes =
        std::max(storageBytesOf(elementTypeOf(data)),
                 storageBytesOf(elementTypeOf(window.op->getResult(0))));
    for (Value input : kernel.getInputs())
      if (shapeOf(input) == shapeOf(data))
        bytes = std::max(bytes, storageBytesOf(elementTypeOf(input)));
    return vectorOfChannels(bytes, columnReductionExtents(window.op)->inner);
  }
  }
  return 1;
}

int64_t depthwisePixelsPerThread(ConvOp conv, int64_t most) {
  int64_t outputWidth = shapeOf(conv.getResult())[2];
  most = std::clamp<int64_t>(most, 1, std::max<int64_t>(outputWidth, 1));
  int64_t groups = (outputWidth + most - 1) / most;
  return (outputWidth + groups - 1) / groups;
}

int64_t columnReductionPartialBytes(Operation *reduce, int64_t blockSize,
                                    int64_t vectorsPerRow, int64_t width) {
  int64_t warps = (blockSize + 31) / 32;
  int64_t bytes = elementTypeOf(reduce->getResult(0)).isF64() ? 8 : 4;
  return warps > 1 ? warps * vectorsPerRow * width * bytes : 0;
}

int64_t columnReductionVectorsPerRow(Operation *reduce, int64_t width) {
  std::optional<ColumnReductionExtents> extents =
      columnReductionExtents(reduce);
  int64_t vectors = extents ? extents->inner / std::max<int64_t>(width, 1) : 1;
  int64_t bytes = storageBytesOf(elementTypeOf(reduce->getOperand(0)));
  // A warp's row reads at least a whole 32-byte sector per pixel.
  int64_t perRow = 1;
  while (perRow * width * bytes < 32 && perRow < vectors)
    perRow *= 2;
  return perRow;
}

std::optional<unsigned> kernelInputNumber(KernelOp kernel, Value value) {
  auto argument = dyn_cast<BlockArgument>(value);
  if (!argument || argument.getOwner() != &kernel.getBody().front() ||
      argument.getArgNumber() >= kernel.getInputs().size())
    return std::nullopt;
  return argument.getArgNumber();
}

std::optional<StridedOperand> attentionOperandLayout(KernelOp kernel,
                                                     Value operand) {
  Block *body = &kernel.getBody().front();
  std::optional<StridedLayout> layout = traceStridedRead(
      operand, [&](Operation *op) { return op->getBlock() == body; });
  if (!layout)
    return std::nullopt;
  std::optional<unsigned> input = kernelInputNumber(kernel, layout->buffer);
  if (!input)
    return std::nullopt;
  return StridedOperand{*input, *layout};
}

std::optional<StridedLayout> attentionOutputLayout(KernelOp kernel,
                                                   AttentionOp attention) {
  ValueRange yielded = kernel.getYield().getValues();
  if (yielded.size() != 1)
    return std::nullopt;
  SmallVector<Operation *, 4> chain;
  Value value = attention.getResult();
  while (value != yielded[0]) {
    if (!value.hasOneUse())
      return std::nullopt;
    Operation *user = *value.getUsers().begin();
    if (isa<SliceOp>(user) || !isStridedViewOp(user))
      return std::nullopt;
    chain.push_back(user);
    value = user->getResult(0);
  }
  return traceStridedWrite(attention.getResult(), chain);
}

} // namespace kiln
