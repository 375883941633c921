// The configuration part of the kernel kinds' contract (docs/architecture.md
// "Kernel kinds"): which variant of its kind's template runs a kernel
// (short rows or 32x32 tiles, flash or query-row attention, the
// channels-last pool or the loop), chosen once by kiln-tile-kernels from
// checked preconditions with a fallback, recorded as the kernel's typed
// `variant` attribute, verified against the body by the kernel op's
// verifier and only carried out by the emitters. Also the analyses those
// preconditions are written in.
#ifndef KILN_DIALECT_KILN_KERNELKINDS_KERNELCONFIGURATION_H
#define KILN_DIALECT_KILN_KERNELKINDS_KERNELCONFIGURATION_H

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/IR/StridedView.h"

#include "llvm/ADT/ArrayRef.h"

#include <optional>
#include <string>

namespace kiln {

/// The widest vector access of a kernel, in bytes: every pointer a kernel
/// receives is proven 16-byte aligned and no more (LoopEmitter.cpp), so
/// tiling sizes vector widths by it and the emitters split anything wider.
constexpr int64_t kVectorBytes = 16;

/// The flash attention kernel's block: one or more key groups of
/// kFlashAttentionWarps warps of 16 query rows each (every group takes the
/// same kFlashAttentionWarps x 16 query rows, against its own share of the
/// key tiles); head sizes up to kFlashAttentionMaxHeadSize. A key group
/// holds a tile of kFlashAttentionKeys keys of K and of V in shared memory,
/// rows padded by kFlashAttentionPad elements; all groups together at most
/// kFlashAttentionSharedBytes, at most kFlashAttentionMaxKeyGroups groups
/// (the counts the kernel tests run). Up to kFlashAttentionStaticSharedBytes
/// the tiles are static shared memory; beyond, dynamic (the runtime allows
/// the kernel that much; 96 KiB is within the per-block limit of every GPU
/// the flash kernel runs on, sm_80 on, 99 KiB on sm_86/sm_89).
constexpr int64_t kFlashAttentionWarps = 4;
constexpr int64_t kFlashAttentionMaxHeadSize = 128;
constexpr int64_t kFlashAttentionKeys = 64;
constexpr int64_t kFlashAttentionPad = 8;
constexpr int64_t kFlashAttentionStaticSharedBytes = 48 * 1024;
constexpr int64_t kFlashAttentionSharedBytes = 96 * 1024;
constexpr int64_t kFlashAttentionMaxKeyGroups = 4;

/// The 2-byte elements of one shared-memory tile of the flash kernel: its
/// kFlashAttentionKeys rows of |cols| elements (a head size), each padded by
/// kFlashAttentionPad.
int64_t flashTileElements(int64_t cols);
/// The fp32 values a thread of a key group after the first posts for the
/// first to merge: its two rows' running max and sum, and its dv / 2 output
/// fragment values.
int64_t flashMergePostValues(int64_t dv);

/// The shared memory of the flash kernel with |groups| key groups, head
/// sizes |d| (keys) and |dv| (values), 2-byte elements: each group's key
/// and value tile, or, when more, what the groups after the first post for
/// the first to merge (per thread its rows' running max and sum and its
/// output fragments, fp32), which reuses the tiles' memory.
int64_t flashSharedBytes(int64_t groups, int64_t d, int64_t dv);

/// The key groups kiln-tile-kernels gives |kernel|'s flash attention (its
/// block_size is 32 x kFlashAttentionWarps x that) on |multiprocessors|:
/// two when the keys span at least kFlashKeyGroupsMinKeyTiles key tiles (all
/// of them: a mask known at compile time may let a query tile skip some,
/// which the emitter finds, not this rule), two groups' tiles fit static
/// shared memory (kFlashAttentionStaticSharedBytes) and the two-group
/// blocks of every query tile fit on the multiprocessors at once, counting
/// kFlashResidentGroups groups per multiprocessor: the one-group kernel's
/// blocks per multiprocessor (it takes 159-168 registers, 3 blocks of 128
/// threads), below the two-group kernel's own 4 (2 blocks of 256 at 128
/// registers, which the kernel tests' build takes; GPT-2's from NVRTC takes
/// 175, one block: docs/fusion.md), so the rule errs towards one group;
/// else one. A query tile's key tiles are visited one after the other, so
/// with few query tiles and many key tiles (GPT-2 bs1 s1024: 192 query
/// tiles for 132 multiprocessors, up to 16 key tiles) their count is the
/// kernel's time: two groups halve it and double the warps that hide each
/// other's latency (H100: 16.9 -> 13.7 us).
/// With few key tiles the merge and the lost overlap of one group's copies
/// with its own compute cost more than they save (BERT bs8 s128, 2 key
/// tiles: 6.3 -> 7.4 us), and when the two-group blocks do not all fit they
/// run in waves (ViT-B/16 bs8, 384 query tiles of 4 key tiles: 11.2 -> 16.5
/// us). Run-time extents: one (the tile counts are not known).
constexpr int64_t kFlashKeyGroupsMinKeyTiles = 8;
constexpr int64_t kFlashResidentGroups = 3;
int64_t flashKeyGroups(KernelOp kernel, int64_t multiprocessors);

/// The short-row transpose: output rows of at most this many elements, and
/// the shared memory its staged rows may take.
constexpr int64_t kShortRowElements = 16;
constexpr int64_t kShortRowSharedBytes = 32 * 1024;

/// The query_rows attention kernel scores keys in chunks of at most
/// kQueryRowsMaxKeyChunk, held in static shared memory (kQueryRowsSharedBytes)
/// beside the query row and 32 partials; a thread accumulates at most
/// kQueryRowsMaxOutputs output columns.
constexpr int64_t kQueryRowsMaxKeyChunk = 4096;
constexpr int64_t kQueryRowsSharedBytes = 48 * 1024;
constexpr int64_t kQueryRowsMaxOutputs = 32;

/// The keys per chunk of the query_rows template for |kernel|'s attention:
/// the keys, capped at kQueryRowsMaxKeyChunk and at what the shared memory
/// holds; 0 when |kernel| has no kiln.attention.
int64_t queryRowsKeyChunk(KernelOp kernel);

/// Row reductions of rows up to this many elements run a warp per row
/// (warp_rows); longer rows a block per row (block_rows).
constexpr int64_t kWarpRowElements = 1024;

/// The rows of a row_reduce kernel's anchor and the elements each reduces:
/// the input's dims before rowReductionFirstAxis multiply to the rows, the
/// dims from it on to the length (a softmax's last dim, a layer_norm's dims
/// from its axis on, a reduction's reduced trailing dims). The one place
/// that computes them: tiling, the variant preconditions and the emitter
/// all ask here. std::nullopt when the anchor is not a row reduction.
/// With a run-time extent among the row dims (the outermost, issue 18),
/// |runTimeRows| is set and |rows| is the product of the static row dims:
/// the rows per unit of that extent. The length is always static.
struct RowReduceExtents {
  int64_t rows = 1, length = 1;
  bool runTimeRows = false;
};
std::optional<RowReduceExtents> rowReduceExtents(KernelOp kernel);
/// rowReduceExtents(kernel)'s length; 0 when it has none.
int64_t rowReduceLength(KernelOp kernel);

/// warp_rows: the threads that share a row, a power of two. For static rows
/// of fewer |vectors| than a warp has lanes, the smallest power of two at
/// least its vectors for which the rows are a multiple of the 32 / lanes
/// rows a warp then takes at once (every row group of a warp runs the same
/// rows loop, so a shuffle keeps the whole warp); else 32, a warp per row.
/// Rows of 64 f16 in vectors of 8 take 8 lanes, 4 rows a warp; 10 rows of
/// 3 take 16 lanes (10 is a multiple of 2 rows, not of 8).
int64_t warpRowLanes(int64_t vectors, const RowReduceExtents &extents);
/// warpRowLanes for |kernel|'s rows in vectors of its `vector_width`
/// (1 when unset); 32 for a kernel that is not a row reduction.
int64_t warpRowLanes(KernelOp kernel);

/// The output elements one block of |kernel| covers per step of its grid,
/// for a kernel with run-time extents, whose grid is computed at launch as
/// ceil(count / units) (capped at the grid tiling chose): pointwise and
/// data_movement block_size x vector_width x elements_per_thread;
/// row_reduce rows_per_block rows of output (one element per row of a
/// reduction, a row's length of softmax and layer_norm); 0 for kinds
/// without run-time extents.
int64_t launchUnitsPerBlock(KernelOp kernel);

/// Whether |operand| broadcasts to |result| keeping the innermost dim: of
/// rank at most the result's, its dims (aligned at the end) each the
/// result's or 1, its last dim the result's (> 1). A bias row [C] and a
/// squeeze-excite scale [N, 1, 1, C] over [N, H, W, C] are such broadcasts:
/// W consecutive elements of the result, the first at a multiple of W where
/// W divides C, read W consecutive elements of |operand|, the first at a
/// multiple of W. The loop template reads them by vectors; kiln-tile-kernels
/// chooses its vector width by it.
bool keepsInnermostDim(llvm::ArrayRef<int64_t> operand,
                       llvm::ArrayRef<int64_t> result);

/// Whether |operand| is |result| with its innermost dims broadcast (a row
/// statistic: [N, 1] under [N, C], Swin-V2's L2 norms [.., 64, 1] under
/// [.., 64, 32]): of the result's rank, its leading dims the result's and
/// the rest 1, at least one of those > 1 in the result. Returns the
/// product of the result's broadcast dims (W consecutive elements of the
/// result, the first at a multiple of W, read one element of |operand|
/// when W divides it), else 0.
int64_t rowBroadcastRun(llvm::ArrayRef<int64_t> operand,
                        llvm::ArrayRef<int64_t> result);

/// The loop template loads a concat along the innermost dim by vectors (a
/// channel concat of channels-last pieces, DenseNet's): when every piece is
/// a kernel input whose innermost dim is a whole number of vectors, each
/// vector of the result lies in one piece, which the template chooses per
/// vector. The gcd of the pieces' innermost dims (which the vector width
/// must divide) when |concat| in |kernel| is such a concat, else 0.
int64_t innermostConcatOfInputs(KernelOp kernel, ConcatOp concat);

/// For a data-movement op that maps each run of its result's innermost dim
/// to a run of one operand's innermost dim (or to padding), element for
/// element: the sizes a vector width must divide so that a vector of the
/// result is a vector of that operand (or all padding), aligned as the
/// operand's own vectors are. std::nullopt for other ops, 0 for such an op
/// whose innermost dim moves. Static shapes only.
///  - transpose that keeps the innermost dim last (Swin's head split
///    [B, N, 3, h, d] -> [3, B, h, N, d], its window partition);
///  - pad of other dims (the pad's condition is one per row);
///  - slice of other dims, or of the innermost with step 1 from a start the
///    width divides (a channel slice [.., 2048] -> [.., 512] at 512);
///  - concat along another dim (Swin's roll).
/// A concat along the innermost dim of computed pieces gets none: each lane
/// would choose its piece by its own channel, and a warp's vectors span
/// several pieces (Swin-V2's patch merge, pieces of 96 channels: 20 -> 51 us
/// on the H100, 2026-12-07, a divergent 4-way branch per lane); a concat
/// of kernel inputs along it has the loop template's vector concat.
std::optional<int64_t> innermostRunOfMovement(mlir::Operation &op);

/// The output dim of a transpose with |perm| that holds the input's
/// innermost dim (the tiles' second dim; short rows need it second-innermost).
int64_t outputDimOfInputInner(llvm::ArrayRef<int64_t> perm);

/// The variants of |kind|'s template, the general one (the fallback, which
/// has no precondition beyond the kind's contract) first: pointwise: loop,
/// channels_last_pool; data_movement: loop; transpose: tiles, short_rows;
/// attention: query_rows, flash; row_reduce: warp_rows, block_rows. Empty
/// for library (no template).
llvm::ArrayRef<KernelVariant> kernelVariants(KernelKind kind);

/// The variant that runs |kernel|: its recorded `variant`, else its kind's
/// general one (a hand-tiled kernel); std::nullopt for kinds without
/// variants.
std::optional<KernelVariant> getKernelVariant(KernelOp kernel);

/// Why |variant| cannot run |kernel| with |blockSize| threads per block (not
/// checked when unknown), or an empty string when its preconditions hold.
std::string unmetVariantPrecondition(KernelOp kernel, KernelVariant variant,
                                     std::optional<int64_t> blockSize);

/// The variant kiln-tile-kernels records for |kernel| at |blockSize|
/// threads (0: not chosen yet): the first specialised variant of its kind
/// whose preconditions hold, else the general one; for row_reduce,
/// block_rows where rows are longer than kWarpRowElements and its
/// preconditions hold; std::nullopt for kinds without variants.
std::optional<KernelVariant> selectKernelVariant(KernelOp kernel,
                                                 int64_t blockSize);

/// Checks a recorded `variant`: one of the kind's, with its preconditions
/// met by the body and the recorded geometry. Called by
/// verifyKernelContract.
mlir::LogicalResult verifyKernelVariant(KernelOp kernel);

/// The channels-last float max or average pool that is |kernel|'s whole
/// body, reading its first input and yielded by every output; null
/// otherwise.
mlir::Operation *getChannelsLastPool(KernelOp kernel);

/// The channels a thread of the channels-last pool template takes for
/// |pool|: 16 bytes' worth, halved until it divides the channels (1 when
/// no vector of two does).
int64_t channelsLastPoolVectorWidth(mlir::Operation *pool);

/// The channels_last_pool variant is the channels-last window template: a
/// thread (or, for a column reduction, a block) per output pixel x a
/// 16-byte vector of channels, over one of these window ops
/// (getChannelsLastWindow says which the kernel holds):
///  - Pool: the kernel's whole body is one channels-last float max or
///    average pool of its first input (getChannelsLastPool);
///  - DepthwiseConv: one channels-last float depthwise conv (one channel per
///    group, as many output channels as input channels) of a kernel input,
///    its weight stored channels innermost (isDepthwiseWeightLayout of a
///    kernel input), with its pointwise epilogue of the conv's shape;
///  - ColumnReduction: one sum, mean or max over a contiguous run of axes
///    before the innermost (columnReductionExtents) with its prologue of
///    pointwise and data-movement ops (a channel concat), yielded as is.
/// (The variant keeps its first name until the dialect's enum is rebuilt
/// anyway: renaming an enum case recompiles every kiln source.)
enum class ChannelsLastWindowKind { Pool, DepthwiseConv, ColumnReduction };
struct ChannelsLastWindow {
  mlir::Operation *op = nullptr;
  ChannelsLastWindowKind kind = ChannelsLastWindowKind::Pool;
};
/// The window op of |kernel| when its body is one of the forms above;
/// std::nullopt otherwise, with the reason in |why| when given.
std::optional<ChannelsLastWindow>
getChannelsLastWindow(KernelOp kernel, std::string *why = nullptr);

/// The widest vector of channels (16 bytes of the widest type a thread
/// loads or stores, halved until it divides the channels; 1 when no vector
/// of two does) for |window| in |kernel|.
int64_t channelsLastWindowVectorWidth(KernelOp kernel,
                                      const ChannelsLastWindow &window);

/// The most adjacent output pixels of a row a thread of the depthwise conv
/// template takes (its `elements_per_thread`): they share the input columns
/// and the weights of a window row, each loaded and converted once.
constexpr int64_t kMaxDepthwisePixels = 8;

/// The accumulators (pixels x channels) a thread of the depthwise conv
/// template keeps: 8 pixels of 4 channels took 84 registers for ConvNeXt's
/// 7x7 f16 conv, 8 of 8 channels 192 (one block per multiprocessor).
constexpr int64_t kMaxDepthwiseAccumulators = 32;

/// The pixels per thread of the depthwise conv |conv| with at most |most|
/// (>= 1) of them: the output row in ceil(width / most) groups of equal size,
/// rounded up (56 columns: 8; 28: 7; 14: 7, or 4 with most = 4, the last
/// group reaching 2 past the row). kiln-tile-kernels halves |most| from
/// kMaxDepthwisePixels while the grid would leave multiprocessors short of
/// threads.
int64_t depthwisePixelsPerThread(ConvOp conv, int64_t most);

/// A column reduction's block (ChannelsLastWindowKind::ColumnReduction):
/// `vectorsPerRow` consecutive vectors of |width| channels (at least a
/// 32-byte sector, at most the vectors there are) by block_size /
/// vectorsPerRow threads along the reduced length (a power of two).
int64_t columnReductionVectorsPerRow(mlir::Operation *reduce, int64_t width);

/// The shared memory a column reduction's block keeps its warps' partial
/// results in (a vector per warp and vector of the row, in the computation
/// type; none for a block of one warp), and its limit.
int64_t columnReductionPartialBytes(mlir::Operation *reduce, int64_t blockSize,
                                    int64_t vectorsPerRow, int64_t width);
constexpr int64_t kColumnReductionSharedBytes = 32 * 1024;

/// The number of |kernel|'s input that |value| is, when it is one (a block
/// argument of the body below the outputs).
std::optional<unsigned> kernelInputNumber(KernelOp kernel, mlir::Value value);

/// Where an attention kernel reads |operand| (q, k or v): a kernel input
/// seen through the views, transposes and slices of the body that produce
/// it (a plain input: contiguous); std::nullopt when it is computed
/// otherwise.
struct StridedOperand {
  unsigned input;
  StridedLayout layout;
};
std::optional<StridedOperand> attentionOperandLayout(KernelOp kernel,
                                                     mlir::Value operand);

/// The layout in which |kernel|'s output holds |attention|'s result: the
/// kernel yields it through transposes and reshapes (contiguous when it
/// yields the result itself); std::nullopt for any other yield.
std::optional<StridedLayout> attentionOutputLayout(KernelOp kernel,
                                                   AttentionOp attention);

} // namespace kiln

#endif // KILN_DIALECT_KILN_KERNELKINDS_KERNELCONFIGURATION_H
