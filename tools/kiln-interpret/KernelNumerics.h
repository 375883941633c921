// kiln-interpret --kernel-numerics: the CPU evaluator computing compiled
// kernels as the CUDA templates do (float inside a kernel, f16/bf16 only
// where it stores and at its casts) instead of rounding after every op.
#ifndef KILN_TOOLS_KILN_INTERPRET_KERNELNUMERICS_H
#define KILN_TOOLS_KILN_INTERPRET_KERNELNUMERICS_H

#include "mlir/IR/BuiltinOps.h"

namespace kiln {

/// Rewrites the body of every kiln.kernel in |module| (after
/// compileToKernels): its f16/bf16 inputs are cast to f32 where they are
/// read, every op that produced an f16/bf16 value produces f32 (a cast to
/// f16/bf16, a constant or a fill keeps its type and is widened after it:
/// the cast still rounds), and the yielded values are cast to the kernel's
/// output types. The evaluator then rounds where the GPU does: at the
/// kernel's stores and casts (a library call's epilogue included). Not
/// modelled: the flash attention kernel's rounding of its probabilities to
/// f16 before P V.
void widenKernelIntermediates(mlir::ModuleOp module);

} // namespace kiln

#endif // KILN_TOOLS_KILN_INTERPRET_KERNELNUMERICS_H
