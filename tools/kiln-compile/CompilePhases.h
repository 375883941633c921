// kiln-compile's phases: error and progress reporting, the pass pipelines it
// runs, and writing the IR, the CUDA C++ or the artifact.
#ifndef KILN_TOOLS_KILN_COMPILE_COMPILEPHASES_H
#define KILN_TOOLS_KILN_COMPILE_COMPILEPHASES_H

#include "CompileOptions.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/ToolOutputFile.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace kiln::compile {

void reportError(const llvm::Twine &message);

/// Runs |body| as the phase |name| and prints its time unless --quiet.
bool runPhase(llvm::StringRef name, const std::function<bool()> &body);

/// Applies --bind-input to the imported module's entry function.
bool bindInputFiles(mlir::ModuleOp module);

/// A phase of kiln-compile after import: its progress-line name, the
/// --emit phase from which on it runs, an extra condition (none: always)
/// and the pipeline builder (Pipelines.h) it runs on the module.
struct PhaseStep {
  llvm::StringRef name;
  Phase from;
  std::function<bool()> enabled;
  std::function<void(mlir::OpPassManager &)> build;
};

/// The phases in order, with the command line's options applied.
std::vector<PhaseStep> phaseTable();

/// Runs the pipeline that |build| adds to a module pass manager.
bool runPipeline(mlir::ModuleOp module,
                 const std::function<void(mlir::OpPassManager &)> &build);

/// Prints the arena sizes the memory plan recorded on the entry function.
void printArenaSizes(mlir::ModuleOp module);

/// The output file (-o), opened before any work so that an unwritable path
/// fails at once; NULL (the error reported) when it cannot be opened. It is
/// removed again unless a phase writes it and keeps it.
std::unique_ptr<llvm::ToolOutputFile> openOutput();

/// Prints |module| to |output| and keeps it.
bool writeOutput(mlir::ModuleOp module, llvm::ToolOutputFile &output);

/// --emit cuda: prints the kernels; --emit artifact: compiles them with
/// NVRTC, packages the artifact, writes it to |output| and prints a summary.
bool compileToCUDA(mlir::ModuleOp module, const std::vector<std::string> &archs,
                   llvm::ToolOutputFile &output);

} // namespace kiln::compile

#endif // KILN_TOOLS_KILN_COMPILE_COMPILEPHASES_H
