// The library kind's epilogue (docs/architecture.md "Kernel kinds"): what
// cuBLASLt or cuDNN fuses after the call. kiln-fuse-kernels records it on
// the library kernel as the typed `epilogue` attribute
// (#kiln.epilogue<addend = bias, activation = relu>), the kernel op's
// verifier checks it against the body, and the packager reads it instead
// of matching the body again.
#ifndef KILN_DIALECT_KILN_KERNELKINDS_LIBRARYEPILOGUE_H
#define KILN_DIALECT_KILN_KERNELKINDS_LIBRARYEPILOGUE_H

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include <string>

namespace kiln {

/// The ops of a library kernel's body after the call (its anchor), found by
/// following the anchor's result to the yield: views, at most one output
/// cast (isGemmOutputCast), one add of |addend| (and, for a GEMM, a second
/// add of |residual|) and one activation, in that order (the views and the
/// cast may mix).
struct LibraryEpilogueOps {
  mlir::Operation *anchor = nullptr;
  mlir::Operation *add = nullptr;        // The bias or residual add, or null.
  mlir::Value addend;                    // Its other operand.
  mlir::Operation *residualAdd = nullptr; // A second add (after a bias row's).
  mlir::Value residual;                   // Its other operand.
  mlir::Operation *activation = nullptr; // kiln.relu or tanh kiln.gelu.
  mlir::Operation *cast = nullptr;       // The output cast, or null.
  llvm::SmallVector<mlir::Operation *> chain; // The anchor and every op after.
};

/// The epilogue of |kernel| (a library kernel that satisfies the rest of
/// its contract: one anchor), or failure with |*why| saying which op the
/// library call cannot fuse. The kernel op's verifier checks that the body
/// holds nothing else but constants, and that the recorded epilogue is
/// describeLibraryEpilogue of it.
mlir::FailureOr<LibraryEpilogueOps> traceLibraryEpilogue(KernelOp kernel,
                                                         std::string *why);

/// The epilogue attribute that describes |ops| (addend a bias row, a
/// residual of the result's type, or a bias row and then a residual;
/// activation relu or tanh GELU; whether the product is cast to f32), or
/// failure with |*why| when the library call cannot fuse it: a conv takes
/// relu(conv + bias [+ residual]) only, a GEMM no bias row when it has a C
/// already, and two adds only as a bias row and then a residual.
mlir::FailureOr<LibraryEpilogueAttr>
describeLibraryEpilogue(const LibraryEpilogueOps &ops, std::string *why);

/// |kernel|'s recorded epilogue; the empty one (nothing fused) when it has
/// none.
LibraryEpilogueAttr getLibraryEpilogue(KernelOp kernel);

/// Whether |value| is a bias row cuBLASLt adds to every row of |result|
/// (views of |product|, the call's result): [n] or [1, .., 1, n] of
/// |result|'s element type, n the last dim of both, static.
bool isBiasRow(mlir::Value value, mlir::Value result, mlir::Value product);

/// Whether |op| is a transpose that swaps the last two dims of an operand of
/// a library MatMul (its only user) and keeps the others, on static shapes:
/// cuBLASLt reads that operand transposed (the step's trans_a/trans_b), so
/// the library kernel takes the transpose in rather than a kernel writing
/// it (q·kᵀ where the attention is not a kiln.attention: Swin's and
/// Swin-V2's windowed cosine attention).
bool isTransposedMatMulOperand(mlir::Operation *op);

} // namespace kiln

#endif // KILN_DIALECT_KILN_KERNELKINDS_LIBRARYEPILOGUE_H
