// kiln-opt: runs kiln passes on MLIR files, for lit tests and debugging.
// Exit status: 0 done, 1 a pass or the verifier failed, 2 a usage or file
// error (tools/common/ExitCodes.h).
#include "ExitCodes.h"
#include "ToolCommandLine.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Transforms/PackDepthwiseWeights.h"
#include "kiln/Transforms/Passes.h"
#include "kiln/Transforms/Pipelines.h"
#include "kiln/Transforms/RecordDimExprs.h"
#include "kiln/Transforms/ResolveSymbolicReshapes.h"

#include "mlir/Debug/Counter.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace kiln::tools;
namespace cl = llvm::cl;

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  mlir::DialectRegistry registry;
  registry.insert<kiln::KilnDialect, mlir::func::FuncDialect>();
  mlir::registerCanonicalizerPass();
  mlir::registerCSEPass();
  kiln::registerKilnPasses();
  kiln::registerKilnRecordDimExprs();
  kiln::registerKilnResolveSymbolicReshapes();
  kiln::registerKilnPackDepthwiseWeights();
  kiln::registerKilnPipelines();

  cl::opt<std::string> inputFile(cl::Positional, cl::desc("<input.mlir>"),
                                 cl::init("-"), cl::cat(kilnCategory()));
  cl::opt<std::string> outputFile("o", cl::desc("Output file"),
                                  cl::value_desc("file"), cl::init("-"),
                                  cl::cat(kilnCategory()));
  // What mlir-opt registers; the options a kiln test or debugging session
  // uses are listed by --help, the rest by --help-hidden.
  mlir::MlirOptMainConfig::registerCLOptions(registry);
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  mlir::registerPassManagerCLOptions();
  mlir::registerDefaultTimingManagerCLOptions();
  mlir::tracing::DebugCounter::registerCLOptions();
  // "kiln-fuse-kernels" names the option that holds every registered pass.
  showOptions({"kiln-fuse-kernels", "pass-pipeline", "split-input-file",
               "verify-diagnostics", "show-dialects",
               "allow-unregistered-dialect", "mlir-print-ir-after-all",
               "mlir-print-ir-before-all", "mlir-print-ir-after-failure",
               "mlir-print-debuginfo", "mlir-elide-elementsattrs-if-larger",
               "mlir-timing"});
  if (!parseCommandLine(argc, argv,
                        "kiln-opt: runs kiln passes on MLIR files (the "
                        "passes are listed below; --help-hidden lists "
                        "MLIR's other options)\n"))
    return kExitUsageOrFileError;

  mlir::MlirOptMainConfig config =
      mlir::MlirOptMainConfig::createFromCLOptions();
  if (config.shouldShowDialects()) {
    llvm::outs() << "Available Dialects: ";
    llvm::interleaveComma(registry.getDialectNames(), llvm::outs());
    llvm::outs() << "\n";
    return kExitOk;
  }
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> input =
      mlir::openInputFile(inputFile, &error);
  if (!input) {
    llvm::errs() << "kiln-opt: error: " << error << "\n";
    return kExitUsageOrFileError;
  }
  std::unique_ptr<llvm::ToolOutputFile> output =
      mlir::openOutputFile(outputFile, &error);
  if (!output) {
    llvm::errs() << "kiln-opt: error: " << error << "\n";
    return kExitUsageOrFileError;
  }
  if (mlir::failed(
          mlir::MlirOptMain(output->os(), std::move(input), registry, config)))
    return kExitFailure;
  output->keep();
  return kExitOk;
}
