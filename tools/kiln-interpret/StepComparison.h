// kiln-interpret --compare-steps and --dump-steps: the model compiled to the
// artifact's kernels, each kernel evaluated on the CPU on its own from a
// step dump's values of its inputs and compared with the dumped outputs,
// so that the first kernel whose outputs diverge is the wrong one.
#ifndef KILN_TOOLS_KILN_INTERPRET_STEPCOMPARISON_H
#define KILN_TOOLS_KILN_INTERPRET_STEPCOMPARISON_H

#include "StepDumpIndex.h"

#include "kiln/Evaluator/Tensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace kiln {

/// The per-kernel rel-L2 tolerance for a --precision: fp32 1e-5; tf32 and
/// fp16 2e-3; bf16 1.6e-2 (see docs/testing.md).
double defaultStepTolerance(llvm::StringRef precision);

/// kiln-compile's fuse and tile phases on |module|, after the graph
/// pipeline: outline the init program, require static shapes, fuse, tile.
/// The entry function's kiln.kernel ops are then the artifact's kernel
/// steps, in the same order and with the same names.
llvm::Error compileToKernels(mlir::ModuleOp module);

/// --compare-steps: runs |function| kernel by kernel. Each kernel reads the
/// dump's output of the kernel that produced each of its operands (the CPU's
/// own value where that was not dumped), graph inputs from the dump and
/// weights from the model; its outputs are compared with the dumped ones
/// (rel-L2 and max error; integers exactly). Prints a line per compared
/// kernel and, when one diverges beyond |tolerance|, the first one with its
/// ONNX nodes. Returns 0 when none diverges, 1 otherwise; an error when the
/// dump does not match this compile (names, dtypes, shapes).
llvm::Expected<int> compareSteps(mlir::ModuleOp module,
                                 mlir::func::FuncOp function,
                                 const std::string &directory,
                                 const StepDumpIndex &index, double tolerance,
                                 llvm::raw_ostream &os);

/// The compiled |function| run kernel by kernel on |inputs| (weights that
/// @kiln_init computes from a CPU run of it): its outputs.
llvm::Expected<std::vector<eval::Tensor>>
evaluateKernels(mlir::ModuleOp module, mlir::func::FuncOp function,
                llvm::ArrayRef<eval::Tensor> inputs);

/// --dump-steps on the CPU: writes |inputs| and every kernel's outputs as
/// kiln-run --dump-steps would (steps numbered by kernel), so that a dump
/// can be fabricated without a GPU (tests) or two dumps compared.
llvm::Error dumpSteps(mlir::ModuleOp module, mlir::func::FuncOp function,
                      llvm::ArrayRef<eval::Tensor> inputs,
                      const std::string &directory);

} // namespace kiln

#endif // KILN_TOOLS_KILN_INTERPRET_STEPCOMPARISON_H
