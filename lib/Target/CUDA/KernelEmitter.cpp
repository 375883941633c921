// emitCUDAModule: picks the template for each kiln.kernel, writes the kernel
// signature around its body, hashes the source (with a placeholder name) to
// deduplicate identical kernels and names them kiln_<kind>_<hash>.
#include "kiln/Target/CUDA/CUDAEmitter.h"

#include "ElementalModels.h"
#include "KernelTemplates.h"
#include "kiln/Dialect/Kiln/IR/DimRanges.h"
#include "kiln/Dialect/Kiln/KernelKinds/KernelConfiguration.h"
#include "kiln/Dialect/Kiln/KernelKinds/KernelKinds.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

#include "llvm/ADT/SetVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/xxhash.h"

#include <set>

using namespace mlir;

namespace kiln {

void registerCUDAElementalModels(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, KilnDialect *) {
    cuda::attachElementwiseModels(*context);
    cuda::attachShapeModels(*context);
    cuda::attachReductionModels(*context);
    cuda::attachContractionModels(*context);
    cuda::attachMovementModels(*context);
    cuda::attachNormModels(*context);
    cuda::attachConvModels(*context);
    cuda::attachQuantModels(*context);
    cuda::attachMathModels(*context);
  });
}

namespace {

constexpr const char *kNamePlaceholder = "KILN_KERNEL_NAME";

void collectNodes(Location location,
                  llvm::SetVector<std::string, std::vector<std::string>,
                                  std::set<std::string>> &nodes,
                  StringRef opType = "") {
  if (auto fused = dyn_cast<FusedLoc>(location)) {
    StringRef type = opType;
    if (auto metadata = dyn_cast_or_null<StringAttr>(fused.getMetadata()))
      type = metadata.getValue();
    for (Location inner : fused.getLocations())
      collectNodes(inner, nodes, type);
  } else if (auto name = dyn_cast<NameLoc>(location)) {
    nodes.insert(name.getName().str() +
                 (opType.empty() ? "" : " (" + opType.str() + ")"));
  } else if (auto callSite = dyn_cast<CallSiteLoc>(location)) {
    collectNodes(callSite.getCallee(), nodes, opType);
  }
}

/// The largest element count of any tensor the kernel touches.
int64_t largestTensor(KernelOp kernel) {
  int64_t largest = 0;
  auto visit = [&](Value value) {
    if (auto type = dyn_cast<RankedTensorType>(value.getType()))
      if (type.hasStaticShape())
        largest = std::max(largest, type.getNumElements());
  };
  for (Value operand : kernel->getOperands())
    visit(operand);
  kernel.getBody().walk([&](Operation *op) {
    for (Value result : op->getResults())
      visit(result);
  });
  return largest;
}

/// The largest element count of any tensor the kernel touches with its
/// run-time extents at their maxima over the function's ranges (each
/// recorded `kiln.dim_exprs` or argument `kiln.dim_names` through
/// maximumExtent); std::nullopt when some dynamic tensor's extents are not
/// all recorded and bounded. Body block arguments are the kernel's operands.
std::optional<int64_t> largestTensorOverRanges(KernelOp kernel) {
  auto function = kernel->getParentOfType<FunctionOpInterface>();
  if (!function)
    return std::nullopt;
  llvm::MapVector<StringRef, DimRange> ranges = getDimRanges(function);
  int64_t largest = 0;
  bool bounded = true;
  auto visit = [&](Value value) {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!bounded || !type)
      return;
    if (type.hasStaticShape()) {
      largest = std::max(largest, type.getNumElements());
      return;
    }
    std::vector<std::optional<DimExpr>> extents = getRecordedExtents(value);
    if (int64_t(extents.size()) != type.getRank()) {
      bounded = false;
      return;
    }
    int64_t count = 1;
    for (const std::optional<DimExpr> &extent : extents) {
      std::optional<int64_t> most =
          extent ? maximumExtent(*extent, ranges) : std::nullopt;
      if (!most || *most < 0 ||
          (*most > 0 && count > (int64_t(1) << 40) / *most)) {
        bounded = false;
        return;
      }
      count *= *most;
    }
    largest = std::max(largest, count);
  };
  for (Value operand : kernel->getOperands())
    visit(operand);
  kernel.getBody().walk([&](Operation *op) {
    for (Value result : op->getResults())
      visit(result);
  });
  if (!bounded)
    return std::nullopt;
  return largest;
}

/// Every tensor is static, or (a kind that takes them, KernelKinds.h) has
/// run-time extents that the contract allows; of a supported element type.
LogicalResult checkStaticTypes(KernelOp kernel) {
  bool runTime = takesRunTimeExtents(kernel.getKind());
  auto isAllowed = [&](RankedTensorType type) {
    return type && (type.hasStaticShape() || runTime);
  };
  WalkResult walk = kernel.getBody().walk([&](Operation *op) {
    for (Value result : op->getResults()) {
      auto type = dyn_cast<RankedTensorType>(result.getType());
      if (!isAllowed(type) ||
          !ElementalEmitter::computeKind(type.getElementType())) {
        op->emitError("CUDA emitter: result type ")
            << result.getType()
            << " is not a static tensor of a supported element type";
        return WalkResult::interrupt();
      }
    }
    return WalkResult::advance();
  });
  for (Value operand : kernel->getOperands()) {
    auto type = dyn_cast<RankedTensorType>(operand.getType());
    if (!isAllowed(type) ||
        ElementalEmitter::storageType(type.getElementType()).empty())
      return kernel.emitError("CUDA emitter: operand type ")
             << operand.getType()
             << " is not a static tensor of a supported element type";
  }
  return failure(walk.wasInterrupted());
}

/// The kernel's source with the placeholder name, or failure.
FailureOr<std::string> emitKernelSource(KernelOp kernel,
                                        cuda::LaunchGeometry &launch) {
  if (failed(checkStaticTypes(kernel)))
    return failure();
  StringRef missing = !kernel.getBlockSize()  ? "block_size"
                      : !kernel.getGridSize() ? "grid_size"
                                              : "";
  if (!missing.empty())
    return kernel.emitError("CUDA emitter: kernel '")
           << kernel.getSymName() << "' has no " << missing
           << " attribute; run kiln-tile-kernels first";
  int64_t block = int64_t(kernel.getBlockSize().value_or(0));
  if (block > 1024)
    return kernel.emitError("CUDA emitter: kernel '")
           << kernel.getSymName() << "' has block_size " << block
           << "; CUDA allows at most 1024 threads per block";

  ElementalEmitter emitter(kernel);
  LogicalResult emitted = failure();
  switch (kernel.getKind()) {
  case KernelKind::Pointwise:
  case KernelKind::DataMovement:
    emitted = cuda::emitLoopKernel(emitter, launch);
    break;
  case KernelKind::RowReduce:
    emitted = cuda::emitRowReduceKernel(emitter, launch);
    break;
  case KernelKind::Transpose:
    emitted = cuda::emitTransposeKernel(emitter, launch);
    break;
  case KernelKind::Attention:
    emitted = cuda::emitAttentionKernel(emitter, launch);
    break;
  case KernelKind::Library:
    return kernel.emitError("CUDA emitter: kernel '")
           << kernel.getSymName()
           << "' is a library call; the packager describes it, no CUDA "
              "template runs it";
  }
  if (failed(emitted))
    return failure();
  if (StringRef(emitter.body()).contains(kUnknownExtentText))
    return kernel.emitError("CUDA emitter: kernel '")
           << kernel.getSymName()
           << "' has an index that needs the value of a run-time extent "
              "whose expression is not recorded (kiln.dim_exprs) or whose "
              "op's CUDA model indexes run-time extents only as one leading "
              "extent";

  // The index type: 32-bit when every tensor (and a grid stride past it)
  // stays below 2^31 elements, with run-time extents at their ranges'
  // maxima; then the dim parameters are narrowed too, so that an index
  // divided by a run-time extent divides in 32 bits (a 64-bit division by
  // a variable costs several times as many instructions: BERT's ranged head
  // transposes ran at 0.8 TB/s with them).
  FailureOr<std::optional<cuda::RunTimeCount>> runTime =
      cuda::getRunTimeCount(kernel);
  if (failed(runTime))
    return failure();
  std::optional<int64_t> largest =
      *runTime ? largestTensorOverRanges(kernel) : largestTensor(kernel);
  bool narrow = largest && *largest < (int64_t(1) << 30);
  std::string source = getCUDAPrelude();
  if (emitter.checksBounds())
    source += getCUDABoundsCheckPrelude();
  source += "\ntypedef ";
  source += narrow ? "int" : "long long";
  source += " kiln_index_t;\n";
  if (!emitter.globals().empty())
    source += "\n" + emitter.globals();
  SmallVector<std::string> parameters;
  unsigned inputs = kernel.getInputs().size();
  for (auto [number, operand] : llvm::enumerate(kernel->getOperands())) {
    std::string type = ElementalEmitter::storageType(elementTypeOf(operand));
    parameters.push_back((number < inputs ? "const " : "") + type +
                         "* __restrict__ " + emitter.pointerName(number));
  }
  // Run-time extents: the ranged dims, in name order.
  // The runtime passes each dim as a long long; a narrow kernel takes it
  // under another name and indexes with its kiln_index_t copy.
  std::string narrowedDims;
  if (*runTime)
    for (size_t i = 0; i < (*runTime)->dims.size(); ++i) {
      std::string name = cuda::runTimeDimParameter(i);
      if (!narrow) {
        parameters.push_back("long long " + name);
        continue;
      }
      parameters.push_back("long long " + name + "_value");
      narrowedDims += "  const kiln_index_t " + name + " = (kiln_index_t)" +
                      name + "_value;\n";
    }
  // Bounds-checked kernels (all of a module compiled with checks, so that
  // the runtime passes the same trailing parameters to every launch).
  if (emitter.checksBounds()) {
    parameters.push_back("kiln_bounds_record* __restrict__ kiln_bounds");
    parameters.push_back("unsigned long long kiln_step");
  }
  source += "\nextern \"C\" __global__ void __launch_bounds__(" +
            std::to_string(block) + ") " + kNamePlaceholder + "(" +
            llvm::join(parameters, ", ") + ") {\n";
  // The runtime launches with programmatic dependent launch: wait for the
  // previous kernel on the stream (a no-op when launched without it).
  source += "#if __CUDA_ARCH__ >= 900\n"
            "  asm volatile(\"griddepcontrol.wait;\" ::: \"memory\");\n"
            "#endif\n";
  source += narrowedDims;
  source += emitter.body();
  source += "}\n";
  return source;
}

} // namespace

void setBoundsChecks(ModuleOp module, bool enabled) {
  if (enabled)
    module->setAttr(kBoundsChecksAttrName, UnitAttr::get(module.getContext()));
  else
    module->removeAttr(kBoundsChecksAttrName);
}

bool hasBoundsChecks(Operation *op) {
  if (!op)
    return false; // A detached emitter (the unit tests' KernelOp()).
  auto module = dyn_cast<ModuleOp>(op);
  if (!module)
    module = op->getParentOfType<ModuleOp>();
  return module && module->hasAttr(kBoundsChecksAttrName);
}

std::string describeONNXNodes(Operation *op) {
  llvm::SetVector<std::string, std::vector<std::string>, std::set<std::string>>
      nodes;
  collectNodes(op->getLoc(), nodes);
  op->walk([&](Operation *inner) { collectNodes(inner->getLoc(), nodes); });
  return llvm::join(nodes, ", ");
}

FailureOr<CUDAModule> emitCUDAModule(Operation *root) {
  CUDAModule module;
  llvm::StringMap<int> byName;
  bool failedAny = false;
  // Emits |kernel| as it is configured now: the index of its unique CUDA
  // kernel (-1 after an error) and its geometry.
  auto emit = [&](KernelOp kernel, const std::string &origin,
                  cuda::LaunchGeometry &geometry) -> int {
    FailureOr<std::string> source = emitKernelSource(kernel, geometry);
    if (failed(source)) {
      failedAny = true;
      return -1;
    }
    char hash[17];
    snprintf(hash, sizeof(hash), "%016llx",
             static_cast<unsigned long long>(llvm::xxh3_64bits(*source)));
    StringRef kind = stringifyKernelKind(kernel.getKind());
    std::string name = ("kiln_" + kind + "_" + hash).str();
    auto [it, inserted] = byName.try_emplace(name, module.kernels.size());
    if (inserted) {
      EmittedKernel emitted;
      emitted.name = name;
      emitted.kind = kind.str();
      size_t at = source->find(kNamePlaceholder);
      emitted.source = source->replace(at, strlen(kNamePlaceholder), name);
      module.kernels.push_back(std::move(emitted));
    }
    module.kernels[it->second].origins.push_back(origin);
    return it->second;
  };
  root->walk([&](KernelOp kernel) {
    KernelLaunch launch;
    launch.op = kernel;
    if (kernel.getKind() == KernelKind::Library) {
      module.launches.push_back(launch);
      return;
    }
    std::optional<std::vector<KernelBucket>> buckets = getKernelBuckets(kernel);
    if (!buckets) {
      failedAny = true;
      return;
    }
    std::string nodes = describeONNXNodes(kernel);
    std::string origin = "kiln.kernel \"" + kernel.getSymName().str() + "\"" +
                         (nodes.empty() ? "" : " (ONNX nodes: " + nodes + ")");
    cuda::LaunchGeometry geometry;
    launch.kernel = emit(kernel, origin, geometry);
    if (launch.kernel < 0)
      return;
    launch.grid = geometry.grid;
    launch.block = geometry.block;
    launch.dynamicSharedBytes = geometry.dynamicSharedBytes;
    // Each bucket: the kernel emitted with the bucket's configuration, then
    // its own configuration restored.
    if (!buckets->empty()) {
      std::optional<uint64_t> width = kernel.getVectorWidth(),
                              perThread = kernel.getElementsPerThread(),
                              block = kernel.getBlockSize(),
                              grid = kernel.getGridSize();
      for (const KernelBucket &bucket : *buckets) {
        applyKernelBucket(kernel, bucket);
        cuda::LaunchGeometry bucketGeometry;
        BucketLaunch added;
        added.maxCount = bucket.maxCount;
        added.kernel = emit(kernel,
                            origin + ", bucket of counts up to " +
                                std::to_string(bucket.maxCount),
                            bucketGeometry);
        added.grid =
            bucketGeometry.grid ? bucketGeometry.grid : bucket.gridSize;
        added.block =
            bucketGeometry.block ? bucketGeometry.block : bucket.blockSize;
        added.dynamicSharedBytes = bucketGeometry.dynamicSharedBytes;
        added.unitsPerBlock = launchUnitsPerBlock(kernel);
        launch.buckets.push_back(added);
      }
      kernel.setVectorWidth(width);
      kernel.setElementsPerThread(perThread);
      kernel.setBlockSize(block);
      kernel.setGridSize(grid);
    }
    module.launches.push_back(launch);
  });
  if (failedAny)
    return failure();
  // The header comment names every kernel op a unique kernel implements; it
  // is added after hashing so that it does not defeat deduplication.
  for (EmittedKernel &kernel : module.kernels) {
    std::string header = "// " + kernel.name + ": generated by kiln (" +
                         kernel.kind + " template) for\n";
    for (const std::string &origin : kernel.origins)
      header += "//   " + origin + "\n";
    kernel.source = header + kernel.source;
  }
  return module;
}

} // namespace kiln
