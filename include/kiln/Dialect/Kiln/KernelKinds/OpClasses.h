// How each kiln op takes part in a kernel: its fusion class (the cost
// model's vocabulary, docs/fusion.md), whether it anchors a row reduction,
// and which convolutions cuDNN runs. Shared by fusion, tiling, the kernel
// kinds' contracts (KernelKinds.h) and the targets.
#ifndef KILN_DIALECT_KILN_KERNELKINDS_OPCLASSES_H
#define KILN_DIALECT_KILN_KERNELKINDS_OPCLASSES_H

#include "mlir/IR/Operation.h"

#include <optional>

namespace kiln {

enum class FusionClass {
  Constant,     // kiln.constant: cloned into kernels when small, else an input.
  Pointwise,    // Elementwise ops (broadcasting included): fuse freely.
  View,         // Reshape-like: no data movement; fused as re-indexing, or an
                // alias outside kernels.
  DataMovement, // Transpose, concat, slice, gather, expand: elemental gathers.
  Reduction,    // Reduce*, softmax: a row reduction anchors a row_reduce
                // kernel; other axes become a serial loop in their own kernel.
  Library,      // MatMul, Gemm (cuBLASLt), 2-D Conv (cuDNN): library
                // calls; a conv takes its relu(+ residual) epilogue
                // (matchConvEpilogue), nothing else fuses.
  Attention,    // kiln.attention: an `attention` kernel of its own; absorbs
                // only views, transposes and slices it can address by
                // strides (matchAttentionStore, isStridedAttentionOperand);
                // is not absorbed.
  Window,       // Conv, ConvTranspose, pools: a pointwise-kind kernel of
                // their own that loops over the window per element; never
                // absorbs producers nor is absorbed (no recomputation).
  Unsupported,  // Anything code generation cannot handle.
};

FusionClass classifyForFusion(mlir::Operation *op);

/// True for a reduction over the trailing axes of its input (reduce ops), a
/// softmax or log_softmax over the last axis, or a layer_norm of static shape
/// (it normalises trailing dims): the anchor of a row_reduce kernel.
bool isRowReduction(mlir::Operation *op);

/// The sorted, normalised axes a reduce op (ReduceSum, Mean, Max, Min, Prod,
/// LogSumExp) reduces, or a softmax's or log_softmax's axis; std::nullopt
/// for other ops and for axes that are not constants.
std::optional<llvm::SmallVector<int64_t>> getReducedAxes(mlir::Operation *op);

/// For a row reduction (isRowReduction): the first of the trailing input
/// axes it reduces or normalises (a reduce's first reduced axis, a
/// softmax's last axis, a layer_norm's axis); the axes before it are the
/// rows. std::nullopt for any other op.
std::optional<int64_t> rowReductionFirstAxis(mlir::Operation *op);

/// A sum, mean or max reduction of a static float tensor whose reduced axes
/// are one contiguous run ending before the last axis, so that the kept axes
/// after the run are contiguous and innermost (a global pool of an NHWC
/// tensor reduces [1, 2] of [N, H, W, C]): its input seen as [outer, length,
/// inner], the products of the dims before, in and after the run. The
/// channels-last window template reduces it a block per (outer, vectors of
/// inner), its threads splitting the length.
struct ColumnReductionExtents {
  int64_t outer = 1, length = 1, inner = 1;
};
/// The extents of |op| when it is such a column reduction; std::nullopt
/// otherwise.
std::optional<ColumnReductionExtents>
columnReductionExtents(mlir::Operation *op);

/// True for a kiln.transpose that moves the innermost dim: inside any
/// elemental kernel it would read (or write) with a stride, so only the tiled
/// transpose template runs it, as the anchor of a `transpose` kernel.
bool isTiledTranspose(mlir::Operation *op);

/// cuDNN's legacy descriptors take int dims and strides: a library
/// convolution's tensors stay below this many elements (at the ranges'
/// maximum, with run-time extents).
inline constexpr int64_t kMaxLibraryElements = int64_t(1) << 31;

/// True for a kiln.conv that cuDNN runs as a `library` kernel: 2-D (4-D
/// tensors), static shapes, f32/f16/bf16, constant weights, symmetric pads,
/// and not a channels-last depthwise one (one input channel per group),
/// which a generated kernel runs faster fused with its neighbours. Other
/// convolutions stay elemental (Window).
bool isLibraryConvolution(mlir::Operation *op);

/// Whether |op| is a kiln.cast from f16 or bf16 to f32, which cuBLASLt
/// applies to a GEMM's output (A/B 16F or 16BF, C/D 32F, 32F compute).
bool isGemmOutputCast(mlir::Operation *op);

/// A channels-last (NHWC) grouped kiln.conv with one input channel per
/// group: a depthwise convolution.
bool isDepthwiseChannelsLast(mlir::Operation *op);

/// The permutation that reads a channels-last depthwise conv's weight
/// [C, R, S, 1] out of the same values stored channels innermost, [R, S, 1, C]
/// (kiln-pack-depthwise-weights).
inline constexpr int64_t kDepthwiseWeightPerm[] = {3, 0, 1, 2};

/// True for the kiln.transpose by kDepthwiseWeightPerm of a [R, S, 1, C]
/// value that only channels-last depthwise convolutions with one channel
/// per group read, as their weight: the layout kiln-pack-depthwise-weights
/// gives their constant weights. The kernel of such a conv takes it in
/// (the channels-last window template reads the stored [R, S, 1, C] weight
/// in vectors of channels; the loop template reads it through the
/// transpose).
bool isDepthwiseWeightLayout(mlir::Operation *op);

/// isLibraryConvolution without the constant weight and the depthwise rule:
/// true for a kiln.conv cuDNN could run once its weight is folded
/// (kiln-assign-layout's test: such convolutions run channels-last).
bool fitsLibraryConvolution(mlir::Operation *op);

} // namespace kiln

#endif // KILN_DIALECT_KILN_KERNELKINDS_OPCLASSES_H
