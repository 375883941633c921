// kiln-translate: tiled kiln IR -> CUDA C++ (--emit-cuda), checked with NVRTC,
// and GPU kernel-test bundles (--kernel-test-bundle DIR). Exit status: 0
// done, 1 the IR does not parse or emission or NVRTC failed, 2 a usage or
// file error.
#include "ExitCodes.h"
#include "KernelTestBundle.h"
#include "ToolCommandLine.h"

#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Target/CUDA/CUDAEmitter.h"
#include "kiln/Target/CUDA/NVRTCCompiler.h"
#include "kiln/Transforms/Passes.h"
#include "kiln/Transforms/Pipelines.h"
#include "kiln/Transforms/RecordDimExprs.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace kiln;
using namespace kiln::tools;
namespace cl = llvm::cl;

namespace {

cl::opt<std::string> inputFile(cl::Positional,
                               cl::desc("<tiled kiln IR .mlir>"), cl::init("-"),
                               cl::cat(kilnCategory()));
cl::opt<std::string> outputFile("o", cl::desc("Output file"), cl::init("-"),
                                cl::cat(kilnCategory()));
cl::opt<bool> emitCUDA("emit-cuda",
                       cl::desc("Print the CUDA C++ of every unique kernel"),
                       cl::cat(kilnCategory()));
cl::opt<std::string> bundleDir(
    "kernel-test-bundle", cl::value_desc("DIR"),
    cl::desc("Write GPU kernel-test cases (cubins, inputs, expected outputs, "
             "manifest) under DIR"),
    cl::cat(kilnCategory()));
cl::opt<bool> prepare("prepare",
                      cl::desc("Run pattern recognition and the kernel "
                               "pipeline (fuse + tile) first"),
                      cl::cat(kilnCategory()));
cl::opt<std::string>
    gpuArch("gpu-arch", cl::init("sm_90"),
            cl::desc("Comma-separated archs, e.g. sm_90,sm_80"),
            cl::cat(kilnCategory()));
cl::opt<bool> noCompile("no-compile", cl::desc("Do not compile with NVRTC"),
                        cl::cat(kilnCategory()));
cl::opt<bool> keepPTX("keep-ptx",
                      cl::desc("Also compile PTX for the newest arch"),
                      cl::cat(kilnCategory()));
cl::opt<bool> perProgramTiming("nvrtc-timing",
                               cl::desc("Print the NVRTC time of each program"),
                               cl::cat(kilnCategory()));
cl::opt<unsigned> kernelsPerProgram(
    "kernels-per-program", cl::init(NVRTCOptions().kernelsPerProgram),
    cl::desc("Most kernels one NVRTC program compiles (1: each alone)"),
    cl::cat(kilnCategory()));
cl::opt<unsigned> nvrtcThreads("nvrtc-threads", cl::init(0),
                               cl::desc("NVRTC worker threads (0: all cores)"),
                               cl::cat(kilnCategory()));
cl::opt<std::string> cudaInclude("cuda-include", cl::value_desc("DIR"),
                                 cl::desc("CUDA include dir given to NVRTC"),
                                 cl::cat(kilnCategory()));
cl::opt<bool>
    injectNVRTCError("test-nvrtc-inject-error", cl::Hidden,
                     cl::desc("Test hook: make every kernel source invalid"),
                     cl::cat(kilnCategory()));

/// Prints |message| as an error and returns |status|.
int fail(const llvm::Twine &message, int status = kExitFailure) {
  llvm::errs() << "kiln-translate: error: " << message << "\n";
  return status;
}

/// Pattern recognition (so that decomposed GELU and attention test the
/// kernels of kiln.gelu and kiln.attention against the decomposed graph),
/// fusion and tiling, when this build has them.
std::function<mlir::LogicalResult(mlir::ModuleOp)> kernelPipeline() {
#ifdef KILN_HAVE_KERNEL_PIPELINE
  return [](mlir::ModuleOp module) {
    mlir::PassManager pm(module.getContext());
    pm.addNestedPass<mlir::func::FuncOp>(createKilnRecognizePatterns());
    // A ranged case (kiln.dim_ranges) gets its extents as expressions, which
    // fusion and the templates read; a static one is only checked.
    pm.addNestedPass<mlir::func::FuncOp>(createKilnRecordDimExprs());
    buildKernelPipeline(pm);
    return pm.run(module);
  };
#else
  return nullptr;
#endif
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  if (!parseCommandLine(argc, argv, "kiln-translate: tiled kiln IR to CUDA\n"))
    return kExitUsageOrFileError;
  if (emitCUDA == !bundleDir.empty())
    return fail("give exactly one of --emit-cuda and --kernel-test-bundle",
                kExitUsageOrFileError);

  NVRTCOptions nvrtc;
  llvm::Expected<std::vector<std::string>> archs = parseGPUArchList(gpuArch);
  if (!archs)
    return fail(llvm::toString(archs.takeError()), kExitUsageOrFileError);
  nvrtc.archs = *archs;
  nvrtc.keepPTX = keepPTX;
  nvrtc.threads = nvrtcThreads;
  nvrtc.kernelsPerProgram = kernelsPerProgram;
  nvrtc.cudaIncludeDir = cudaInclude;
  nvrtc.injectError = injectNVRTCError;

  mlir::DialectRegistry registry;
  registry.insert<KilnDialect, mlir::func::FuncDialect>();
  registerCUDAElementalModels(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  std::string error;
  auto file = mlir::openInputFile(inputFile, &error);
  if (!file)
    return fail(error, kExitUsageOrFileError);
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &context);
  if (!module)
    return kExitFailure; // The parser reported where.

  auto pipeline = kernelPipeline();
  if (!bundleDir.empty()) {
    BundleOptions options;
    options.nvrtc = nvrtc;
    options.prepare = pipeline;
    std::string stem = llvm::sys::path::stem(inputFile).str();
    if (llvm::Error failure = writeKernelTestBundle(*module, stem, bundleDir,
                                                    options, llvm::outs()))
      return fail(llvm::toString(std::move(failure)));
    return kExitOk;
  }

  if (prepare) {
    if (!pipeline)
      return fail("--prepare: this build has no kernel pipeline "
                  "(kiln::buildKernelPipeline)",
                  kExitUsageOrFileError);
    if (mlir::failed(pipeline(*module)))
      return kExitFailure;
  }
  mlir::FailureOr<CUDAModule> cuda = emitCUDAModule(*module);
  if (mlir::failed(cuda))
    return kExitFailure;

  auto output = mlir::openOutputFile(outputFile, &error);
  if (!output)
    return fail(error, kExitUsageOrFileError);
  llvm::raw_ostream &os = output->os();
  for (auto [k, kernel] : llvm::enumerate(cuda->kernels)) {
    if (k)
      os << "// -----\n";
    os << kernel.source;
  }
  for (KernelLaunch launch : cuda->launches)
    if (launch.kernel < 0)
      os << "// kiln.kernel \"" << launch.op.getSymName()
         << "\" (library): executed by cuBLASLt in the runtime; no CUDA\n";
  if (!noCompile) {
    llvm::Expected<NVRTCResult> compiled =
        compileWithNVRTC(cuda->kernels, nvrtc);
    if (!compiled)
      return fail(llvm::toString(compiled.takeError()));
    size_t count = compiled->kernels.size();
    double total = 0;
    for (const CompiledProgram &program : compiled->programs) {
      total += program.milliseconds;
      if (perProgramTiming)
        os << "// nvrtc: " << program.name << " "
           << llvm::format("%.1f", program.milliseconds) << " ms\n";
    }
    os << "// nvrtc: " << count << " kernels for "
       << llvm::join(nvrtc.archs, ",") << (keepPTX ? " (+PTX)" : "") << " in "
       << llvm::format("%.1f", compiled->wallMilliseconds) << " ms ("
       << llvm::format("%.1f", count ? total / count : 0.0) << " ms/kernel, "
       << compiled->programs.size() << " programs, NVRTC " << getNVRTCVersion()
       << ", " << compiled->threads << " threads)\n";
  }
  output->keep();
  return kExitOk;
}
