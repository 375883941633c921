// kiln-compile's phases: error and progress reporting, the pass pipelines it
// runs, and writing the IR, the CUDA C++ or the artifact.
#include "CompilePhases.h"
#include "BindInputs.h"
#include "CompileOptions.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/IR/Messages.h"
#include "kiln/Package/Packager.h"
#include "kiln/Target/CUDA/CUDAEmitter.h"
#include "kiln/Target/CUDA/NVRTCCompiler.h"
#include "kiln/Transforms/Pipelines.h"
#include "kiln/Transforms/Planning/LaunchGraph.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <functional>

#include <sys/resource.h>

using namespace mlir;

namespace kiln::compile {

void reportError(const llvm::Twine &message) {
  llvm::errs() << "kiln-compile: error: "
               << kiln::escapeNonPrintable(message.str()) << "\n";
}

/// The process's user and system time so far in milliseconds, all threads.
static double processCPUMilliseconds() {
  struct rusage usage;
  if (getrusage(RUSAGE_SELF, &usage) != 0)
    return 0;
  auto ms = [](const timeval &t) { return t.tv_sec * 1e3 + t.tv_usec / 1e3; };
  return ms(usage.ru_utime) + ms(usage.ru_stime);
}

/// Runs |body| as the phase |name| and prints its wall and CPU time (all
/// threads: NVRTC's pool makes the CPU time exceed the wall time) unless
/// --quiet.
bool runPhase(llvm::StringRef name, const std::function<bool()> &body) {
  auto start = std::chrono::steady_clock::now();
  double cpuStart = processCPUMilliseconds();
  bool ok = body();
  std::chrono::duration<double, std::milli> elapsed =
      std::chrono::steady_clock::now() - start;
  if (ok && !quiet)
    llvm::errs() << llvm::formatv("kiln-compile: {0} {1:f1} ms ({2:f1} ms "
                                  "CPU)\n",
                                  name, elapsed.count(),
                                  processCPUMilliseconds() - cpuStart);
  return ok;
}

/// Applies --bind-input to the imported module's entry function.
bool bindInputFiles(ModuleOp module) {
  std::vector<kiln::InputBinding> bindings;
  for (llvm::StringRef option : bindInputOptions) {
    auto [name, path] = option.split('=');
    if (name.empty() || path.empty()) {
      reportError("--bind-input expects name=file.pb, got '" + option + "'");
      return false;
    }
    bindings.push_back({name.str(), path.str()});
  }
  func::FuncOp function = kiln::getEntryFunction(module);
  if (!function) {
    reportError("the module has no entry function");
    return false;
  }
  if (llvm::Error error = kiln::bindInputs(function, bindings)) {
    reportError(llvm::toString(std::move(error)));
    return false;
  }
  return true;
}

bool runPipeline(ModuleOp module,
                 const std::function<void(OpPassManager &)> &build) {
  PassManager pm(module.getContext(), ModuleOp::getOperationName());
  if (failed(applyPassManagerCLOptions(pm)))
    return false;
  build(pm);
  return succeeded(pm.run(module));
}

std::vector<PhaseStep> phaseTable() {
  auto graphOptions = [](bool simplify) {
    kiln::GraphPipelineOptions options;
    options.inputShapes.assign(inputShapes.begin(), inputShapes.end());
    options.simplify = simplify;
    if (simplify)
      options.precision = precision;
    return options;
  };
  return {
      // --emit import with --input-shape: only specialise and refine.
      {"specialize", Phase::Import,
       [] { return emit == Phase::Import && !inputShapes.empty(); },
       [=](OpPassManager &pm) {
         kiln::buildGraphPipeline(pm, graphOptions(false));
       }},
      {"graph", Phase::Graph, nullptr,
       [=](OpPassManager &pm) {
         kiln::buildGraphPipeline(pm, graphOptions(true));
       }},
      {"fuse", Phase::Fused, nullptr, kiln::buildFusePipeline},
      {"tile", Phase::Tiled, nullptr,
       [](OpPassManager &pm) { kiln::buildTilePipeline(pm, launchBuckets); }},
      {"schedule", Phase::Planned, nullptr,
       [](OpPassManager &pm) { kiln::buildSchedulePipeline(pm, maxStreams); }},
      {"plan-memory", Phase::Planned, nullptr, kiln::buildPlanMemoryPipeline},
  };
}

namespace {

/// Whether the packager leaves external-data weights in their file.
bool keepWeightsExternal(ModuleOp module) {
  if (inlineWeights)
    return false;
  // Without external data the packager has nothing to leave out either way.
  return externalWeights ||
         kiln::getExternalDataBytes(module) > externalWeightsThreshold;
}

/// Writes |bytes| to |output| (binary) and keeps it.
bool writeBytes(llvm::StringRef bytes, llvm::ToolOutputFile &output) {
  output.os() << bytes;
  output.keep();
  return true;
}

/// The CUDA C++ of every unique kernel, one after the other.
std::string describeCUDA(const kiln::CUDAModule &cuda) {
  std::string text;
  for (const kiln::EmittedKernel &kernel : cuda.kernels)
    text += kernel.source + "\n";
  return text;
}

} // namespace

/// Prints the arena sizes the memory plan recorded on the entry function.
void printArenaSizes(ModuleOp module) {
  func::FuncOp function = kiln::getEntryFunction(module);
  if (quiet || !function)
    return;
  auto bytes = [&](llvm::StringRef name) -> int64_t {
    auto attr = function->getAttrOfType<IntegerAttr>(name);
    return attr ? attr.getInt() : 0;
  };
  llvm::errs() << llvm::formatv(
      "kiln-compile: activation arena {0} bytes, weight arena {1} bytes\n",
      bytes(kiln::kActivationArenaBytesAttr),
      bytes(kiln::kWeightArenaBytesAttr));
}

std::unique_ptr<llvm::ToolOutputFile> openOutput() {
  std::string errorMessage;
  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputFile, &errorMessage);
  if (!output)
    reportError(errorMessage);
  return output;
}

/// Prints |module| to |output| and keeps it.
bool writeOutput(ModuleOp module, llvm::ToolOutputFile &output) {
  // Weights are resource blobs; print neither them nor big folds as text.
  // Printing in local scope leaves out the resource section altogether
  // (eliding it would still hex-encode every blob first) and writes
  // locations inline.
  OpPrintingFlags flags;
  flags.elideLargeElementsAttrs(printElementLimit);
  if (!printWeights)
    flags.useLocalScope();
  module.print(output.os(), flags);
  output.os() << "\n";
  output.keep();
  return true;
}

/// --emit cuda: prints the kernels; --emit artifact: compiles them with
/// NVRTC, packages the artifact, writes it and prints a summary.
bool compileToCUDA(ModuleOp module, const std::vector<std::string> &archs,
                   llvm::ToolOutputFile &output) {
  kiln::CUDAModule cuda;
  bool ok = runPhase("cuda-emit", [&] {
    FailureOr<kiln::CUDAModule> emitted = kiln::emitCUDAModule(module);
    if (failed(emitted))
      return false;
    cuda = std::move(*emitted);
    return true;
  });
  if (!ok)
    return false;
  if (emit == Phase::Cuda)
    return runPhase("print",
                    [&] { return writeBytes(describeCUDA(cuda), output); });

  kiln::NVRTCResult compiled;
  ok = runPhase("nvrtc", [&] {
    kiln::NVRTCOptions options;
    options.archs = archs;
    options.keepPTX = keepPTX;
    options.kernelsPerProgram = kernelsPerProgram;
    auto result = kiln::compileWithNVRTC(cuda.kernels, options);
    if (!result) {
      reportError(llvm::toString(result.takeError()));
      return false;
    }
    compiled = std::move(*result);
    return true;
  });
  // A kernel that spills is slower than its template means it to be: said
  // even with --quiet, as a warning.
  if (ok)
    for (const std::string &warning :
         kiln::stackFrameWarnings(cuda.kernels, compiled))
      llvm::errs() << "kiln-compile: warning: " << warning << "\n";
  if (ok && !quiet)
    for (const kiln::CompiledProgram &program : compiled.programs)
      for (const std::string &relieved : program.relieved)
        llvm::errs() << "kiln-compile: nvrtc: recompiled " << relieved << "\n";
  // benchmarks/compile_time.py reads the programs and threads, the slowest
  // program's compiles in the pool (its time sums them over the archs, each
  // a job of the pool) and the spill retries, which run after the pool one
  // at a time: an idle machine's NVRTC phase takes at least the slowest
  // program's share, and then the retries.
  if (ok && !quiet) {
    const kiln::CompiledProgram *slowest = nullptr;
    double retryMilliseconds = 0;
    unsigned retries = 0;
    auto pooled = [](const kiln::CompiledProgram &program) {
      return program.milliseconds - program.spillRetryMilliseconds;
    };
    for (const kiln::CompiledProgram &program : compiled.programs) {
      if (!slowest || pooled(program) > pooled(*slowest))
        slowest = &program;
      retryMilliseconds += program.spillRetryMilliseconds;
      retries += program.spillRetries;
    }
    llvm::errs() << llvm::formatv(
        "kiln-compile: nvrtc: {0} kernels in {1} programs for {2} arch(s), "
        "{3} threads",
        compiled.kernels.size(), compiled.programs.size(), archs.size(),
        compiled.threads);
    if (slowest)
      llvm::errs() << llvm::formatv(
          "; the slowest program {0:F1} ms ({1} kernels)", pooled(*slowest),
          slowest->kernels.size());
    if (retries)
      llvm::errs() << llvm::formatv("; {0} spill retries {1:F1} ms", retries,
                                    retryMilliseconds);
    llvm::errs() << "\n";
  }
  std::string artifact;
  kiln::PackageSummary summary;
  if (ok)
    ok = runPhase("package", [&] {
      kiln::PackageOptions options;
      options.archs = archs;
      options.cudaVersion = kiln::getNVRTCVersion();
      options.sourceModel = llvm::sys::path::filename(inputFile).str();
      options.gemmWorkspaceBytes = gemmWorkspaceBytes;
      options.convWorkspaceBytes = convWorkspaceBytes;
      options.externalWeights = keepWeightsExternal(module);
      return succeeded(kiln::buildArtifact(module, cuda, compiled, options,
                                           artifact, &summary));
    });
  if (ok)
    ok = runPhase("write", [&] { return writeBytes(artifact, output); });
  // Buckets only with run-time extents, so that static summaries (which
  // benchmarks read) keep their form.
  std::string buckets = summary.buckets
                            ? llvm::formatv(", {0} bucket{1}", summary.buckets,
                                            summary.buckets == 1 ? "" : "s")
                                  .str()
                            : std::string();
  if (ok && !quiet)
    llvm::errs() << llvm::formatv(
        "kiln-compile: {0} kernels ({1} launches{14}), {2} library calls, {3} "
        "copies, {4} streams, {5} events; activation arena {6} bytes (+{7} "
        "workspace), weight arena {8} bytes ({11} of {12} weights external, "
        "{13} init steps); artifact {9} bytes for {10}\n",
        summary.kernels, summary.launches, summary.gemms + summary.convs,
        summary.copies, summary.streams, summary.events,
        summary.activationArenaBytes, summary.workspaceBytes,
        summary.weightArenaBytes, summary.artifactBytes, llvm::join(archs, ","),
        summary.externalWeights, summary.weights, summary.initSteps, buckets);
  return ok;
}

} // namespace kiln::compile
