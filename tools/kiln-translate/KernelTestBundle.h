// Writing GPU kernel-test cases: tiled kernels compiled to cubins, random
// inputs, expected outputs from the CPU evaluator and a manifest that
// runtime/kernel-test/kiln-kernel-test runs on a GPU machine.
#ifndef KILN_TOOLS_KILN_TRANSLATE_KERNELTESTBUNDLE_H
#define KILN_TOOLS_KILN_TRANSLATE_KERNELTESTBUNDLE_H

#include "kiln/Target/CUDA/NVRTCCompiler.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <string>

namespace kiln {

struct BundleOptions {
  NVRTCOptions nvrtc;
  /// Runs fusion and tiling on a module holding an unfused function; null
  /// when this build has no kernel pipeline.
  std::function<mlir::LogicalResult(mlir::ModuleOp)> prepare;
};

/// Writes one case per function of |module| under |directory|/<case>/, where
/// <case> is |stem| (or |stem|.<function> for files with several). Functions
/// without kiln.kernel ops are prepared (fused and tiled) first; functions
/// with library kernels are written as skipped cases. Reports each case on
/// |log|.
llvm::Error writeKernelTestBundle(mlir::ModuleOp module, llvm::StringRef stem,
                                  llvm::StringRef directory,
                                  const BundleOptions &options,
                                  llvm::raw_ostream &log);

} // namespace kiln

#endif // KILN_TOOLS_KILN_TRANSLATE_KERNELTESTBUNDLE_H
