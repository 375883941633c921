// The launch DAG of a fused function and the happens-before order of its
// recorded stream schedule (see LaunchGraph.h).
#include "kiln/Transforms/Planning/LaunchGraph.h"

#include "kiln/Dialect/Kiln/IR/StridedView.h"
#include "kiln/Dialect/Kiln/IR/TensorLimits.h"
#include "kiln/Transforms/FusionRules.h"

#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace kiln {

namespace {
/// The element offset of a slice whose static result is one contiguous range
/// of its static operand: its strides into the operand are the result's own
/// row-major strides.
std::optional<int64_t> contiguousSliceOffset(SliceOp slice) {
  auto in = dyn_cast<RankedTensorType>(slice->getOperand(0).getType());
  auto out = dyn_cast<RankedTensorType>(slice.getType());
  if (!in || !out || !in.hasStaticShape() || !out.hasStaticShape() ||
      out.getNumElements() == 0 || !isStridedViewOp(slice))
    return std::nullopt;
  Operation *op = slice;
  std::optional<StridedLayout> layout = traceStridedRead(
      slice.getResult(), [&](Operation *viewed) { return viewed == op; });
  std::optional<SmallVector<DimExpr, 4>> extents =
      stridedExtentsOf(slice.getResult());
  if (!layout || !extents || layout->buffer != slice->getOperand(0))
    return std::nullopt;
  std::optional<SmallVector<DimExpr, 4>> strides = contiguousStrides(*extents);
  if (!strides || layout->strides != *strides)
    return std::nullopt;
  return layout->offset.getConstant();
}
} // namespace

std::optional<int64_t> getViewByteOffset(Operation *op) {
  if (!op || op->getNumResults() != 1 || op->getNumOperands() < 1)
    return std::nullopt;
  if (classifyForFusion(op) == FusionClass::View)
    return 0;
  auto slice = dyn_cast<SliceOp>(op);
  if (!slice)
    return std::nullopt;
  std::optional<int64_t> offset = contiguousSliceOffset(slice);
  std::optional<int64_t> elementBytes = getTensorBytes(
      RankedTensorType::get({1}, slice.getType().getElementType()));
  if (!offset || !elementBytes || *offset < 0)
    return std::nullopt;
  int64_t bytes = *offset * *elementBytes;
  if (bytes % kArenaAlignment != 0)
    return std::nullopt;
  return bytes;
}

bool isViewOp(Operation *op) { return getViewByteOffset(op).has_value(); }

bool coversStorageRoot(Value value) {
  while (Operation *op = value.getDefiningOp()) {
    if (auto kernel = dyn_cast<KernelOp>(op)) {
      value = kernel.getOutputs()[cast<OpResult>(value).getResultNumber()];
      continue;
    }
    std::optional<int64_t> offset = getViewByteOffset(op);
    if (!offset)
      return true;
    if (isa<SliceOp>(op))
      return false;
    value = op->getOperand(0);
  }
  return true;
}

Value getStorageRoot(Value value) {
  while (true) {
    Operation *op = value.getDefiningOp();
    if (isViewOp(op)) {
      value = op->getOperand(0);
    } else if (auto kernel = dyn_cast_or_null<KernelOp>(op)) {
      unsigned index = cast<OpResult>(value).getResultNumber();
      value = kernel.getOutputs()[index];
    } else {
      return value;
    }
  }
}

std::optional<int64_t> getTensorBytes(Type type) {
  return getStaticByteSize(type); // Checked: std::nullopt on overflow.
}

func::FuncOp getEntryFunction(ModuleOp module) {
  if (auto main = module.lookupSymbol<func::FuncOp>("main"))
    return main;
  auto functions = module.getOps<func::FuncOp>();
  if (std::distance(functions.begin(), functions.end()) == 1)
    return *functions.begin();
  return nullptr;
}

FailureOr<LaunchGraph> LaunchGraph::build(func::FuncOp function) {
  LaunchGraph graph;
  // The last kernel that wrote each storage root, and the kernels that read
  // it since.
  DenseMap<Value, unsigned> lastWriter;
  DenseMap<Value, SmallVector<unsigned, 4>> readersSinceWrite;
  for (Operation &op : function.getBody().front()) {
    if (isa<ConstantOp, EmptyOp, func::ReturnOp>(op) || isViewOp(&op))
      continue;
    auto kernel = dyn_cast<KernelOp>(op);
    if (!kernel)
      return op.emitError("'")
             << op.getName()
             << "' outside a kiln.kernel; run kiln-fuse-kernels first";
    unsigned index = graph.kernels.size();
    graph.kernels.push_back(kernel);
    graph.indexOf[kernel] = index;
    llvm::SetVector<unsigned> producers;
    auto dependOn = [&](unsigned other) {
      if (other != index)
        producers.insert(other);
    };
    for (Value input : kernel.getInputs()) {
      Value root = getStorageRoot(input);
      auto writer = lastWriter.find(root);
      if (writer != lastWriter.end())
        dependOn(writer->second);
    }
    for (Value output : kernel.getOutputs()) {
      Value root = getStorageRoot(output);
      auto writer = lastWriter.find(root);
      if (writer != lastWriter.end())
        dependOn(writer->second);
      for (unsigned reader : readersSinceWrite[root])
        dependOn(reader);
    }
    // Record this kernel's reads and writes for the kernels after it.
    for (Value input : kernel.getInputs())
      readersSinceWrite[getStorageRoot(input)].push_back(index);
    for (Value output : kernel.getOutputs()) {
      Value root = getStorageRoot(output);
      lastWriter[root] = index;
      readersSinceWrite[root].clear();
    }
    graph.producers.emplace_back(producers.begin(), producers.end());
  }
  return graph;
}

FailureOr<ScheduledOrder> ScheduledOrder::compute(func::FuncOp function,
                                                  const LaunchGraph &graph) {
  ScheduledOrder order;
  unsigned numStreams = 1;
  for (KernelOp kernel : graph.kernels) {
    auto stream = kernel->getAttrOfType<IntegerAttr>(kStreamAttr);
    if (!stream || stream.getInt() < 0)
      return kernel.emitError("kernel '")
             << kernel.getSymName()
             << "' has no stream; run kiln-schedule first";
    numStreams = std::max<unsigned>(numStreams, stream.getInt() + 1);
  }
  if (auto declared = function->getAttrOfType<IntegerAttr>(kNumStreamsAttr))
    numStreams = std::max<unsigned>(numStreams, declared.getInt());
  order.numStreams = numStreams;

  // Sequence numbers start at 1 on every stream; the function's entry is
  // sequence 0 on stream 0, which every kernel follows.
  using Clock = SmallVector<int64_t, 4>;
  SmallVector<Clock> streamClocks(numStreams, Clock(numStreams, 0));
  DenseMap<int64_t, Clock> eventClocks;
  if (auto fork = function->getAttrOfType<IntegerAttr>(kForkEventAttr))
    eventClocks[fork.getInt()] = Clock(numStreams, 0);
  for (KernelOp kernel : graph.kernels) {
    unsigned stream = kernel->getAttrOfType<IntegerAttr>(kStreamAttr).getInt();
    Clock clock = streamClocks[stream];
    if (auto waits = kernel->getAttrOfType<DenseI64ArrayAttr>(kWaitEventsAttr))
      for (int64_t event : waits.asArrayRef()) {
        auto recorded = eventClocks.find(event);
        if (recorded == eventClocks.end())
          return kernel.emitError("kernel '")
                 << kernel.getSymName() << "' waits on event " << event
                 << ", which no earlier kernel records";
        for (unsigned s = 0; s < numStreams; ++s)
          clock[s] = std::max(clock[s], recorded->second[s]);
      }
    clock[stream] += 1;
    streamClocks[stream] = clock;
    order.streams.push_back(stream);
    order.sequence.push_back(clock[stream]);
    if (auto event = kernel->getAttrOfType<IntegerAttr>(kRecordEventAttr))
      eventClocks[event.getInt()] = clock;
    order.clocks.push_back(std::move(clock));
  }
  return order;
}

} // namespace kiln
