// kiln-compile: imports an ONNX model and runs kiln's phases up to the one
// that --emit names, printing a timed progress line per phase; with
// `-o model.kiln` (or --emit artifact) it runs the whole pipeline and writes
// the artifact. --bind-input turns graph inputs that feed only shape
// positions into constants. Exit status: 0 written, 1 a later phase failed,
// 2 a usage or file error or a model that does not import
// (tools/common/ExitCodes.h).
#include "BindInputs.h"
#include "CompileOptions.h"
#include "CompilePhases.h"
#include "ExitCodes.h"
#include "ToolCommandLine.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/IR/Locations.h"
#include "kiln/Dialect/Kiln/IR/Messages.h"
#include "kiln/Import/ONNXImporter.h"
#include "kiln/Target/CUDA/CUDAEmitter.h"
#include "kiln/Target/CUDA/NVRTCCompiler.h"
#include "kiln/Transforms/Planning/LaunchGraph.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace kiln::compile;
using namespace kiln::tools;

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  if (!kiln::tools::parseCommandLine(
          argc, argv,
          "kiln-compile: compiles an ONNX model to a .kiln artifact, or "
          "prints the IR or CUDA of one phase\n"))
    return kExitUsageOrFileError;
  if (!emit.getNumOccurrences()) {
    std::optional<Phase> phase = phaseForOutputFile(outputFile);
    if (!phase) {
      reportError("cannot tell what to write to '" + outputFile +
                  "' from its extension: -o FILE.kiln writes the artifact, "
                  "FILE.mlir the IR, FILE.cu the CUDA C++; for another name "
                  "say what to write with --emit");
      return kExitUsageOrFileError;
    }
    emit = *phase;
  }
  std::vector<std::string> archs;
  if (emit >= Phase::Cuda) {
    auto parsed = kiln::parseGPUArchList(gpuArchs);
    if (!parsed) {
      reportError(llvm::toString(parsed.takeError()));
      return kExitUsageOrFileError;
    }
    archs = std::move(*parsed);
  }
  std::unique_ptr<llvm::ToolOutputFile> output;
  if (!printShapeInputs && !(output = openOutput()))
    return kExitUsageOrFileError;

  DialectRegistry registry;
  registry.insert<kiln::KilnDialect, func::FuncDialect>();
  kiln::registerCUDAElementalModels(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Pass and verifier errors: one line each, with the ONNX node location;
  // at most 20 of a kind, the rest counted in one line when main returns.
  kiln::RepeatedDiagnosticLimit repeated;
  struct PrintCutDiagnostics {
    kiln::RepeatedDiagnosticLimit &repeated;
    ~PrintCutDiagnostics() {
      for (const std::string &line : repeated.summary())
        reportError(line);
    }
  } printCutDiagnostics{repeated};
  ScopedDiagnosticHandler printErrors(&context, [&](Diagnostic &diag) {
    if (diag.getSeverity() != DiagnosticSeverity::Error)
      return success();
    std::string location;
    if (!isa<UnknownLoc>(diag.getLocation()))
      location = kiln::describeLocation(diag.getLocation()) + ": ";
    std::string message = location + diag.str();
    if (repeated.admit(message))
      reportError(message);
    return success();
  });

  OwningOpRef<ModuleOp> module;
  bool ok = runPhase("import", [&] {
    kiln::ImportOptions options;
    options.inlineElementLimit = inlineElementLimit;
    auto imported = kiln::importONNXFile(inputFile, context, options);
    if (!imported) {
      reportError(llvm::toString(imported.takeError()));
      return false;
    }
    module = std::move(*imported);
    kiln::setBoundsChecks(*module, boundsChecks);
    return true;
  });
  if (!ok) // The model does not import: an input the tool cannot take.
    return kExitUsageOrFileError;
  if (printShapeInputs) {
    if (func::FuncOp function = kiln::getEntryFunction(*module))
      for (const std::string &name : kiln::listShapeInputs(function))
        llvm::outs() << name << "\n";
    return kExitOk;
  }
  // --bind-input names inputs and files: its errors are usage or file errors.
  if (!bindInputOptions.empty() &&
      !runPhase("bind-input", [&] { return bindInputFiles(*module); }))
    return kExitUsageOrFileError;
  // The phases up to --emit, from the table (each a named pipeline).
  for (const PhaseStep &step : phaseTable()) {
    if (!ok || emit < step.from || (step.enabled && !step.enabled()))
      continue;
    ok = runPhase(step.name, [&] { return runPipeline(*module, step.build); });
  }
  if (ok && emit >= Phase::Planned)
    printArenaSizes(*module);
  if (ok && emit >= Phase::Cuda)
    ok = compileToCUDA(*module, archs, *output);
  else if (ok)
    ok = runPhase("print", [&] { return writeOutput(*module, *output); });
  return ok ? kExitOk : kExitFailure;
}
