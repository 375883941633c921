// The contract of each kiln.kernel kind (docs/architecture.md "Kernel
// kinds"): what a kind admits (asked by fusion), what a kernel of the kind
// must satisfy (checked by the kernel op's verifier) and its anchor, the op
// whose shape the template follows (read by tiling and the emitters). One
// owner, so that fusion, tiling, the emitters and the packager cannot
// disagree about what a kind holds.
#ifndef KILN_DIALECT_KILN_KERNELKINDS_KERNELKINDS_H
#define KILN_DIALECT_KILN_KERNELKINDS_KERNELKINDS_H

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace kiln {

/// The kind of a kernel rooted at |root| before it grows: its fusion class
/// picks it (a row reduction: row_reduce; a tiled transpose: transpose;
/// other data movement: data_movement; a library call or an attention:
/// their own kinds; anything else, a window op or another reduction
/// included: pointwise).
KernelKind rootKernelKind(mlir::Operation *root);

/// Ops that fusion grows into one kernel of |kind| from its root, consumers
/// first (every op's users inside are already in |ops|). |anchor| is the
/// row reduction of a row_reduce group.
struct KernelGroup {
  KernelKind kind = KernelKind::Pointwise;
  mlir::Operation *anchor = nullptr;
  llvm::SetVector<mlir::Operation *> ops;
};

/// Whether |group| can compute |producer| too, by its kind's contract: an
/// elemental kind takes pointwise ops, views and data movement that keeps
/// the innermost dim (a tiled transpose gets a kernel of its own); a row
/// reduction joins a pointwise or data_movement group whose ops are all
/// pointwise ops or views of its result's shape, as its anchor, and no
/// group takes a second one; library and attention groups take nothing
/// (their epilogues and strided views are matched as a whole by fusion).
/// The caller has checked that every user of |producer| is in the group.
bool admits(const KernelGroup &group, mlir::Operation *producer);

/// Adds |producer|, which |group| admits, to it: a row reduction becomes the
/// anchor and the group a row_reduce.
void admit(KernelGroup &group, mlir::Operation *producer);

/// The anchor of |kernel| by its kind: the row reduction of a row_reduce
/// kernel, the tiled transpose of a transpose kernel, the kiln.attention of
/// an attention kernel, the matmul, gemm or conv of a library kernel; null
/// for pointwise and data_movement kernels (and for a kernel that breaks its
/// contract, which the verifier rejects).
mlir::Operation *getKernelAnchor(KernelOp kernel);

/// Checks |kernel| against its kind's contract, emitting a located error on
/// the kernel (naming the op that breaks it) when it does not hold, and then
/// its recorded configuration (verifyKernelVariant, KernelConfiguration.h).
/// The kernel op's verifier calls it, so a kernel no template can run fails
/// right after the pass that made it.
mlir::LogicalResult verifyKernelContract(KernelOp kernel);

/// The contract's third question (issue 18): whether a kernel of |kind| may
/// have loop extents that are run-time values (a ranged dim of
/// `--input-shape batch=1..64`). pointwise and data_movement: yes, the
/// element count is a kernel argument and the grid is computed at launch
/// (RunTimeExtents.cpp); every other kind: not yet.
bool takesRunTimeExtents(KernelKind kind);

/// Whether an operand or result of |op| has a dynamic dim.
bool hasRunTimeExtents(mlir::Operation *op);

/// Why |op| cannot compute with its run-time extents in a kernel of |kind|,
/// or std::nullopt when it can (or has none). In a pointwise or
/// data_movement kernel every operand and result has at most one run-time
/// extent, in its outermost dim (every dim before it 1), so that the loop
/// template's index arithmetic divides only by static strides and never
/// needs the extent's value; the op is pointwise, a view (a reshape by a
/// constant shape), a transpose, an expand, or a concat, slice or gather
/// whose axes are static dims.
std::optional<std::string> unmetRunTimeExtentRule(KernelKind kind,
                                                  mlir::Operation *op);

/// Whether |op| has run-time extents whose values its index arithmetic
/// needs: they are not in leading dims its operands and result agree on
/// (BERT's head split `[batch, seq, 12, 64]` to `[batch, 12, seq, 64]`, a
/// `[1, seq, 768]` table added to `[batch, seq, 768]`), it gathers along
/// one (its index bound), or it reads them as data (kiln.shape). Such an op
/// runs only in the loop template, whose kernel then takes every run-time
/// extent of every value as its expression over the dim parameters
/// (ElementalEmitter::extentsOf) instead of indexing a prefix as one.
bool indexesRunTimeExtentsByValue(mlir::Operation *op);

/// Whether some op of |kernel|'s body indexes run-time extents by value
/// (indexesRunTimeExtentsByValue): then no value of the kernel has its
/// run-time prefix collapsed into one extent (the CUDA target's
/// indexedShapeOf).
bool kernelIndexesRunTimeExtentsByValue(KernelOp kernel);

/// Why |ops| cannot share one kernel, or std::nullopt: one of them indexes
/// run-time extents by value and another has run-time extents that its CUDA
/// model indexes only as one leading extent (a reduction per output
/// element, a pool).
std::optional<std::string>
unmetByValueKernelRule(llvm::ArrayRef<mlir::Operation *> ops);

/// The ranged dims a kernel with run-time extents takes as `long long
/// kiln_dim<i>` parameters after its buffers, in name order: every ranged
/// dim of its function (so any extent of any value can be computed), or,
/// outside a function with ranges, the dims its element count names; empty
/// for a static kernel. The emitters and the packager (the launch's
/// dim_args) both take them from here.
std::vector<std::string> getKernelDimParameters(KernelOp kernel);

/// The kernel attribute in which kiln-tile-kernels records the element count
/// of a kernel with run-time extents, as the printed DimExpr (`batch*72`)
/// that DimExpr::parse reads back: the emitter computes the loop's count
/// from it and the packager the grid at launch. (A discardable attribute,
/// like kiln.dim_exprs, since an ODS change rebuilds every kiln source.)
inline constexpr llvm::StringLiteral kElementCountAttrName =
    "kiln.element_count";

/// The kernel attribute in which kiln-tile-kernels records the buckets of a
/// kernel with run-time extents (issue 18): an array, by ascending
/// `max_count`, of dictionaries of `max_count` and the configuration the
/// kernel takes at counts up to it (`vector_width`, `elements_per_thread`,
/// `block_size`, `grid_size`, as i64), where that differs from the
/// configuration chosen at the ranges' largest count. The CUDA target
/// emits one more kernel per bucket, the packager writes them as the
/// launch's LaunchBuckets. (Discardable, as kiln.element_count.)
inline constexpr llvm::StringLiteral kBucketsAttrName = "kiln.buckets";

/// One entry of kiln.buckets.
struct KernelBucket {
  int64_t maxCount = 0;
  int64_t vectorWidth = 1, elementsPerThread = 1, blockSize = 1, gridSize = 1;
};

/// |kernel|'s kiln.buckets; empty without them, std::nullopt (after a
/// located error) when the attribute is malformed or not ascending.
std::optional<std::vector<KernelBucket>> getKernelBuckets(KernelOp kernel);

/// Records |buckets| as |kernel|'s kiln.buckets (removes it when empty).
void setKernelBuckets(KernelOp kernel, llvm::ArrayRef<KernelBucket> buckets);

/// Gives |kernel| |bucket|'s configuration attributes (the CUDA target
/// emits each bucket's kernel this way, then restores the kernel's own).
void applyKernelBucket(KernelOp kernel, const KernelBucket &bucket);

} // namespace kiln

#endif // KILN_DIALECT_KILN_KERNELKINDS_KERNELKINDS_H
