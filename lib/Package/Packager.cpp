// buildArtifact: the model-level manifest (versions, archs, kernels with
// their NVRTC programs' cubin and PTX sections, weights) around the entry
// point, written as one .kiln file.
#include "kiln/Package/Packager.h"

#include "PackageInternal.h"

#include "kiln/Dialect/Kiln/IR/DimRanges.h"

#include "kiln/Dialect/Kiln/IR/KilnDialect.h"

#include "kiln/Version.h"
#include "kiln/artifact_format.h"

using namespace mlir;

namespace kiln {

using namespace kiln::artifact;

std::string getCompilerVersion() { return compilerVersion(); }

uint64_t getExternalDataBytes(ModuleOp module) {
  auto origins = module->getAttrOfType<DictionaryAttr>(kExternalDataAttr);
  uint64_t bytes = 0;
  if (origins)
    for (NamedAttribute origin : origins)
      if (auto range = dyn_cast<ArrayAttr>(origin.getValue());
          range && range.size() == 3)
        if (auto length = dyn_cast<IntegerAttr>(range[2]))
          bytes += length.getInt();
  return bytes;
}

namespace {

/// One Kernel per unique CUDA kernel, whose images are its NVRTC program's
/// cubin sections (one per arch) and PTX section: the kernels of one program
/// share them, and the runtime loads each section once and finds every
/// kernel in it by symbol.
LogicalResult addKernels(ModuleOp module, const CUDAModule &cuda,
                         const NVRTCResult &compiled,
                         const PackageOptions &options, ModelT &model,
                         package::SectionList &sections) {
  if (compiled.kernels.size() != cuda.kernels.size())
    return module.emitError("packager: ")
           << cuda.kernels.size() << " emitted kernels but "
           << compiled.kernels.size() << " compiled ones";
  struct ProgramSections {
    std::vector<uint32_t> cubins; // In the order of options.archs.
    int64_t ptx = -1;
  };
  std::vector<ProgramSections> programSections;
  for (const CompiledProgram &program : compiled.programs) {
    ProgramSections added;
    for (const std::string &arch : options.archs) {
      auto cubin = program.cubins.find(arch);
      if (cubin == program.cubins.end() || cubin->second.empty())
        return module.emitError("packager: NVRTC program '")
               << program.name << "' has no cubin for " << arch;
      added.cubins.push_back(sections.add(
          "cubin:" + arch + ":" + program.name,
          ArrayRef<char>(cubin->second.data(), cubin->second.size())));
    }
    if (!program.ptx.empty())
      added.ptx =
          sections.add("ptx:" + program.ptxArch + ":" + program.name,
                       ArrayRef<char>(program.ptx.data(), program.ptx.size()));
    programSections.push_back(std::move(added));
  }
  for (auto [k, emitted] : llvm::enumerate(cuda.kernels)) {
    if (compiled.kernels[k].name != emitted.name ||
        compiled.kernels[k].program >= programSections.size())
      return module.emitError("packager: kernel '")
             << emitted.name << "' was not compiled";
    const ProgramSections &program =
        programSections[compiled.kernels[k].program];
    auto kernel = std::make_unique<KernelT>();
    kernel->symbol = emitted.name;
    for (auto [arch, section] : llvm::zip(options.archs, program.cubins)) {
      auto image = std::make_unique<KernelImageT>();
      image->arch = arch;
      image->section = section;
      kernel->images.push_back(std::move(image));
    }
    kernel->ptx_section = program.ptx;
    model.kernels.push_back(std::move(kernel));
  }
  return success();
}

} // namespace

LogicalResult buildArtifact(ModuleOp module, const CUDAModule &cuda,
                            const NVRTCResult &compiled,
                            const PackageOptions &options,
                            std::string &artifact, PackageSummary *summary) {
  func::FuncOp function = getEntryFunction(module);
  if (!function)
    return module.emitError(
        "packager: the module has no @main (or single) function");
  auto weightArena =
      function->getAttrOfType<IntegerAttr>(kWeightArenaBytesAttr);
  if (!weightArena)
    return function.emitError("packager: '")
           << function.getSymName()
           << "' has no weight arena; run kiln-plan-memory first";
  FailureOr<LaunchGraph> graph = LaunchGraph::build(function);
  if (failed(graph))
    return failure();

  ModelT model;
  // Bounds-checked kernels take parameters a version-1 runtime would not
  // pass: only their artifacts need the newer format.
  model.bounds_checks = hasBoundsChecks(module);
  model.format_version =
      model.bounds_checks ? kBoundsChecksFormatVersion : kFormatVersion;
  // Ranged dims: launches with run-time extents take dim parameters and a
  // grid computed per shape, which only a version-3 runtime passes.
  for (const auto &[name, range] : getDimRanges(function)) {
    auto entry = std::make_unique<DimRangeT>();
    entry->name = name.str();
    entry->lo = range.lo;
    entry->hi = range.hi;
    entry->opt = range.opt;
    model.dim_ranges.push_back(std::move(entry));
  }
  if (!model.dim_ranges.empty())
    model.format_version = kDynamicShapesFormatVersion;
  model.compiler_version = options.compilerVersion.empty()
                               ? getCompilerVersion()
                               : options.compilerVersion;
  model.cuda_version = options.cudaVersion;
  model.archs = options.archs;
  model.source_model = options.sourceModel;
  model.weight_arena_bytes = weightArena.getInt();

  package::SectionList sections;
  if (failed(addKernels(module, cuda, compiled, options, model, sections)))
    return failure();
  package::WeightTable weights{model, sections,
                               llvm::DenseMap<int64_t, uint32_t>(), {}};
  if (options.externalWeights)
    if (auto origins = module->getAttrOfType<DictionaryAttr>(kExternalDataAttr))
      for (NamedAttribute origin : origins) {
        auto range = dyn_cast<ArrayAttr>(origin.getValue());
        if (!range || range.size() != 3 || !isa<StringAttr>(range[0]) ||
            !isa<IntegerAttr>(range[1]))
          return module.emitError("packager: malformed ")
                 << kExternalDataAttr << " entry '" << origin.getName()
                 << "'";
        weights.external[origin.getName().str()] = {
            cast<StringAttr>(range[0]).str(),
            uint64_t(cast<IntegerAttr>(range[1]).getInt())};
      }
  auto entry = std::make_unique<EntryPointT>();
  package::EntryPointCounts counts;
  if (failed(package::buildEntryPoint(function, *graph, cuda, weights,
                                      options.gemmWorkspaceBytes,
                                      options.convWorkspaceBytes, *entry,
                                      counts)))
    return failure();
  // The init program, after the entry point so that "main" stays the first.
  std::unique_ptr<EntryPointT> initEntry;
  if (auto init = module.lookupSymbol<func::FuncOp>(kInitFunctionName)) {
    FailureOr<LaunchGraph> initGraph = LaunchGraph::build(init);
    if (failed(initGraph))
      return failure();
    initEntry = std::make_unique<EntryPointT>();
    package::EntryPointCounts initCounts;
    if (failed(package::buildEntryPoint(init, *initGraph, cuda, weights,
                                        options.gemmWorkspaceBytes,
                                        options.convWorkspaceBytes,
                                        *initEntry, initCounts)))
      return failure();
  }

  if (summary) {
    summary->kernels = model.kernels.size();
    summary->launches = counts.launches;
    summary->buckets = counts.buckets;
    summary->gemms = counts.gemms;
    summary->convs = counts.convs;
    summary->copies = counts.copies;
    summary->streams = entry->num_streams;
    summary->events = entry->num_events;
    summary->weights = model.weights.size();
    summary->externalWeights = llvm::count_if(
        model.weights, [](const auto &weight) { return weight->section < 0; });
    summary->initSteps = initEntry ? initEntry->steps.size() : 0;
    summary->sections = sections.size();
    summary->activationArenaBytes = entry->activation_arena_bytes;
    summary->workspaceBytes = entry->workspace_bytes;
    summary->weightArenaBytes = model.weight_arena_bytes;
  }
  model.entry_points.push_back(std::move(entry));
  if (initEntry)
    model.entry_points.push_back(std::move(initEntry));
  // A slice view (an alias at an offset) would read its viewed buffer's
  // start on a runtime before format 4.
  for (const auto &point : model.entry_points)
    for (const auto &buffer : point->buffers)
      if (buffer->kind == BufferKind_Alias && buffer->offset != 0)
        model.format_version = kSliceViewsFormatVersion;
  artifact = package::writeArtifactFile(model, sections);
  if (summary)
    summary->artifactBytes = artifact.size();
  return success();
}

} // namespace kiln
