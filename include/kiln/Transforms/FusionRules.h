// The fusion cost model's library epilogues, attention layouts and the
// rewrites before grouping. docs/fusion.md explains the rules;
// kiln-fuse-kernels applies them. The op classes are in OpClasses.h, what
// each kernel kind admits in KernelKinds.h.
#ifndef KILN_TRANSFORMS_FUSIONRULES_H
#define KILN_TRANSFORMS_FUSIONRULES_H

#include "kiln/Dialect/Kiln/KernelKinds/OpClasses.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Operation.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace kiln {

/// A library convolution with the epilogue cuDNN fuses after it
/// (cudnnConvolutionBiasActivationForward): relu(conv + bias [+ residual]).
struct ConvEpilogue {
  mlir::Operation *conv = nullptr;     // The kiln.conv (it has a bias).
  mlir::Operation *add = nullptr;      // The kiln.add of the residual, or null.
  mlir::Value residual;                // The other operand of |add|.
  mlir::Operation *relu = nullptr;     // The kiln.relu (the epilogue's root).
};

/// Matches |root| = relu(conv) or relu(add(conv, residual)) (either operand
/// order) where the conv is a library convolution (isLibraryConvolution)
/// with a bias, the residual has the conv's type (no broadcast), and the
/// conv and the add have no other users. Where both add operands are such
/// convolutions, the one whose input comes later is fused (the longer
/// branch; the shortcut conv can then run beside it on another stream).
std::optional<ConvEpilogue> matchConvEpilogue(mlir::Operation *root);

/// A library GEMM (kiln.matmul or kiln.gemm that cuBLASLt runs) with the
/// epilogue cuBLASLt fuses after it: act(gemm [+ bias row]) with act a relu
/// or a tanh GELU (cuBLASLt's GELU is the tanh form), gemm + bias row, or
/// gemm + residual (C, beta 1), through views that keep the element order (a
/// reshape of the result); and a cast of the product from f16/bf16 to f32
/// (isGemmOutputCast) among those views, after which the epilogue computes
/// in f32: cuBLASLt writes D (and reads C and the bias) in f32.
struct GemmEpilogue {
  mlir::Operation *gemm = nullptr;           // The kiln.matmul / kiln.gemm.
  llvm::SmallVector<mlir::Operation *> views; // Between gemm and the root.
  mlir::Operation *add = nullptr;             // The residual add, or null
                                              // (after biasAdd when both).
  mlir::Value residual;                      // Its other operand.
  mlir::Operation *biasAdd = nullptr;        // The add of a bias row, or null.
  mlir::Value bias;                          // That row ([n] or [1, .., n]).
  mlir::Operation *activation = nullptr;     // kiln.relu / kiln.gelu, or null.
  mlir::Operation *cast = nullptr;           // The output cast, or null.
  mlir::Operation *root = nullptr;           // The epilogue's last op.
};

/// Matches |root| = act(views(gemm) [+ bias] [+ residual]) (the activation
/// optional; act(views(gemm)), views(gemm) + bias, views(gemm) + bias +
/// residual, ...) or cast(views(gemm)), where
/// the views may include one output cast (isGemmOutputCast) (adds in either
/// operand order; the residual of the add's type, no broadcast; the bias a row
/// of the result's last dim, for a GEMM without one) where the GEMM is
/// classified Library and has no C of the result's shape (a bias row is
/// fine, except under a cast: the Gemm's C would be f16); every op but the
/// root has one user (the next op).
std::optional<GemmEpilogue> matchGemmEpilogue(mlir::Operation *root);

/// An attention stored through a transpose: |root| = transpose(views(
/// attention)) keeping the head dim innermost ([b, h, s, d] -> [b, s, h, d]),
/// every op but the root with one user. |chain| holds the attention's users
/// in order, the root last; the attention kernel writes its output in the
/// root's layout (AttentionLayouts.cpp).
struct AttentionStore {
  mlir::Operation *attention = nullptr;
  llvm::SmallVector<mlir::Operation *, 4> chain;
};
std::optional<AttentionStore> matchAttentionStore(mlir::Operation *root);

/// Whether the attention kernel can read |operand| (a q, k or v) through
/// |views| (views, transposes, slices that produce it, nearest first) as a
/// strided view of one buffer: rows of the head dim contiguous, every row
/// starting 8 elements aligned (the flash kernel's 16-byte copies).
bool isStridedAttentionOperand(mlir::Value operand,
                               llvm::ArrayRef<mlir::Operation *> views);

/// Rewrites run by kiln-fuse-kernels before grouping: a Gemm C the library
/// call cannot take becomes a separate add, MatMul batch dims broadcast only
/// in part are expanded, and outputs that are (views of) graph inputs get an
/// identity so that a kernel writes every output that is not a constant;
/// then output casts move onto the GEMM (sinkGemmOutputCasts).
void prepareForFusion(mlir::func::FuncOp function);

/// cast(act(views(gemm) + bias)) -> act(cast(views(gemm)) + cast(bias)) for
/// a library GEMM, isGemmOutputCast casts and a constant bias row (a Gemm's
/// C row or an added one) that folds to f32, so that the cast joins the
/// library call (GemmOutputCast.cpp). Casts above a residual add stay.
void sinkGemmOutputCasts(mlir::func::FuncOp function);

/// Constants with at most this many elements (or splats) are cloned into the
/// kernels that use them instead of becoming kernel inputs.
constexpr int64_t kMaxClonedConstantElements = 16;

} // namespace kiln

#endif // KILN_TRANSFORMS_FUSIONRULES_H
