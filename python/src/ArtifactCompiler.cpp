// The compiler half of the Python package: runs kiln-compile's phases (import,
// graph, fuse and tile, schedule, plan memory, CUDA emission, NVRTC, package)
// through the same library functions, collecting errors instead of printing.
#include "ArtifactCompiler.h"

#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/IR/Locations.h"
#include "kiln/Import/ONNXImporter.h"
#include "kiln/Package/Packager.h"
#include "kiln/Target/CUDA/CUDAEmitter.h"
#include "kiln/Target/CUDA/NVRTCCompiler.h"
#include "kiln/Transforms/Passes.h"
#include "kiln/Transforms/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Path.h"

#include <chrono>
#include <functional>

using namespace mlir;

namespace kiln::python {
namespace {

/// One compilation: its context, the errors it collected and its timings.
class Compilation {
public:
  explicit Compilation(const CompileRequest &request, CompileResult &result)
      : request(request), result(result), context(makeRegistry()),
        collectErrors(&context, [this](Diagnostic &diagnostic) {
          if (diagnostic.getSeverity() == DiagnosticSeverity::Error)
            addError(describe(diagnostic));
          return success();
        }) {
    context.loadAllAvailableDialects();
  }

  /// Runs the phases in order until one fails.
  void run() {
    using Body = bool (Compilation::*)();
    static const std::pair<const char *, Body> phases[] = {
        {"arch", &Compilation::parseArchs},
        {"import", &Compilation::importModel},
        {"graph", &Compilation::runGraphPipeline},
        {"fuse+tile", &Compilation::fuseAndTile},
        {"schedule+plan-memory", &Compilation::scheduleAndPlan},
        {"cuda-emit", &Compilation::emitCUDA},
        {"nvrtc", &Compilation::compileKernels},
        {"package", &Compilation::package},
    };
    for (const auto &[name, body] : phases)
      if (!phase(name, [&] { return (this->*body)(); }))
        return;
    result.ok = true;
  }

private:
  static DialectRegistry makeRegistry() {
    DialectRegistry registry;
    registry.insert<kiln::KilnDialect, func::FuncDialect>();
    kiln::registerCUDAElementalModels(registry);
    return registry;
  }

  static std::string describe(Diagnostic &diagnostic) {
    if (isa<UnknownLoc>(diagnostic.getLocation()))
      return diagnostic.str();
    return kiln::describeLocation(diagnostic.getLocation()) + ": " +
           diagnostic.str();
  }

  void addError(const std::string &message) {
    if (!result.errors.empty())
      result.errors += "\n";
    result.errors += message;
  }

  bool fail(const std::string &message) {
    addError(message);
    return false;
  }

  /// Runs |body| as the phase |name| and records its time.
  bool phase(const std::string &name, const std::function<bool()> &body) {
    auto start = std::chrono::steady_clock::now();
    bool ok = body();
    std::chrono::duration<double, std::milli> elapsed =
        std::chrono::steady_clock::now() - start;
    result.phaseMilliseconds.emplace_back(name, elapsed.count());
    // A pass that failed without a diagnostic still says where.
    if (!ok && result.errors.empty())
      addError("the " + name + " phase failed");
    return ok;
  }

  bool runPasses(const std::function<void(PassManager &)> &build) {
    PassManager pm(&context, ModuleOp::getOperationName());
    build(pm);
    return succeeded(pm.run(*module));
  }

  bool parseArchs() {
    auto parsed = kiln::parseGPUArchList(request.gpuArchs);
    if (!parsed)
      return fail(llvm::toString(parsed.takeError()));
    archs = std::move(*parsed);
    return true;
  }

  bool importModel() {
    auto imported =
        kiln::importONNXBytes(request.modelBytes, request.sourcePath, context);
    if (!imported)
      return fail(llvm::toString(imported.takeError()));
    module = std::move(*imported);
    kiln::setBoundsChecks(*module, request.boundsChecks);
    return true;
  }

  bool runGraphPipeline() {
    return runPasses([&](PassManager &pm) {
      kiln::GraphPipelineOptions options;
      options.inputShapes = request.inputShapes;
      options.precision = request.precision;
      kiln::buildGraphPipeline(pm, options);
    });
  }

  // The pipelines kiln-compile's phases run (lib/Transforms/Pipelines.cpp),
  // so that both compile a model to the same artifact.
  bool fuseAndTile() {
    return runPasses([](PassManager &pm) {
      kiln::buildFusePipeline(pm);
      kiln::buildTilePipeline(pm);
    });
  }

  bool scheduleAndPlan() {
    return runPasses([&](PassManager &pm) {
      kiln::buildSchedulePipeline(pm, request.maxStreams);
      kiln::buildPlanMemoryPipeline(pm);
    });
  }

  bool emitCUDA() {
    FailureOr<kiln::CUDAModule> emitted = kiln::emitCUDAModule(*module);
    if (failed(emitted))
      return false;
    cuda = std::move(*emitted);
    return true;
  }

  bool compileKernels() {
    kiln::NVRTCOptions options;
    options.archs = archs;
    options.keepPTX = true; // kiln-compile's default (--ptx).
    auto kernels = kiln::compileWithNVRTC(cuda.kernels, options);
    if (!kernels)
      return fail(llvm::toString(kernels.takeError()));
    compiled = std::move(*kernels);
    result.warnings = kiln::stackFrameWarnings(cuda.kernels, compiled);
    return true;
  }

  /// Whether the packager leaves external-data weights in their file.
  bool keepWeightsExternal() {
    if (request.externalWeights)
      return *request.externalWeights;
    return kiln::getExternalDataBytes(*module) >
           request.externalWeightsThreshold;
  }

  bool package() {
    kiln::PackageOptions options;
    options.archs = archs;
    options.cudaVersion = kiln::getNVRTCVersion();
    options.sourceModel = llvm::sys::path::filename(request.sourcePath).str();
    options.externalWeights = keepWeightsExternal();
    kiln::PackageSummary summary;
    if (failed(kiln::buildArtifact(*module, cuda, compiled, options,
                                   result.artifact, &summary)))
      return false;
    result.compilerVersion = kiln::getCompilerVersion();
    result.cudaVersion = options.cudaVersion;
    result.summary = {
        {"kernels", summary.kernels},
        {"launches", summary.launches},
        {"gemms", summary.gemms},
        {"convs", summary.convs},
        {"copies", summary.copies},
        {"streams", summary.streams},
        {"events", summary.events},
        {"weights", summary.weights},
        {"external_weights", summary.externalWeights},
        {"init_steps", summary.initSteps},
        {"activation_arena_bytes", summary.activationArenaBytes},
        {"weight_arena_bytes", summary.weightArenaBytes},
        {"workspace_bytes", summary.workspaceBytes},
        {"artifact_bytes", summary.artifactBytes},
    };
    return true;
  }

  const CompileRequest &request;
  CompileResult &result;
  MLIRContext context;
  ScopedDiagnosticHandler collectErrors;
  // What the phases make, in order.
  std::vector<std::string> archs;
  OwningOpRef<ModuleOp> module;
  kiln::CUDAModule cuda;
  kiln::NVRTCResult compiled;
};

} // namespace

CompileResult compileArtifact(const CompileRequest &request) {
  CompileResult result;
  Compilation(request, result).run();
  return result;
}

} // namespace kiln::python
