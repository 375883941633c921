// The entry point of an artifact from a planned function: the I/O signature,
// one buffer per memory the steps touch (inputs, outputs, weights,
// activations, and aliases for views), and the steps in program order with
// the schedule's streams and events.
//
//  1. Inputs and outputs get buffers 0..n-1 in signature order.
//  2. Steps follow the kernels in program order: waits, the launch (or the
//     cuBLASLt / cuDNN call of a library kernel), then the event the kernel
//     records.
//     A kernel's operand gets the buffer of its storage: a kiln.empty with
//     `arena_offset` is an activation, one with `result_index` the output
//     itself (so the kernel writes the caller's memory); views and other
//     shapes of the same bytes are aliases; constants are weights.
//  3. Stream 0 waits on the join events, then copies every result that no
//     kernel wrote in place (a returned input, weight, or a value returned
//     twice).
#include "PackageInternal.h"

#include "kiln/Dialect/Kiln/IR/DimRanges.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/IR/Locations.h"
#include "kiln/Dialect/Kiln/KernelKinds/KernelConfiguration.h"
#include "kiln/Dialect/Kiln/KernelKinds/KernelKinds.h"
#include "kiln/artifact_format.h"

#include "mlir/IR/DialectResourceBlobManager.h"

#include <algorithm>

using namespace mlir;

namespace kiln::package {

using namespace kiln::artifact;

namespace {

int64_t getIntAttr(Operation *op, StringRef name, int64_t fallback) {
  if (auto attr = op->getAttrOfType<IntegerAttr>(name))
    return attr.getInt();
  return fallback;
}

class EntryPointBuilder {
public:
  EntryPointBuilder(func::FuncOp function, const CUDAModule &cuda,
                    WeightTable &weights, EntryPointT &entry)
      : function(function), weights(weights), entry(entry),
        ranges(getDimRanges(function)) {
    for (const KernelLaunch &launch : cuda.launches) {
      KernelOp op = launch.op; // A handle; a copy is not const.
      launchOf[op.getOperation()] = &launch;
    }
  }

  LogicalResult buildSignature();
  LogicalResult buildKernelSteps(const LaunchGraph &graph);
  LogicalResult buildResultSteps();
  EntryPointCounts counts;

private:
  /// A buffer of |type|; with run-time extents, those of |source| (its
  /// kiln.dim_exprs, or an argument's named dims), sized at the ranges'
  /// maximum.
  FailureOr<uint32_t> addBuffer(Operation *where, BufferKind kind, Type type,
                                Value source = {});
  std::vector<std::optional<DimExpr>> extentsOf(Value value);
  FailureOr<uint32_t> bufferOf(Value value);
  FailureOr<uint32_t> bufferOfUncached(Value value);
  FailureOr<uint32_t> weightBuffer(ConstantOp constant);
  /// |buffer| itself when |type| matches it, else an alias of it: of all
  /// its bytes, or for a slice view (getViewByteOffset) of a range of them
  /// from |sliceOffset| on. The alias names the buffer at the end of
  /// |buffer|'s alias chain, with the chain's offsets added.
  FailureOr<uint32_t> viewAs(Operation *where, uint32_t buffer, Type type,
                             std::optional<int64_t> sliceOffset = {});
  std::unique_ptr<StepT> &addStep(StepKind kind, uint32_t stream,
                                  StringRef name);

  func::FuncOp function;
  WeightTable &weights;
  EntryPointT &entry;
  DenseMap<Operation *, const KernelLaunch *> launchOf;
  DenseMap<Value, uint32_t> cache;
  SmallVector<uint32_t> outputBuffers;
  SmallVector<Type> bufferTypes;
  llvm::MapVector<StringRef, kiln::DimRange> ranges;
};

std::vector<std::optional<DimExpr>>
EntryPointBuilder::extentsOf(Value value) {
  // An op's kiln.dim_exprs; an input's named dims (kiln.dim_names) and
  // static sizes.
  return getRecordedExtents(value);
}

FailureOr<uint32_t> EntryPointBuilder::addBuffer(Operation *where,
                                                 BufferKind kind, Type type,
                                                 Value source) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  // With run-time extents: the shape at the ranges' maximum, and the
  // extents as expressions.
  std::vector<std::string> dimExprs;
  if (tensor && !tensor.hasStaticShape()) {
    std::vector<std::optional<DimExpr>> extents = extentsOf(source);
    SmallVector<int64_t> largest;
    for (int64_t d = 0; d < tensor.getRank(); ++d) {
      std::optional<int64_t> size;
      if (!tensor.isDynamicDim(d))
        size = tensor.getDimSize(d);
      else if (d < int64_t(extents.size()) && extents[d])
        size = maximumExtent(*extents[d], ranges);
      if (!size)
        return where->emitError("packager: buffer of type ")
               << type
               << " has a run-time extent that is no expression of the "
                  "ranged dims";
      largest.push_back(*size);
      dimExprs.push_back(tensor.isDynamicDim(d) ? extents[d]->str()
                                                : std::to_string(*size));
    }
    tensor = RankedTensorType::get(largest, tensor.getElementType());
  }
  std::optional<int64_t> bytes = tensor ? getTensorBytes(tensor) : std::nullopt;
  FailureOr<DType> dtype = getArtifactDType(where, type);
  if (!tensor || !bytes)
    return where->emitError("packager: buffer of type ")
           << type << " has no static size";
  if (failed(dtype))
    return failure();
  auto buffer = std::make_unique<BufferT>();
  buffer->kind = kind;
  buffer->dtype = *dtype;
  buffer->shape.assign(tensor.getShape().begin(), tensor.getShape().end());
  buffer->bytes = *bytes;
  buffer->dim_exprs = std::move(dimExprs);
  entry.buffers.push_back(std::move(buffer));
  bufferTypes.push_back(type);
  return entry.buffers.size() - 1;
}

FailureOr<uint32_t>
EntryPointBuilder::viewAs(Operation *where, uint32_t buffer, Type type,
                          std::optional<int64_t> sliceOffset) {
  if (bufferTypes[buffer] == type && sliceOffset.value_or(0) == 0)
    return buffer;
  // A whole view has the bytes of what it views; a slice view's range lies
  // in them.
  uint64_t sourceBytes = entry.buffers[buffer]->bytes;
  uint64_t start = sliceOffset.value_or(0), offset = start;
  while (entry.buffers[buffer]->kind == BufferKind_Alias) {
    offset += entry.buffers[buffer]->offset;
    buffer = entry.buffers[buffer]->alias_of;
  }
  FailureOr<uint32_t> alias =
      addBuffer(where, BufferKind_Alias, type,
                where->getNumResults() == 1 ? where->getResult(0) : Value());
  if (failed(alias))
    return failure();
  BufferT &view = *entry.buffers[*alias];
  if (sliceOffset ? view.bytes > sourceBytes || start > sourceBytes - view.bytes
                  : view.bytes != sourceBytes)
    return where->emitError("packager: a view of ")
           << view.bytes << " bytes at offset " << start << " of a buffer of "
           << sourceBytes;
  view.alias_of = buffer;
  view.offset = offset;
  return alias;
}

FailureOr<uint32_t> EntryPointBuilder::weightBuffer(ConstantOp constant) {
  auto offset = constant->getAttrOfType<IntegerAttr>(kWeightOffsetAttr);
  if (!offset)
    return constant.emitError(
        "packager: weight has no weight_offset; run kiln-plan-memory first");
  auto [slot, inserted] =
      weights.bufferAtOffset.try_emplace(offset.getInt(), 0);
  if (inserted) {
    // A model-level weight buffer and its contents: none for the init
    // program's results (kiln_init writes them at load), a range of the
    // external-data file, or an inline section.
    FailureOr<DType> dtype = getArtifactDType(constant, constant.getType());
    std::optional<int64_t> size = getTensorBytes(constant.getType());
    if (failed(dtype))
      return failure();
    if (!size)
      return constant.emitError("packager: weight of type ")
             << constant.getType() << " has no fixed size";
    auto type = cast<RankedTensorType>(constant.getType());
    auto buffer = std::make_unique<BufferT>();
    buffer->kind = BufferKind_Weight;
    buffer->dtype = *dtype;
    buffer->shape.assign(type.getShape().begin(), type.getShape().end());
    buffer->bytes = *size;
    buffer->offset = offset.getInt();
    slot->second = weights.model.weight_buffers.size();
    weights.model.weight_buffers.push_back(std::move(buffer));
    if (!constant->hasAttr(kInitResultAttr)) {
      std::vector<char> owned;
      ArrayRef<char> bytes;
      if (failed(getConstantBytes(constant, owned, bytes)))
        return failure();
      auto weight = std::make_unique<WeightT>();
      weight->buffer = slot->second;
      weight->hash = artifact::fnv1a64(bytes.data(), bytes.size());
      auto resource = dyn_cast<DenseResourceElementsAttr>(constant.getValue());
      std::string key =
          resource ? resource.getRawHandle().getKey().str() : std::string();
      auto origin = weights.external.find(key);
      if (resource && origin != weights.external.end()) {
        weight->external_file = origin->second.file;
        weight->external_offset = origin->second.offset;
        weight->external_length = bytes.size();
      } else {
        std::string name =
            "weights:" +
            (resource ? key : "w" + std::to_string(slot->second));
        weight->section =
            owned.empty() ? weights.sections.add(name, bytes)
                          : weights.sections.addOwned(name, std::move(owned));
      }
      weights.model.weights.push_back(std::move(weight));
    }
  }
  FailureOr<uint32_t> id =
      addBuffer(constant, BufferKind_Weight, constant.getType());
  if (succeeded(id))
    entry.buffers[*id]->offset = offset.getInt();
  return id;
}

FailureOr<uint32_t> EntryPointBuilder::bufferOf(Value value) {
  auto cached = cache.find(value);
  if (cached != cache.end())
    return cached->second;
  FailureOr<uint32_t> id = bufferOfUncached(value);
  if (succeeded(id))
    cache[value] = *id;
  return id;
}

FailureOr<uint32_t> EntryPointBuilder::bufferOfUncached(Value value) {
  if (auto argument = dyn_cast<BlockArgument>(value))
    return function.emitError("packager: unexpected block argument");
  Operation *op = value.getDefiningOp();
  if (auto constant = dyn_cast<ConstantOp>(op))
    return weightBuffer(constant);
  if (auto kernel = dyn_cast<KernelOp>(op)) {
    unsigned index = cast<OpResult>(value).getResultNumber();
    FailureOr<uint32_t> destination = bufferOf(kernel.getOutputs()[index]);
    if (failed(destination))
      return failure();
    return viewAs(op, *destination, value.getType());
  }
  if (std::optional<int64_t> offset = getViewByteOffset(op)) {
    FailureOr<uint32_t> source = bufferOf(op->getOperand(0));
    if (failed(source))
      return failure();
    return viewAs(op, *source, value.getType(),
                  isa<SliceOp>(op) ? offset : std::nullopt);
  }
  if (auto empty = dyn_cast<EmptyOp>(op)) {
    if (auto result = empty->getAttrOfType<IntegerAttr>(kResultIndexAttr)) {
      if (result.getInt() < 0 ||
          result.getInt() >= int64_t(outputBuffers.size()))
        return empty.emitError("packager: result_index ")
               << result.getInt() << " is not a result";
      return viewAs(op, outputBuffers[result.getInt()], value.getType());
    }
    auto offset = empty->getAttrOfType<IntegerAttr>(kArenaOffsetAttr);
    if (!offset)
      return empty.emitError(
          "packager: buffer has no arena_offset; run kiln-plan-memory first");
    FailureOr<uint32_t> id =
        addBuffer(op, BufferKind_Activation, value.getType(), value);
    if (succeeded(id))
      entry.buffers[*id]->offset = offset.getInt();
    return id;
  }
  return op->emitError("packager: no buffer for the result of '")
         << op->getName() << "'";
}

std::unique_ptr<StepT> &
EntryPointBuilder::addStep(StepKind kind, uint32_t stream, StringRef name) {
  auto step = std::make_unique<StepT>();
  step->kind = kind;
  step->stream = stream;
  step->name = name.str();
  entry.steps.push_back(std::move(step));
  return entry.steps.back();
}

LogicalResult EntryPointBuilder::buildSignature() {
  auto outputNames = function->getAttrOfType<ArrayAttr>("kiln.output_names");
  auto addTensor = [&](BufferKind kind, unsigned index, Type type,
                       std::string name,
                       Value source) -> FailureOr<uint32_t> {
    FailureOr<uint32_t> id = addBuffer(function, kind, type, source);
    if (failed(id))
      return failure();
    BufferT &buffer = *entry.buffers[*id];
    buffer.io_index = index;
    auto tensor = std::make_unique<TensorSignatureT>();
    tensor->name = std::move(name);
    tensor->dtype = buffer.dtype;
    tensor->shape = buffer.shape;
    tensor->dim_exprs = buffer.dim_exprs;
    tensor->buffer = *id;
    (kind == BufferKind_Input ? entry.inputs : entry.outputs)
        .push_back(std::move(tensor));
    return id;
  };
  for (BlockArgument argument : function.getArguments()) {
    unsigned index = argument.getArgNumber();
    auto name = function.getArgAttrOfType<StringAttr>(index, "kiln.name");
    FailureOr<uint32_t> id =
        addTensor(BufferKind_Input, index, argument.getType(),
                  name ? name.str() : "input" + std::to_string(index),
                  argument);
    if (failed(id))
      return failure();
    cache[argument] = *id;
  }
  bool isInit = function.getSymName() == kInitFunctionName;
  auto returnOp =
      cast<func::ReturnOp>(function.getBody().front().getTerminator());
  for (auto [index, type] : llvm::enumerate(function.getResultTypes())) {
    if (isInit) {
      // The init program writes its results into the weight arena.
      auto offset = function.getResultAttrOfType<IntegerAttr>(
          index, kInitWeightOffsetAttr);
      if (!offset)
        return function.emitError("packager: result ")
               << index << " of @" << kInitFunctionName
               << " has no weight offset; run kiln-plan-memory first";
      FailureOr<uint32_t> id = addBuffer(function, BufferKind_Weight, type);
      if (failed(id))
        return failure();
      entry.buffers[*id]->offset = offset.getInt();
      outputBuffers.push_back(*id);
      continue;
    }
    StringAttr name;
    if (outputNames && index < outputNames.size())
      name = dyn_cast<StringAttr>(outputNames[index]);
    FailureOr<uint32_t> id =
        addTensor(BufferKind_Output, index, type,
                  name ? name.str() : "output" + std::to_string(index),
                  returnOp.getOperand(index));
    if (failed(id))
      return failure();
    outputBuffers.push_back(*id);
  }
  return success();
}

LogicalResult EntryPointBuilder::buildKernelSteps(const LaunchGraph &graph) {
  if (auto fork = function->getAttrOfType<IntegerAttr>(kForkEventAttr))
    addStep(StepKind_RecordEvent, 0, "fork")->event = fork.getInt();
  for (KernelOp kernel : graph.kernels) {
    uint32_t stream = getIntAttr(kernel, kStreamAttr, 0);
    if (auto waits = kernel->getAttrOfType<DenseI64ArrayAttr>(kWaitEventsAttr))
      for (int64_t event : waits.asArrayRef())
        addStep(StepKind_WaitEvent, stream, kernel.getSymName())->event = event;

    std::unique_ptr<StepT> step = std::make_unique<StepT>();
    step->stream = stream;
    step->name = kernel.getSymName().str();
    for (const OnnxNode &node : collectOnnxNodes(kernel.getLoc()))
      step->onnx_nodes.push_back(node.name);
    if (kernel.getKind() == KernelKind::Library) {
      if (failed(describeLibraryStep(
              kernel, [&](Value value) { return bufferOf(value); }, *step,
              counts)))
        return failure();
    } else {
      const KernelLaunch *launch = launchOf.lookup(kernel);
      if (!launch || launch->kernel < 0)
        return kernel.emitError("packager: kernel '")
               << kernel.getSymName() << "' has no emitted CUDA kernel";
      step->kind = StepKind_Launch;
      step->kernel = launch->kernel;
      step->grid = {uint32_t(launch->grid ? launch->grid
                                          : getIntAttr(kernel, "grid_size", 1)),
                    1, 1};
      step->block = {uint32_t(launch->block
                                  ? launch->block
                                  : getIntAttr(kernel, "block_size", 1)),
                     1, 1};
      step->shared_bytes = launch->dynamicSharedBytes;
      step->flops = countFlops(kernel);
      for (Value operand : kernel->getOperands()) {
        FailureOr<uint32_t> id = bufferOf(operand);
        if (failed(id))
          return failure();
        step->args.push_back(*id);
      }
      step->outputs = kernel.getOutputs().size();
      // Run-time extents: the count, the dims the kernel takes (in the
      // emitter's order: getKernelDimParameters) and what one block covers.
      if (auto count = kernel->getAttrOfType<StringAttr>(kElementCountAttrName)) {
        std::optional<DimExpr> parsed = DimExpr::parse(count.getValue());
        if (!parsed)
          return kernel.emitError("packager: kernel '")
                 << kernel.getSymName() << "' has an unreadable "
                 << kElementCountAttrName << " '" << count.getValue() << "'";
        auto extents = std::make_unique<LaunchExtentsT>();
        extents->element_count = parsed->str();
        extents->dim_args = getKernelDimParameters(kernel);
        extents->units_per_block = launchUnitsPerBlock(kernel);
        if (extents->units_per_block == 0)
          return kernel.emitError("packager: kernel '")
                 << kernel.getSymName() << "' of kind "
                 << stringifyKernelKind(kernel.getKind())
                 << " has run-time extents, which its kind does not launch";
        // Its buckets: the same body configured for counts up to each.
        for (const BucketLaunch &bucket : launch->buckets) {
          if (bucket.kernel < 0 || bucket.unitsPerBlock <= 0)
            return kernel.emitError("packager: a bucket of kernel '")
                   << kernel.getSymName() << "' has no emitted CUDA kernel";
          auto added = std::make_unique<LaunchBucketT>();
          added->max_count = uint64_t(bucket.maxCount);
          added->kernel = uint32_t(bucket.kernel);
          added->grid = uint32_t(bucket.grid);
          added->block = uint32_t(bucket.block);
          added->shared_bytes = uint32_t(bucket.dynamicSharedBytes);
          added->units_per_block = uint64_t(bucket.unitsPerBlock);
          extents->buckets.push_back(std::move(added));
          ++counts.buckets;
        }
        step->run_time_extents = std::move(extents);
      }
      ++counts.launches;
    }
    entry.steps.push_back(std::move(step));
    if (auto event = kernel->getAttrOfType<IntegerAttr>(kRecordEventAttr))
      addStep(StepKind_RecordEvent, stream, kernel.getSymName())->event =
          event.getInt();
  }
  if (auto joins = function->getAttrOfType<DenseI64ArrayAttr>(kJoinEventsAttr))
    for (int64_t event : joins.asArrayRef())
      addStep(StepKind_WaitEvent, 0, "join")->event = event;
  return success();
}

LogicalResult EntryPointBuilder::buildResultSteps() {
  auto returnOp =
      cast<func::ReturnOp>(function.getBody().front().getTerminator());
  for (auto [index, value] : llvm::enumerate(returnOp.getOperands())) {
    auto empty = getStorageRoot(value).getDefiningOp<EmptyOp>();
    if (empty && getIntAttr(empty, kResultIndexAttr, -1) == int64_t(index))
      continue; // A kernel wrote it in place.
    FailureOr<uint32_t> source = bufferOf(value);
    if (failed(source))
      return failure();
    std::string name = index < entry.outputs.size()
                           ? entry.outputs[index]->name
                           : "result" + std::to_string(index);
    std::unique_ptr<StepT> &copy = addStep(StepKind_Copy, 0, "copy:" + name);
    copy->args = {*source, outputBuffers[index]};
    ++counts.copies;
  }
  return success();
}

} // namespace

LogicalResult buildEntryPoint(func::FuncOp function, const LaunchGraph &graph,
                              const CUDAModule &cuda, WeightTable &weights,
                              uint64_t gemmWorkspaceBytes,
                              uint64_t convWorkspaceBytes, EntryPointT &entry,
                              EntryPointCounts &counts) {
  auto arena = function->getAttrOfType<IntegerAttr>(kActivationArenaBytesAttr);
  if (!arena)
    return function.emitError("packager: '")
           << function.getSymName()
           << "' has no activation arena; run kiln-plan-memory first";
  entry.name = function.getSymName() == kInitFunctionName
                   ? kInitFunctionName
                   : "main";
  entry.num_streams = getIntAttr(function, kNumStreamsAttr, 1);
  entry.num_events = getIntAttr(function, kNumEventsAttr, 0);
  entry.activation_arena_bytes = arena.getInt();
  EntryPointBuilder builder(function, cuda, weights, entry);
  if (failed(builder.buildSignature()) ||
      failed(builder.buildKernelSteps(graph)) ||
      failed(builder.buildResultSteps()))
    return failure();
  counts = builder.counts;
  // One workspace per stream serves cuBLASLt and cuDNN: the larger need.
  entry.workspace_bytes =
      std::max(counts.gemms ? gemmWorkspaceBytes : 0,
               counts.convs ? convWorkspaceBytes : uint64_t(0));
  return success();
}

} // namespace kiln::package
