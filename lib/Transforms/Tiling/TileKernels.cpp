// kiln-tile-kernels: launch geometry for every kiln.kernel, as attributes.
//
// Per kind, after the variant of the kind's template (KernelConfiguration.h:
// the first specialised variant whose preconditions hold, else the general
// one), recorded as `variant` for kinds that have several:
//  - pointwise / data_movement: 256 threads; 16-byte vectors when every input
//    is read at the output's own linear index (elementwise ops on one shape
//    and views that keep the element order), is a single element or is a
//    broadcast that keeps the innermost dim (a bias, an SE scale [N,1,1,C])
//    or a piece of a concat of inputs along the innermost dim (whole vectors
//    of each piece), or is read through data movement that keeps the
//    innermost dim's runs (innermostRunOfMovement: Swin's head split and
//    window partition), the elements after the last whole vector handled
//    one per thread; one element (or vector) per thread while that grid fits
//    its cap, 4 past it; fewer elements per thread, then narrower vectors,
//    where the loads of one step would hold more than 128 registers; a grid
//    that covers the output's vectors, capped at 64 blocks per multiprocessor
//    (the loop is grid-stride). With run-time extents that is at the ranges'
//    largest count, and a bucket (kiln.buckets) records the configuration
//    at the largest count of one vector per thread where the ranges cross
//    it. The channels_last_pool
//    variant (the channels-last window template): a vector of channels (16
//    bytes, halved until it divides C) per thread and step for a pool; for a
//    depthwise conv up to 8 adjacent pixels of a row (balanced groups, while
//    512 threads per SM remain) x at most 4 channels, 128 threads a block;
//    for a column reduction a block per (outer index, row of vectors of
//    channels), the block's rows of threads along the reduced length.
//  - row_reduce: rows of <= 1024 elements get one warp each, 4 rows per
//    128-thread block (rows of fewer vectors than 32 part of a warp each,
//    warpRowLanes, so 4 x 32 / lanes rows a block); longer rows get a block
//    each (512 threads, 1024 for rows of 8192 and more; softmax: about 16
//    values per thread, 128 to 1024 threads, so that each thread has several
//    loads in flight). A layer_norm, softmax or float reduction row is read
//    in 16-byte vectors when its length allows (`vector_width`).
//  - transpose: 32x32 tiles moved by 32x8 threads (4 rows each); the grid is
//    one block per tile. short_rows: 256 threads, a block per 256 rows.
//  - attention: 128 threads; the grid is one block per (batch, query row),
//    capped, grid-stride. The flash variant (f16/bf16) uses the 128 threads
//    as 4 warps per 64 query rows and launches min(grid, tiles) blocks.
//  - library: nothing (cuBLASLt chooses at load time).
// Attributes already present are kept, so tests can pin them.
#include "kiln/Transforms/Passes.h"

#include "kiln/Dialect/Kiln/IR/DimRanges.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/KernelKinds/KernelConfiguration.h"
#include "kiln/Dialect/Kiln/KernelKinds/KernelKinds.h"
#include "kiln/Evaluator/Tensor.h"
#include "kiln/Transforms/FusionRules.h"

#include "mlir/IR/Builders.h"

#include <algorithm>
#include <numeric>

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNTILEKERNELS
#include "kiln/Transforms/Passes.h.inc"

namespace {
constexpr int64_t kWarpSize = 32;
/// The cap of a grid-stride template's grid, per multiprocessor: past it a
/// thread takes more than one step.
constexpr int64_t kMaxBlocksPerMultiprocessor = 64;
/// The loop template's block.
constexpr int64_t kLoopBlockSize = 256;
/// The threads per multiprocessor a depthwise conv's grid keeps when it
/// gives a thread several pixels: 16 warps, two thirds of what an SM holds
/// of the template at 8 pixels x 4 channels (84 registers, 3 blocks of 256);
/// each thread has 32 independent multiply-add chains besides.
constexpr int64_t kMinResidentThreads = 512;
/// A depthwise conv's threads each take a long run of work and its grid is
/// about one wave: the multiprocessor given the most blocks sets the time.
/// Blocks of 128 (a warp per scheduler) spread ConvNeXt's first 7x7 conv
/// (75,264 threads) over 132 SMs as 4 or 5 blocks each, where blocks of 256
/// gave 2 or 3 (a third of the SMs working half as long again).
constexpr int64_t kDepthwiseBlockSize = 128;

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

int64_t elementBytes(Type type) {
  auto dtype = eval::dtypeFromMlir(getElementTypeOrSelf(type));
  return dtype ? int64_t(eval::byteWidth(*dtype)) : 0;
}

/// Whether |a| and |b| have one element count: equal static counts, or (with
/// a run-time extent) equal shapes, whose run-time extent is the kernel's.
bool sameElementCount(RankedTensorType a, RankedTensorType b) {
  if (a.hasStaticShape() && b.hasStaticShape())
    return a.getNumElements() == b.getNumElements();
  return a.getShape() == b.getShape();
}

bool isSingleElement(RankedTensorType type) {
  return type.hasStaticShape() && type.getNumElements() == 1;
}

/// The product of |type|'s static dims after its run-time extent (all of
/// them when it has none): every element count the type takes is a
/// multiple of it.
int64_t staticTrailingElements(RankedTensorType type) {
  int64_t product = 1;
  for (int64_t d = type.getRank() - 1; d >= 0 && !type.isDynamicDim(d); --d)
    product *= type.getDimSize(d);
  return product;
}

/// The widest vector (in elements) that every access of |kernel| allows.
int64_t vectorWidth(KernelOp kernel) {
  if (kernel.getKind() != KernelKind::Pointwise &&
      kernel.getKind() != KernelKind::DataMovement)
    return 1;
  auto output = cast<RankedTensorType>(kernel.getResult(0).getType());
  // Scalars for a rank-0 output, and where indices take run-time extents'
  // values (the vector loads broadcast on static shapes only).
  if (output.getRank() == 0 || kernelIndexesRunTimeExtentsByValue(kernel))
    return 1;
  // A vector of the output (W consecutive elements, the first at a multiple
  // of W) must read a vector of every value, or one element of it. Each op
  // is elementwise or a view (which keeps the row-major order; its other
  // operands are shapes and axes), and either computes as many elements as
  // the output, read at the output's own linear index, or is elementwise on
  // a broadcast of the output that keeps the innermost dim (a
  // squeeze-excite's sigmoid on [N, 1, 1, C] under [N, H, W, C]), computed
  // at the output's index broadcast to it. Its operands are of its result's
  // shape, of one element, or broadcasts of it that keep the innermost dim
  // (a bias row, the [N, 1, 1, C] scale): when W divides that dim, a vector
  // of the output reads a vector of the broadcast (the loop template loads
  // it whole). The one data-movement op allowed is a concat of kernel inputs
  // along the innermost dim (DenseNet's channel concat) whose pieces'
  // innermost dims W divides: a vector of it lies in one piece, which the
  // template loads whole. Other data movement, reductions and other
  // broadcasts read elsewhere, except a row broadcast (rowBroadcastRun: a
  // statistic [.., R, 1] under [.., R, C], and the ops and expand computing
  // it), which is one element per vector when W divides its run: its lanes
  // read that element, not a vector of it (Swin-V2's division by the L2
  // norms of q and k). On static shapes, data movement that keeps the
  // innermost dim's runs (innermostRunOfMovement) is allowed too, and with
  // it views and elementwise ops of any shape: by induction from the output,
  // a vector of each value is W consecutive elements from a multiple of W
  // as long as W divides every innermost dim on the way (the loop template
  // reads such inputs as path vectors).
  ArrayRef<int64_t> outputShape = output.getShape();
  auto rowBroadcast = [&](ArrayRef<int64_t> shape) {
    return rowBroadcastRun(shape, outputShape);
  };
  int64_t innermost = 0;
  for (Operation &op : kernel.getBody().front().without_terminator()) {
    if (isa<ConstantOp>(op))
      continue;
    if (op.getNumResults() != 1)
      return 1;
    auto result = cast<RankedTensorType>(op.getResult(0).getType());
    FusionClass fusionClass = classifyForFusion(&op);
    bool whole = sameElementCount(result, output);
    // A view keeps the linear order: a vector of its result is one of its
    // operand. One of another count than the output's is read by runs of
    // its innermost dim when the width divides it (not as a row statistic
    // [.., R, 1], whose lanes share an element).
    bool staticShapes = output.hasStaticShape() && result.hasStaticShape();
    if (fusionClass == FusionClass::View && whole)
      continue;
    if (fusionClass == FusionClass::View && staticShapes) {
      auto operand = cast<RankedTensorType>(op.getOperand(0).getType());
      if (result.getRank() == 0 || operand.getRank() == 0)
        return 1;
      innermost = std::gcd(innermost, std::gcd(result.getShape().back(),
                                               operand.getShape().back()));
      continue;
    }
    if (isa<ExpandOp>(op) && whole && result.getShape() == outputShape) {
      int64_t run =
          rowBroadcast(cast<ShapedType>(op.getOperand(0).getType()).getShape());
      if (run == 0)
        return 1;
      innermost = std::gcd(innermost, run);
      continue;
    }
    if (auto concat = dyn_cast<ConcatOp>(op); concat && whole) {
      if (int64_t pieces = innermostConcatOfInputs(kernel, concat)) {
        innermost = std::gcd(innermost, pieces);
        continue;
      }
    }
    if (std::optional<int64_t> run = innermostRunOfMovement(op)) {
      if (*run == 0)
        return 1;
      innermost = std::gcd(innermost, *run);
      continue;
    }
    // Any other value is elementwise: of the output's count, a row broadcast
    // of the output, or (static) of a shape whose innermost dim the width
    // divides, whose vectors the movement above maps to the output's.
    int64_t resultRun = whole ? 0 : rowBroadcast(result.getShape());
    bool ownRuns = !whole && !resultRun && staticShapes && result.getRank() > 0;
    if (fusionClass != FusionClass::Pointwise ||
        (!whole && !resultRun && !ownRuns &&
         !keepsInnermostDim(result.getShape(), outputShape)))
      return 1;
    if (resultRun)
      innermost = std::gcd(innermost, resultRun);
    else if (!whole)
      innermost = std::gcd(innermost, result.getShape().back());
    for (Value operand : op.getOperands()) {
      auto type = cast<RankedTensorType>(operand.getType());
      if (isSingleElement(type) || type.getShape() == result.getShape())
        continue;
      if (int64_t run = rowBroadcast(type.getShape());
          run && result.getShape() == outputShape) {
        innermost = std::gcd(innermost, run);
        continue;
      }
      if (!keepsInnermostDim(type.getShape(), result.getShape()))
        return 1;
      innermost = std::gcd(innermost, result.getShape().back());
    }
  }
  // The element types of the values read or written by vector (a row
  // broadcast's input is read by element) bound the width to 16 bytes.
  int64_t width = kVectorBytes;
  for (BlockArgument argument : kernel.getBody().getArguments()) {
    Type type = argument.getType();
    if (rowBroadcast(cast<ShapedType>(type).getShape()))
      continue;
    int64_t bytes = elementBytes(type);
    if (bytes == 0)
      return 1;
    width = std::min(width, kVectorBytes / bytes);
  }
  // Vectors are linear runs of the output: only the element count matters,
  // and the loop template handles a tail; outputs smaller than a vector get
  // narrower vectors. With a run-time extent the count is a multiple of
  // the static trailing dims, which the width must divide: no tail, and
  // every count in the range takes whole vectors.
  int64_t trailing = staticTrailingElements(output);
  bool runTime = !output.hasStaticShape();
  while (width > 1 &&
         ((!runTime && output.getNumElements() < width) ||
          (runTime && trailing % width) || (innermost && innermost % width)))
    width /= 2;
  return std::max<int64_t>(width, 1);
}

/// 32-bit registers that the loop template's loads of one grid-stride step
/// may hold. It issues every unit's vector loads before computing, so each
/// input read by vector holds width x elements_per_thread values at once: a
/// Max of 255 inputs in vectors of 4 spilled 5 KB per thread and took ptxas
/// 2.7 s (0.3 s in scalars, which it schedules freely). Kernels of up to 8
/// inputs keep full 16-byte vectors and 4 of them per thread.
constexpr int64_t kMaxLoadRegisters = 128;

/// Narrows |perThread|, then |width|, until the vector loads of |kernel|'s
/// inputs for one step fit in kMaxLoadRegisters (width 1 always fits: scalar
/// loads are the CUDA compiler's to schedule).
void fitLoadRegisters(KernelOp kernel, int64_t &width, int64_t &perThread) {
  auto registers = [&] {
    int64_t total = 0;
    for (Value input : kernel.getInputs()) {
      auto type = cast<ShapedType>(input.getType());
      if (!type.hasStaticShape() || type.getNumElements() > 1)
        total += ceilDiv(width * elementBytes(type.getElementType()), 4);
    }
    return total * perThread;
  };
  while (width > 1 && registers() > kMaxLoadRegisters) {
    if (perThread > 1)
      perThread /= 2;
    else
      width /= 2;
  }
}

/// The widest vector (in elements) for rows of |rowLength| elements: 16
/// bytes of the widest element type among the tensors read or written a row
/// at a time (|rowInput|'s element count) or a column at a time (one row's
/// size);
/// others (a gather's indices, say) are read per element.
int64_t rowVectorWidth(KernelOp kernel, int64_t rowLength,
                       RankedTensorType rowInput) {
  int64_t width = kVectorBytes;
  for (Type type : kernel.getBody().getArgumentTypes()) {
    auto tensor = cast<RankedTensorType>(type);
    if (!sameElementCount(tensor, rowInput) &&
        !(tensor.hasStaticShape() && tensor.getNumElements() == rowLength))
      continue;
    int64_t bytes = elementBytes(type);
    if (bytes == 0)
      return 1;
    width = std::min(width, kVectorBytes / bytes);
  }
  while (width > 1 && rowLength % width != 0)
    width /= 2;
  return std::max<int64_t>(width, 1);
}

/// Threads per block for a softmax row of |rowLength| (> 1024) elements:
/// about kSoftmaxValuesPerThread each (four 16-byte vectors of f16), between
/// 128 and 1024 threads. Fewer, fuller threads than layer_norm's 512 keep
/// more bytes in flight per multiprocessor, since softmax reads one tensor
/// where layer_norm reads two, and make the block reductions cheaper. On the
/// H200, rows of 4096 f16 ([4096, 4096]) ran at 19.6-21.2 us with 128
/// threads (32 values each), 21.9 with 256, 33.5 with 512 and 86 with 1024
/// (benchmarks/results/2026-11-30-h200-kernels-softmax-tilings.json).
int64_t softmaxBlockSize(int64_t rowLength) {
  constexpr int64_t kSoftmaxValuesPerThread = 32;
  int64_t threads = 128;
  while (threads < 1024 && threads * kSoftmaxValuesPerThread < rowLength)
    threads *= 2;
  return threads;
}

struct TileKernelsPass : impl::KilnTileKernelsBase<TileKernelsPass> {
  using KilnTileKernelsBase::KilnTileKernelsBase;

  using Getter = std::optional<uint64_t> (KernelOp::*)();
  using Setter = void (KernelOp::*)(std::optional<uint64_t>);

  /// Sets one of |kernel|'s geometry attributes unless a test pinned it.
  void setIfAbsent(KernelOp kernel, Getter get, Setter set, int64_t value) {
    if (!(kernel.*get)())
      (kernel.*set)(value);
  }

  /// Records the variant of |kernel|'s template (KernelConfiguration.h) for
  /// kinds that have several, unless a test pinned it; returns the one that
  /// runs the kernel.
  std::optional<KernelVariant> chooseVariant(KernelOp kernel) {
    if (!kernel.getVariant() && kernelVariants(kernel.getKind()).size() > 1)
      if (std::optional<KernelVariant> variant = selectKernelVariant(
              kernel, int64_t(kernel.getBlockSize().value_or(0))))
        kernel.setVariant(*variant);
    return getKernelVariant(kernel);
  }

  /// The element count of |kernel|'s output at the largest shape its
  /// ranges allow; with run-time extents, records the count's expression
  /// (kElementCountAttrName) too. std::nullopt after a located error.
  std::optional<int64_t> largestElementCount(KernelOp kernel) {
    auto output = cast<RankedTensorType>(kernel.getResult(0).getType());
    bool dynamicInputs =
        llvm::any_of(kernel.getInputs().getTypes(), [](Type type) {
          return !cast<ShapedType>(type).hasStaticShape();
        });
    if (output.hasStaticShape()) {
      // A static output computed from run-time extents (a kiln.shape of a
      // ranged value, x[:, 0] of [batch, 1]): its count is a constant, and
      // the kernel still takes the dim parameters.
      if (dynamicInputs)
        kernel->setAttr(
            kElementCountAttrName,
            StringAttr::get(kernel.getContext(),
                            DimExpr::constant(output.getNumElements()).str()));
      return output.getNumElements();
    }
    std::vector<std::optional<DimExpr>> extents = getRecordedDimExprs(kernel);
    std::optional<DimExpr> count = DimExpr::constant(1);
    for (const std::optional<DimExpr> &extent : extents)
      count = count && extent ? *count * *extent : std::nullopt;
    llvm::MapVector<StringRef, DimRange> ranges =
        getDimRanges(kernel->getParentOfType<func::FuncOp>());
    std::optional<int64_t> largest =
        count && int64_t(extents.size()) == output.getRank()
            ? maximumExtent(*count, ranges)
            : std::nullopt;
    if (!largest) {
      kernel.emitError("kiln-tile-kernels: kernel '")
          << kernel.getSymName() << "' has run-time extents but no "
          << kDimExprsAttrName
          << " that gives its element count over the ranged dims";
      return std::nullopt;
    }
    kernel->setAttr(kElementCountAttrName,
                    StringAttr::get(kernel.getContext(), count->str()));
    return largest;
  }

  /// With run-time extents the geometry is chosen for the ranges' largest
  /// count: `grid_size` is the grid at that count, and at launch the grid
  /// is min(ceil(count / units per block), grid_size).
  void tileElementwise(KernelOp kernel) {
    std::optional<int64_t> largest = largestElementCount(kernel);
    if (!largest)
      return signalPassFailure();
    int64_t elements = *largest;
    // A test may pin any of the configuration: then the kernel has no
    // buckets either. The channels-last window templates have none.
    bool pinned = kernel.getBlockSize() || kernel.getVectorWidth() ||
                  kernel.getElementsPerThread() || kernel.getGridSize();
    bool loop = chooseVariant(kernel) != KernelVariant::ChannelsLastPool;
    if (!loop) {
      // A thread per output pixel x vector of channels, one per step (a
      // column reduction: a block per vectors of channels).
      std::optional<ChannelsLastWindow> window = getChannelsLastWindow(kernel);
      int64_t width = channelsLastWindowVectorWidth(kernel, *window);
      // A depthwise conv: up to kMaxDepthwisePixels adjacent pixels of a row
      // per thread (they share the input columns and weights of a window
      // row, each converted once: the fewer conversions per multiply-add
      // the more pixels), within kMaxDepthwiseAccumulators (narrower
      // vectors rather than fewer pixels: channels share nothing), halved
      // while the threads would not fill every multiprocessor with
      // kMinResidentThreads.
      int64_t pixels = 1;
      auto conv = dyn_cast<ConvOp>(window->op);
      if (conv)
        width = std::max<int64_t>(
            std::min(width, kMaxDepthwiseAccumulators / kMaxDepthwisePixels),
            1);
      setIfAbsent(kernel, &KernelOp::getVectorWidth, &KernelOp::setVectorWidth,
                  width);
      if (conv) {
        int64_t units = elements / int64_t(*kernel.getVectorWidth());
        int64_t rowPixels = std::max<int64_t>(
            cast<RankedTensorType>(conv.getResult().getType()).getDimSize(2),
            1);
        auto threads = [&](int64_t perThread) {
          return units / rowPixels * ceilDiv(rowPixels, perThread);
        };
        int64_t most = kMaxDepthwisePixels;
        pixels = depthwisePixelsPerThread(conv, most);
        while (pixels > 1 &&
               threads(pixels) < multiprocessors * kMinResidentThreads) {
          most /= 2;
          pixels = depthwisePixelsPerThread(conv, most);
        }
        // A thread per group of pixels (the last of a row may be partial),
        // in blocks of kDepthwiseBlockSize.
        setIfAbsent(kernel, &KernelOp::getElementsPerThread,
                    &KernelOp::setElementsPerThread, pixels);
        setIfAbsent(kernel, &KernelOp::getBlockSize, &KernelOp::setBlockSize,
                    kDepthwiseBlockSize);
        setIfAbsent(kernel, &KernelOp::getGridSize, &KernelOp::setGridSize,
                    std::clamp<int64_t>(
                        ceilDiv(threads(*kernel.getElementsPerThread()),
                                *kernel.getBlockSize()),
                        1, kMaxBlocksPerMultiprocessor * multiprocessors));
      }
      setIfAbsent(kernel, &KernelOp::getElementsPerThread,
                  &KernelOp::setElementsPerThread, pixels);
      if (window->kind == ChannelsLastWindowKind::ColumnReduction)
        return tileColumnReduction(kernel, window->op);
    }
    KernelBucket chosen = loopConfiguration(kernel, elements);
    setIfAbsent(kernel, &KernelOp::getBlockSize, &KernelOp::setBlockSize,
                chosen.blockSize);
    setIfAbsent(kernel, &KernelOp::getVectorWidth, &KernelOp::setVectorWidth,
                chosen.vectorWidth);
    setIfAbsent(kernel, &KernelOp::getElementsPerThread,
                &KernelOp::setElementsPerThread, chosen.elementsPerThread);
    int64_t perBlock = kernel.getBlockSize().value_or(kLoopBlockSize) *
                       kernel.getVectorWidth().value_or(1) *
                       kernel.getElementsPerThread().value_or(1);
    setIfAbsent(
        kernel, &KernelOp::getGridSize, &KernelOp::setGridSize,
        std::clamp<int64_t>(ceilDiv(elements, perBlock), 1,
                            kMaxBlocksPerMultiprocessor * multiprocessors));
    if (buckets && loop && !pinned)
      recordLoopBuckets(kernel, chosen);
  }

  /// The loop template's configuration for |elements| output elements:
  /// kLoopBlockSize threads, the widest vectors the accesses allow, one of
  /// them per thread up to loopOneEachMost elements (while that grid fits
  /// its cap), 4 past it (then every thread takes several steps anyway: 4
  /// vectors' loads go out at once), narrowed to kMaxLoadRegisters, and the
  /// grid that covers |elements| (capped). Measured on an H100
  /// (benchmarks/README.md, "One vector per thread"): 4 per thread from a
  /// million elements, as before, left mid-size kernels' grids under one
  /// wave of resident blocks, each thread one load -> compute -> store pass
  /// (BERT bs8's bias + GELU, 3.1M elements: 384 blocks); one per thread
  /// took 6-12% off the zoo's GELU and SiLU kernels of 1M-10M elements,
  /// while at 2^28 elements (past the cap) 4 per thread stayed 2% faster.
  KernelBucket loopConfiguration(KernelOp kernel, int64_t elements) {
    KernelBucket configuration;
    configuration.maxCount = elements;
    configuration.blockSize = kLoopBlockSize;
    configuration.vectorWidth = vectorWidth(kernel);
    configuration.elementsPerThread =
        elements > loopOneEachMost(kernel) ? 4 : 1;
    fitLoadRegisters(kernel, configuration.vectorWidth,
                     configuration.elementsPerThread);
    int64_t perBlock = configuration.blockSize * configuration.vectorWidth *
                       configuration.elementsPerThread;
    configuration.gridSize =
        std::clamp<int64_t>(ceilDiv(elements, perBlock), 1,
                            kMaxBlocksPerMultiprocessor * multiprocessors);
    return configuration;
  }

  /// The most elements the loop template takes one vector per thread for:
  /// a grid of kMaxBlocksPerMultiprocessor blocks per multiprocessor, in
  /// vectors of the kernel's widest width (where fitLoadRegisters narrows
  /// it, or a test pins the width or block, a count just below takes more
  /// than one grid-stride step: the rule is on the widest vectors).
  int64_t loopOneEachMost(KernelOp kernel) {
    return kMaxBlocksPerMultiprocessor * multiprocessors * kLoopBlockSize *
           vectorWidth(kernel);
  }

  /// Buckets (issue 18): a kernel with run-time extents is configured for
  /// the ranges' largest count, which is what every count can run with;
  /// where the configuration chosen at a smaller count differs, the kernel
  /// records a bucket. The one choice of loopConfiguration that depends on
  /// the count is the vectors per thread (4 past loopOneEachMost elements,
  /// else 1): when the ranges straddle that count, the bucket is the
  /// configuration chosen there, its max_count, so it is valid for every
  /// count up to it, as the kernel's own configuration is for every count
  /// of the ranges.
  void recordLoopBuckets(KernelOp kernel, const KernelBucket &chosen) {
    auto count = kernel->getAttrOfType<StringAttr>(kElementCountAttrName);
    std::optional<DimExpr> parsed =
        count ? DimExpr::parse(count.getValue()) : std::nullopt;
    if (!parsed || parsed->getConstant())
      return;
    std::optional<int64_t> smallest = minimumExtent(
        *parsed, getDimRanges(kernel->getParentOfType<func::FuncOp>()));
    if (!smallest)
      return;
    std::vector<KernelBucket> buckets;
    int64_t oneEachMost = loopOneEachMost(kernel);
    if (oneEachMost < chosen.maxCount &&
        oneEachMost >= std::max<int64_t>(*smallest, 1)) {
      KernelBucket bucket = loopConfiguration(kernel, oneEachMost);
      if (bucket.vectorWidth != chosen.vectorWidth ||
          bucket.elementsPerThread != chosen.elementsPerThread ||
          bucket.blockSize != chosen.blockSize)
        buckets.push_back(bucket);
    }
    setKernelBuckets(kernel, buckets);
  }

  /// A column reduction [outer, length, inner]: a block per (outer, row of
  /// vectors of channels), its rows of threads splitting the length: 256
  /// threads, 1024 when there are fewer blocks than multiprocessors (the
  /// SE means of an early stage: 16 blocks for [8, 112 x 112, 32] f16),
  /// never more rows than the length has nor more partials than the
  /// shared memory holds; a grid of every block, capped at 64 per
  /// multiprocessor (grid-stride).
  void tileColumnReduction(KernelOp kernel, Operation *reduce) {
    ColumnReductionExtents extents = *columnReductionExtents(reduce);
    int64_t width = int64_t(kernel.getVectorWidth().value_or(1));
    int64_t perRow = columnReductionVectorsPerRow(reduce, width);
    int64_t blocks =
        extents.outer * ceilDiv(ceilDiv(extents.inner, width), perRow);
    int64_t threads = blocks < multiprocessors ? 1024 : 256;
    int64_t rows = 1;
    while (rows * 2 <= extents.length && rows * 2 * perRow <= threads &&
           columnReductionPartialBytes(reduce, rows * 2 * perRow, perRow,
                                       width) <= kColumnReductionSharedBytes)
      rows *= 2;
    setIfAbsent(kernel, &KernelOp::getBlockSize, &KernelOp::setBlockSize,
                rows * perRow);
    setIfAbsent(kernel, &KernelOp::getGridSize, &KernelOp::setGridSize,
                std::clamp<int64_t>(
                    blocks, 1, kMaxBlocksPerMultiprocessor * multiprocessors));
  }

  /// With run-time rows (issue 18) the grid is chosen for the ranges'
  /// largest row count, and at launch it is ceil(rows / rows_per_block),
  /// capped there (launchUnitsPerBlock); the row length is static.
  void tileRowReduce(KernelOp kernel) {
    // The verifier has checked that the kernel has one row reduction.
    Operation *anchor = getKernelAnchor(kernel);
    auto input = cast<RankedTensorType>(anchor->getOperand(0).getType());
    // Row length: the product of the reduced trailing dims (softmax: 1 dim,
    // layer_norm: the dims from its axis on).
    int64_t rowLength = rowReduceLength(kernel);
    std::optional<RowReduceExtents> extents = rowReduceExtents(kernel);
    int64_t rows = extents ? extents->rows : 0;
    if (extents && extents->runTimeRows) {
      std::optional<int64_t> largest = largestElementCount(kernel);
      if (!largest)
        return signalPassFailure();
      bool perElement = isa<SoftmaxOp, LogSoftmaxOp, LayerNormOp>(anchor);
      rows = *largest / std::max<int64_t>(perElement ? rowLength : 1, 1);
    }
    bool softmax = isa<SoftmaxOp, LogSoftmaxOp>(anchor);
    if (isa<LayerNormOp>(anchor) ||
        (!softmax && isa<FloatType>(input.getElementType()))) {
      // The row is read (and a layer_norm's written) in 16-byte vectors
      // where it allows.
      setIfAbsent(kernel, &KernelOp::getVectorWidth, &KernelOp::setVectorWidth,
                  rowVectorWidth(kernel, rowLength, input));
    }
    bool warp = chooseVariant(kernel) == KernelVariant::WarpRows;
    if (softmax) {
      // Vectors as for layer_norm. A warp takes several rows of fewer
      // vectors than it has lanes (warpRowLanes); where the rows do not
      // allow that, narrower vectors keep the warp's lanes busy (rows of
      // 128 f16: 32 vectors of 4).
      int64_t width = rowVectorWidth(kernel, rowLength, input);
      while (warp && width > 1 && rowLength / width < kWarpSize &&
             warpRowLanes(rowLength / width, *extents) == kWarpSize)
        width /= 2;
      setIfAbsent(kernel, &KernelOp::getVectorWidth, &KernelOp::setVectorWidth,
                  width);
    }
    if (warp) {
      // Four warps a block, each taking 32 / lanes rows at once.
      int64_t lanes = warpRowLanes(kernel);
      setIfAbsent(kernel, &KernelOp::getRowsPerBlock,
                  &KernelOp::setRowsPerBlock, 4 * kWarpSize / lanes);
      setIfAbsent(kernel, &KernelOp::getBlockSize, &KernelOp::setBlockSize,
                  lanes * kernel.getRowsPerBlock().value_or(4));
    } else {
      setIfAbsent(kernel, &KernelOp::getRowsPerBlock,
                  &KernelOp::setRowsPerBlock, 1);
      setIfAbsent(kernel, &KernelOp::getBlockSize, &KernelOp::setBlockSize,
                  softmax ? softmaxBlockSize(rowLength)
                          : (rowLength >= 8192 ? 1024 : 512));
    }
    setIfAbsent(kernel, &KernelOp::getGridSize, &KernelOp::setGridSize,
                std::max<int64_t>(
                    ceilDiv(rows, kernel.getRowsPerBlock().value_or(1)), 1));
  }

  void tileTranspose(KernelOp kernel) {
    auto output = cast<RankedTensorType>(kernel.getResult(0).getType());
    // The verifier has checked that one transpose moves the innermost dim.
    auto transpose = cast<TransposeOp>(getKernelAnchor(kernel));
    setIfAbsent(kernel, &KernelOp::getBlockSize, &KernelOp::setBlockSize, 256);
    if (chooseVariant(kernel) == KernelVariant::ShortRows) {
      // A block per block_size output rows.
      int64_t rows = output.getNumElements() /
                     std::max<int64_t>(output.getShape().back(), 1);
      setIfAbsent(kernel, &KernelOp::getGridSize, &KernelOp::setGridSize,
                  std::max<int64_t>(
                      ceilDiv(rows, kernel.getBlockSize().value_or(256)), 1));
      return;
    }
    // Tiles span the output's innermost dim and the output dim that holds the
    // input's innermost dim; the other dims are batched over the grid.
    ArrayRef<int64_t> perm = transpose.getPerm();
    int64_t rank = perm.size();
    int64_t inner = rank - 1, outer = outputDimOfInputInner(perm);
    int64_t tiles = ceilDiv(output.getDimSize(inner), 32) *
                    ceilDiv(output.getDimSize(outer), 32);
    int64_t batch = output.getNumElements() /
                    std::max<int64_t>(output.getDimSize(inner) *
                                          output.getDimSize(outer),
                                      1);
    setIfAbsent(kernel, &KernelOp::getElementsPerThread,
                &KernelOp::setElementsPerThread, 4);
    setIfAbsent(kernel, &KernelOp::getGridSize, &KernelOp::setGridSize,
                std::max<int64_t>(tiles * batch, 1));
  }

  /// With run-time extents the flash kernel's blocks take tiles of
  /// kFlashAttentionWarps x 16 query rows of one (batch, head), B x
  /// ceil(sq / 64) of them, where the output's element count gives the
  /// runtime ceil(B x sq / 64) blocks, too few when sq is not a multiple
  /// of 64 (seq 77: 116 blocks for 192 tiles, seq 16: a quarter). The count
  /// recorded instead is the elements of whole tiles, B x (sq + 63) x dv
  /// (B x ceil(sq / 64) x 64 x dv for a static sq): ceil(count / (64 x
  /// dv)) covers every tile, with at most B blocks more.
  void recordFlashTileElements(KernelOp kernel) {
    auto attention = cast<AttentionOp>(getKernelAnchor(kernel));
    std::vector<std::optional<DimExpr>> extents =
        getRecordedDimExprs(attention);
    auto type = cast<RankedTensorType>(attention.getType());
    int64_t rank = type.getRank(), rowsPerTile = 16 * kFlashAttentionWarps;
    std::optional<DimExpr> count = DimExpr::constant(1);
    for (int64_t d = 0; d < rank && count; ++d) {
      std::optional<DimExpr> extent =
          type.isDynamicDim(d)
              ? (d < int64_t(extents.size()) ? extents[d] : std::nullopt)
              : DimExpr::constant(type.getDimSize(d));
      if (extent && d == rank - 2)
        extent = extent->getConstant()
                     ? DimExpr::constant((*extent->getConstant() +
                                          rowsPerTile - 1) /
                                         rowsPerTile * rowsPerTile)
                     : *extent + DimExpr::constant(rowsPerTile - 1);
      count = extent ? *count * *extent : std::nullopt;
    }
    // Without the attention's extents the output's count stays: every tile
    // is still visited by the grid-stride loop, on fewer blocks.
    if (count)
      kernel->setAttr(kElementCountAttrName,
                      StringAttr::get(kernel.getContext(), count->str()));
  }

  void tileAttention(KernelOp kernel) {
    // One block per (batch, query) row of the output [..., sq, dv]; with
    // run-time extents, at the ranges' largest count (recorded), the grid
    // at launch min(ceil(count / units per block), grid_size).
    auto output = cast<RankedTensorType>(kernel.getResult(0).getType());
    std::optional<int64_t> elements = largestElementCount(kernel);
    if (!elements)
      return signalPassFailure();
    int64_t rows = *elements / std::max<int64_t>(output.getShape().back(), 1);
    // The variant is chosen at 128 threads (the query-row template's
    // block, the flash template's one key group); the flash one then takes
    // flashKeyGroups groups, unless the block size was given.
    bool givenBlock = kernel.getBlockSize().has_value();
    setIfAbsent(kernel, &KernelOp::getBlockSize, &KernelOp::setBlockSize, 128);
    KernelVariant variant = *chooseVariant(kernel);
    if (variant == KernelVariant::Flash && !givenBlock)
      kernel.setBlockSize(32 * kFlashAttentionWarps *
                          flashKeyGroups(kernel, multiprocessors));
    if (variant == KernelVariant::QueryRows)
      setIfAbsent(kernel, &KernelOp::getKeyChunk, &KernelOp::setKeyChunk,
                  queryRowsKeyChunk(kernel));
    if (variant == KernelVariant::Flash &&
        kernel->hasAttr(kElementCountAttrName))
      recordFlashTileElements(kernel);
    setIfAbsent(kernel, &KernelOp::getGridSize, &KernelOp::setGridSize,
                std::clamp<int64_t>(
                    rows, 1, kMaxBlocksPerMultiprocessor * multiprocessors));
  }

  void runOnOperation() override {
    getOperation().walk([&](KernelOp kernel) {
      switch (kernel.getKind()) {
      case KernelKind::Pointwise:
      case KernelKind::DataMovement:
        return tileElementwise(kernel);
      case KernelKind::RowReduce:
        return tileRowReduce(kernel);
      case KernelKind::Transpose:
        return tileTranspose(kernel);
      case KernelKind::Attention:
        return tileAttention(kernel);
      case KernelKind::Library:
        return; // cuBLASLt and cuDNN choose at load time.
      }
    });
  }
};
} // namespace
} // namespace kiln
