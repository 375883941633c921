// kiln-compile: imports an ONNX model and runs kiln's phases up to the one
// that --emit names, printing a timed progress line per phase; with
// `-o model.kiln` (or --emit artifact) it runs the whole pipeline and writes
// the artifact. --bind-input turns graph inputs that feed only shape
// positions into constants.
#include "BindInputs.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/IR/Locations.h"
#include "kiln/Import/ONNXImporter.h"
#include "kiln/Package/Packager.h"
#include "kiln/Target/CUDA/CUDAEmitter.h"
#include "kiln/Target/CUDA/NVRTCCompiler.h"
#include "kiln/Transforms/Passes.h"
#include "kiln/Transforms/Pipelines.h"
#include "kiln/Transforms/Planning/LaunchGraph.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <chrono>
#include <functional>

using namespace mlir;

namespace {

/// The phases in pipeline order; --emit stops after one of them.
enum class Phase { Import, Graph, Fused, Tiled, Planned, Cuda, Artifact };

llvm::cl::opt<std::string> inputFile(llvm::cl::Positional,
                                     llvm::cl::desc("<model.onnx>"),
                                     llvm::cl::Required);
llvm::cl::opt<std::string> outputFile("o", llvm::cl::desc("Output file"),
                                      llvm::cl::value_desc("file"),
                                      llvm::cl::init("-"));
llvm::cl::opt<Phase> emit(
    "emit", llvm::cl::desc("The phase whose result is written"),
    llvm::cl::values(
        clEnumValN(Phase::Import, "import",
                   "The imported kiln IR (specialised when --input-shape is "
                   "given, nothing folded)"),
        clEnumValN(Phase::Graph, "graph",
                   "After the graph passes: specialised, folded, simplified"),
        clEnumValN(Phase::Fused, "fused",
                   "After fusion: kiln.kernel regions (needs static shapes)"),
        clEnumValN(Phase::Tiled, "tiled",
                   "After tiling: kernels with launch geometry attributes"),
        clEnumValN(Phase::Planned, "planned",
                   "After scheduling and memory planning: streams, events, "
                   "arena offsets"),
        clEnumValN(Phase::Cuda, "cuda", "The CUDA C++ of every unique kernel"),
        clEnumValN(Phase::Artifact, "artifact",
                   "The .kiln artifact (the default when -o ends in .kiln)")),
    llvm::cl::init(Phase::Graph));
llvm::cl::opt<std::string> gpuArchs(
    "gpu-arch",
    llvm::cl::desc("GPU architectures to build cubins for, e.g. sm_90,sm_80"),
    llvm::cl::init("sm_90"));
llvm::cl::opt<bool> keepPTX(
    "ptx",
    llvm::cl::desc("Also keep PTX for GPUs newer than every arch (default on)"),
    llvm::cl::init(true));
llvm::cl::opt<int64_t> maxStreams(
    "max-streams", llvm::cl::desc("Most CUDA streams the schedule uses"),
    llvm::cl::init(4));
llvm::cl::opt<uint64_t> gemmWorkspaceBytes(
    "gemm-workspace-bytes",
    llvm::cl::desc("cuBLASLt workspace after the activation arena"),
    llvm::cl::init(32ull << 20));
llvm::cl::opt<uint64_t> convWorkspaceBytes(
    "conv-workspace-bytes",
    llvm::cl::desc("Most workspace a cuDNN convolution algorithm may use"),
    llvm::cl::init(64ull << 20));
llvm::cl::list<std::string> inputShapes(
    "input-shape",
    llvm::cl::desc("Input or dimension sizes: name=8x128 or seq=128 "
                   "(repeatable, comma-separated)"),
    llvm::cl::CommaSeparated);
llvm::cl::list<std::string> bindInputOptions(
    "bind-input",
    llvm::cl::desc(
        "Bind graph input NAME to the constant in FILE (TensorProto .pb or "
        ".npy), removing it from the signature (repeatable). Allowed only "
        "for inputs that feed shape positions (Reshape/Expand shape, Slice "
        "starts/ends/axes/steps, Squeeze/Unsqueeze/Reduce* axes, Tile "
        "repeats, Pad pads/axes, Resize roi/scales/sizes, TopK/Trilu k, "
        "Range, ConstantOfShape, OneHot depth, Split split, Loop trip "
        "count and cond); any other "
        "input is an error and stays a runtime input"),
    llvm::cl::value_desc("name=file.pb"));
llvm::cl::opt<bool> printShapeInputs(
    "print-shape-inputs",
    llvm::cl::desc("Print the graph inputs that feed only shape positions "
                   "(those --bind-input accepts), one per line, and exit"));
llvm::cl::opt<bool> quiet("quiet", llvm::cl::desc("No progress lines"));
llvm::cl::opt<int64_t> inlineElementLimit(
    "inline-element-limit",
    llvm::cl::desc("Initializers with more elements become resource blobs"),
    llvm::cl::init(64));
llvm::cl::opt<int64_t> printElementLimit(
    "print-element-limit",
    llvm::cl::desc("Elements attributes with more elements print elided"),
    llvm::cl::init(256));

llvm::cl::opt<std::string> precision(
    "precision",
    llvm::cl::desc("Compute precision: fp32 (default; GEMMs without TF32), "
                   "tf32 (fp32 GEMMs may use TF32), fp16 or bf16 (fp32 "
                   "accumulation, softmax and norm statistics in fp32)"),
    llvm::cl::init("fp32"));
llvm::cl::opt<bool> externalWeights(
    "external-weights",
    llvm::cl::desc("Leave weights that come from the model's ONNX external "
                   "data in that file; the artifact references them by file, "
                   "offset, length and hash (default: when they exceed "
                   "--external-weights-threshold)"));
llvm::cl::opt<bool> inlineWeights(
    "inline-weights",
    llvm::cl::desc("Copy every weight into the artifact"));
llvm::cl::opt<uint64_t> externalWeightsThreshold(
    "external-weights-threshold",
    llvm::cl::desc("Bytes of external-data weights above which they stay "
                   "external without --external-weights"),
    llvm::cl::init(64ull << 20));

llvm::cl::opt<bool> printWeights(
    "print-weights",
    llvm::cl::desc("Also print the weight blobs (as hex), so that the output "
                   "parses back with its weights"));

void reportError(const llvm::Twine &message) {
  llvm::errs() << "kiln-compile: error: " << message << "\n";
}

/// Runs |body| as the phase |name| and prints its time unless --quiet.
bool runPhase(llvm::StringRef name, const std::function<bool()> &body) {
  auto start = std::chrono::steady_clock::now();
  bool ok = body();
  std::chrono::duration<double, std::milli> elapsed =
      std::chrono::steady_clock::now() - start;
  if (ok && !quiet)
    llvm::errs() << llvm::formatv("kiln-compile: {0} {1:f1} ms\n", name,
                                  elapsed.count());
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

/// Runs the graph pipeline; |simplify| false only specialises and refines.
bool runGraphPipeline(ModuleOp module, bool simplify) {
  PassManager pm(module.getContext(), ModuleOp::getOperationName());
  if (failed(applyPassManagerCLOptions(pm)))
    return false;
  kiln::GraphPipelineOptions options;
  options.inputShapes.assign(inputShapes.begin(), inputShapes.end());
  options.simplify = simplify;
  if (simplify)
    options.precision = precision;
  kiln::buildGraphPipeline(pm, options);
  return succeeded(pm.run(module));
}

/// Runs function passes on every function of |module|.
bool runFunctionPasses(
    ModuleOp module,
    llvm::ArrayRef<std::function<std::unique_ptr<Pass>()>> passes) {
  PassManager pm(module.getContext(), ModuleOp::getOperationName());
  if (failed(applyPassManagerCLOptions(pm)))
    return false;
  for (const auto &create : passes)
    pm.addNestedPass<func::FuncOp>(create());
  return succeeded(pm.run(module));
}

/// Whether the packager leaves external-data weights in their file.
bool keepWeightsExternal(ModuleOp module) {
  if (inlineWeights)
    return false;
  auto origins = module->getAttrOfType<DictionaryAttr>(kiln::kExternalDataAttr);
  if (!origins)
    return false;
  uint64_t bytes = 0;
  for (NamedAttribute origin : origins)
    if (auto range = dyn_cast<ArrayAttr>(origin.getValue());
        range && range.size() == 3)
      if (auto length = dyn_cast<IntegerAttr>(range[2]))
        bytes += length.getInt();
  return externalWeights || bytes > externalWeightsThreshold;
}

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

/// Writes |bytes| to the output file (binary).
bool writeBytes(llvm::StringRef bytes) {
  std::string errorMessage;
  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputFile, &errorMessage);
  if (!output) {
    reportError(errorMessage);
    return false;
  }
  output->os() << bytes;
  output->keep();
  return true;
}

/// The CUDA C++ of every unique kernel, one after the other.
std::string describeCUDA(const kiln::CUDAModule &cuda) {
  std::string text;
  for (const kiln::EmittedKernel &kernel : cuda.kernels)
    text += kernel.source + "\n";
  return text;
}

bool writeOutput(ModuleOp module) {
  std::string errorMessage;
  std::unique_ptr<llvm::ToolOutputFile> output =
      openOutputFile(outputFile, &errorMessage);
  if (!output) {
    reportError(errorMessage);
    return false;
  }
  // Weights are resource blobs; print neither them nor big folds as text.
  // Printing in local scope leaves out the resource section altogether
  // (eliding it would still hex-encode every blob first) and writes
  // locations inline.
  OpPrintingFlags flags;
  flags.elideLargeElementsAttrs(printElementLimit);
  if (!printWeights)
    flags.useLocalScope();
  module.print(output->os(), flags);
  output->os() << "\n";
  output->keep();
  return true;
}

/// --emit cuda: prints the kernels; --emit artifact: compiles them with
/// NVRTC, packages the artifact, writes it and prints a summary.
bool compileToCUDA(ModuleOp module, const std::vector<std::string> &archs) {
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
    return runPhase("print", [&] { return writeBytes(describeCUDA(cuda)); });

  kiln::NVRTCResult compiled;
  ok = runPhase("nvrtc", [&] {
    kiln::NVRTCOptions options;
    options.archs = archs;
    options.keepPTX = keepPTX;
    auto result = kiln::compileWithNVRTC(cuda.kernels, options);
    if (!result) {
      reportError(llvm::toString(result.takeError()));
      return false;
    }
    compiled = std::move(*result);
    return true;
  });
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
      return succeeded(kiln::buildArtifact(module, cuda, compiled.kernels,
                                           options, artifact, &summary));
    });
  if (ok)
    ok = runPhase("write", [&] { return writeBytes(artifact); });
  if (ok && !quiet)
    llvm::errs() << llvm::formatv(
        "kiln-compile: {0} kernels ({1} launches), {2} library calls, {3} "
        "copies, {4} streams, {5} events; activation arena {6} bytes (+{7} "
        "workspace), weight arena {8} bytes ({11} of {12} weights external, "
        "{13} init steps); artifact {9} bytes for {10}\n",
        summary.kernels, summary.launches, summary.gemms + summary.convs,
        summary.copies, summary.streams, summary.events,
        summary.activationArenaBytes, summary.workspaceBytes,
        summary.weightArenaBytes, summary.artifactBytes, llvm::join(archs, ","),
        summary.externalWeights, summary.weights, summary.initSteps);
  return ok;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerAsmPrinterCLOptions();
  registerMLIRContextCLOptions();
  registerPassManagerCLOptions();
  llvm::cl::ParseCommandLineOptions(argc, argv, "kiln ONNX compiler\n");
  if (!emit.getNumOccurrences() && llvm::StringRef(outputFile).ends_with(".kiln"))
    emit = Phase::Artifact;
  std::vector<std::string> archs;
  if (emit >= Phase::Cuda) {
    auto parsed = kiln::parseGPUArchList(gpuArchs);
    if (!parsed) {
      reportError(llvm::toString(parsed.takeError()));
      return 1;
    }
    archs = std::move(*parsed);
  }

  DialectRegistry registry;
  registry.insert<kiln::KilnDialect, func::FuncDialect>();
  kiln::registerCUDAElementalModels(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Pass and verifier errors: one line each, with the ONNX node location.
  ScopedDiagnosticHandler printErrors(&context, [](Diagnostic &diag) {
    if (diag.getSeverity() != DiagnosticSeverity::Error)
      return success();
    std::string location;
    if (!isa<UnknownLoc>(diag.getLocation()))
      location = kiln::describeLocation(diag.getLocation()) + ": ";
    reportError(location + diag.str());
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
    return true;
  });
  if (ok && printShapeInputs) {
    if (func::FuncOp function = kiln::getEntryFunction(*module))
      for (const std::string &name : kiln::listShapeInputs(function))
        llvm::outs() << name << "\n";
    return 0;
  }
  if (ok && !bindInputOptions.empty())
    ok = runPhase("bind-input", [&] { return bindInputFiles(*module); });
  if (ok && emit == Phase::Import && !inputShapes.empty())
    ok = runPhase("specialize",
                  [&] { return runGraphPipeline(*module, false); });
  if (ok && emit >= Phase::Graph)
    ok = runPhase("graph", [&] { return runGraphPipeline(*module, true); });
  if (ok && emit >= Phase::Fused)
    ok = runPhase("fuse", [&] {
      PassManager pm(module->getContext(), ModuleOp::getOperationName());
      if (failed(applyPassManagerCLOptions(pm)))
        return false;
      pm.addPass(kiln::createKilnOutlineInit());
      pm.addNestedPass<func::FuncOp>(kiln::createKilnRequireStatic());
      pm.addNestedPass<func::FuncOp>(kiln::createKilnFuseKernels());
      return succeeded(pm.run(*module));
    });
  if (ok && emit >= Phase::Tiled)
    ok = runPhase("tile", [&] {
      return runFunctionPasses(*module, {[] {
                                 return kiln::createKilnTileKernels();
                               }});
    });
  if (ok && emit >= Phase::Planned) {
    ok = runPhase("schedule", [&] {
      return runFunctionPasses(*module, {[] {
                                 kiln::KilnScheduleOptions options;
                                 options.maxStreams = maxStreams;
                                 return kiln::createKilnSchedule(options);
                               }});
    });
    if (ok)
      ok = runPhase("plan-memory", [&] {
        PassManager pm(module->getContext(), ModuleOp::getOperationName());
        if (failed(applyPassManagerCLOptions(pm)))
          return false;
        pm.addPass(kiln::createKilnPlanMemory());
        return succeeded(pm.run(*module));
      });
    if (ok)
      printArenaSizes(*module);
  }
  if (ok && emit >= Phase::Cuda)
    return compileToCUDA(*module, archs) ? 0 : 1;
  if (ok)
    ok = runPhase("print", [&] { return writeOutput(*module); });
  return ok ? 0 : 1;
}
