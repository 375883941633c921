// kiln-plan-memory: gives every activation buffer an offset in the
// activation arena, by liveness on the scheduled launch DAG, and every
// weight an offset in the weight arena.
//
// Algorithm:
//  1. Build the launch DAG and the happens-before order of the recorded
//     schedule (streams + events). Check that every dependency of the DAG is
//     ordered by the schedule.
//  2. Buffers are the kiln.empty ops. One whose value a function result
//     returns (through views and kernels) becomes that result: kernels write
//     the caller's output memory directly (`result_index`). The others are
//     activations; each one's uses are the kernels that read or write it
//     (through views and tied results).
//  3. Two activations may share memory only when every use of one happens
//     before every use of the other in the schedule (it suffices to compare
//     the latest uses of one with the earliest uses of the other); kernels
//     on concurrent streams are never ordered, so their buffers never
//     overlap.
//     A buffer with run-time extents (a ranged dim, issue 18) is sized at
//     the largest shape its ranges allow, so the offsets stay static and
//     every smaller shape fits.
//  4. Place activations largest first, at the lowest 256-byte-aligned offset
//     that overlaps no conflicting buffer already placed; the arena size is
//     the highest end.
//  5. Weights: every kiln.constant whose memory a kernel (or a library
//     call's operand inside a kernel) reads or a result returns is packed in
//     program order into one weight arena for the module (@kiln_init's
//     functions first), identical constants once. Each result of @kiln_init
//     gets the offset of the `kiln.init_result` weight it becomes.
#include "kiln/Dialect/Kiln/IR/DimRanges.h"
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/KernelKinds/KernelKinds.h"
#include "kiln/Transforms/Passes.h"
#include "kiln/Transforms/Planning/LaunchGraph.h"
#include "kiln/artifact_format.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNPLANMEMORY
#include "kiln/Transforms/Passes.h.inc"

namespace {

struct Activation {
  EmptyOp op;
  int64_t bytes = 0;  // Aligned.
  unsigned first = 0; // Program order of its first use, for stable ties.
  SmallVector<unsigned, 2> earliestUses, latestUses;
  // Read after every kernel: a returned slice view is copied into its
  // output by a step after the last kernel (EntryPointBuilder).
  bool liveToEnd = false;
  int64_t offset = -1;
};

int64_t alignArena(int64_t value) {
  return (value + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment;
}

/// The bytes of |empty|'s tensor; with run-time extents, at each extent's
/// maximum over |ranges| (its `kiln.dim_exprs`), an upper bound of every
/// shape the ranges allow. std::nullopt when a size is not known.
std::optional<int64_t>
bufferBytes(EmptyOp empty, const llvm::MapVector<StringRef, DimRange> &ranges) {
  RankedTensorType type = empty.getType();
  if (type.hasStaticShape())
    return getTensorBytes(type);
  std::vector<std::optional<DimExpr>> extents = getRecordedDimExprs(empty);
  if (int64_t(extents.size()) != type.getRank())
    return std::nullopt;
  SmallVector<int64_t> largest;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (!type.isDynamicDim(d)) {
      largest.push_back(type.getDimSize(d));
      continue;
    }
    std::optional<int64_t> size =
        extents[d] ? maximumExtent(*extents[d], ranges) : std::nullopt;
    if (!size)
      return std::nullopt;
    largest.push_back(*size);
  }
  return getTensorBytes(
      RankedTensorType::get(largest, type.getElementType()));
}

/// An error at |op| when |bytes| (of |what|) is beyond the arena size the
/// runtime accepts. Every buffer and running total is checked, so no offset,
/// align-up or sum here can overflow (each stays below 2^48 + 2^48).
LogicalResult checkArenaBytes(Operation *op, int64_t bytes, StringRef what) {
  if (uint64_t(bytes) <= artifact::kMaxArenaBytes)
    return success();
  return op->emitError("kiln-plan-memory: ")
         << what << " needs " << bytes << " bytes, more than the "
         << artifact::kMaxArenaBytes << " bytes an arena may hold";
}

/// Step 1: each DAG edge must be ordered by the recorded schedule.
LogicalResult checkScheduleOrdersDAG(const LaunchGraph &graph,
                                     const ScheduledOrder &order) {
  for (auto [index, producers] : llvm::enumerate(graph.producers))
    for (unsigned producer : producers)
      if (!order.happensBefore(producer, index)) {
        KernelOp consumer = graph.kernels[index];
        KernelOp source = graph.kernels[producer];
        return consumer.emitError("kernel '")
               << consumer.getSymName() << "' depends on kernel '"
               << source.getSymName()
               << "', but the schedule does not order them (no event from "
                  "stream "
               << order.getStream(producer) << " to stream "
               << order.getStream(index) << ")";
      }
  return success();
}

/// The uses of |uses| that no other use happens before (|earliest|) or after.
void extremes(ArrayRef<unsigned> uses, const ScheduledOrder &order,
              bool earliest, SmallVectorImpl<unsigned> &result) {
  for (unsigned use : uses)
    if (llvm::none_of(uses, [&](unsigned other) {
          return earliest ? order.happensBefore(other, use)
                          : order.happensBefore(use, other);
        }))
      result.push_back(use);
}

/// Step 3: whether every use of |a| happens before every use of |b|.
bool allUsesBefore(const Activation &a, const Activation &b,
                   const ScheduledOrder &order) {
  if (a.liveToEnd)
    return false;
  return llvm::all_of(a.latestUses, [&](unsigned late) {
    return llvm::all_of(b.earliestUses, [&](unsigned early) {
      return order.happensBefore(late, early);
    });
  });
}

/// Step 4: lowest fitting offset among the conflicting placed intervals.
int64_t lowestFreeOffset(SmallVectorImpl<std::pair<int64_t, int64_t>> &taken,
                         int64_t bytes) {
  llvm::sort(taken);
  int64_t offset = 0;
  for (auto [start, end] : taken) {
    if (start >= offset + bytes)
      break;
    offset = std::max(offset, end);
  }
  return offset;
}

/// Steps 1-4 for one function; notes the weights it reads in |weights|.
LogicalResult planActivations(func::FuncOp function,
                              llvm::SetVector<ConstantOp> &weights) {
    Builder builder(function.getContext());
    FailureOr<LaunchGraph> graph = LaunchGraph::build(function);
    if (failed(graph))
      return failure();
    FailureOr<ScheduledOrder> order = ScheduledOrder::compute(function, *graph);
    if (failed(order) || failed(checkScheduleOrdersDAG(*graph, *order)))
      return failure();

    // Step 2: results written in place, then the activations and their uses.
    Block &body = function.getBody().front();
    auto returnOp = cast<func::ReturnOp>(body.getTerminator());
    DenseMap<Operation *, int64_t> resultIndexOf;
    // A result that is all of a kernel's destination is written there in
    // place; a slice view of one is copied out after the last kernel
    // (EntryPointBuilder), so that destination lives to the end.
    llvm::SmallPtrSet<Operation *, 4> copiedOut;
    for (auto [index, value] : llvm::enumerate(returnOp.getOperands()))
      if (auto empty = getStorageRoot(value).getDefiningOp<EmptyOp>()) {
        if (coversStorageRoot(value))
          resultIndexOf.try_emplace(empty, index);
        else
          copiedOut.insert(empty);
      }
    DenseMap<Value, SmallVector<unsigned, 4>> usesOf;
    for (auto [index, kernel] : llvm::enumerate(graph->kernels))
      for (Value operand : kernel->getOperands()) {
        SmallVector<unsigned, 4> &uses = usesOf[getStorageRoot(operand)];
        if (uses.empty() || uses.back() != index)
          uses.push_back(index);
      }

    std::vector<Activation> activations;
    llvm::MapVector<StringRef, DimRange> ranges = getDimRanges(function);
    for (auto empty : body.getOps<EmptyOp>()) {
      empty->removeAttr(kArenaOffsetAttr);
      empty->removeAttr(kResultIndexAttr);
      auto result = resultIndexOf.find(empty);
      if (result != resultIndexOf.end()) {
        empty->setAttr(kResultIndexAttr,
                       builder.getI64IntegerAttr(result->second));
        continue;
      }
      std::optional<int64_t> bytes = bufferBytes(empty, ranges);
      if (!bytes) {
        return empty.emitError("kiln-plan-memory: no byte size for ")
               << empty.getType()
               << (empty.getType().hasStaticShape()
                       ? ""
                       : " (its run-time extents need kiln.dim_exprs over "
                         "the function's kiln.dim_ranges)");
      }
    if (failed(checkArenaBytes(empty, *bytes, "an activation")))
      return failure();
      Activation activation;
      activation.op = empty;
      activation.liveToEnd = copiedOut.contains(empty);
      activation.bytes = alignArena(std::max<int64_t>(*bytes, 1));
      // lookup() returns a copy: keep it alive (an ArrayRef would dangle).
      SmallVector<unsigned, 4> uses = usesOf.lookup(empty.getResult());
      activation.first = uses.empty() ? 0 : uses.front();
      extremes(uses, *order, /*earliest=*/true, activation.earliestUses);
      extremes(uses, *order, /*earliest=*/false, activation.latestUses);
      activations.push_back(std::move(activation));
    }

    // Steps 3 and 4.
    SmallVector<Activation *> bySize;
    for (Activation &activation : activations)
      bySize.push_back(&activation);
    llvm::stable_sort(bySize, [](Activation *a, Activation *b) {
      return a->bytes != b->bytes ? a->bytes > b->bytes : a->first < b->first;
    });
    int64_t arenaBytes = 0;
    for (auto [placedCount, activation] : llvm::enumerate(bySize)) {
      SmallVector<std::pair<int64_t, int64_t>> taken;
      for (Activation *placed : ArrayRef(bySize).take_front(placedCount))
        if (!allUsesBefore(*placed, *activation, *order) &&
            !allUsesBefore(*activation, *placed, *order))
          taken.emplace_back(placed->offset, placed->offset + placed->bytes);
      activation->offset = lowestFreeOffset(taken, activation->bytes);
      arenaBytes = std::max(arenaBytes, activation->offset + activation->bytes);
    if (failed(checkArenaBytes(activation->op, arenaBytes,
                               "the activation arena")))
      return failure();
      activation->op->setAttr(kArenaOffsetAttr,
                              builder.getI64IntegerAttr(activation->offset));
    }

    // Step 5 (the weights it reads).
    auto noteWeight = [&](Value value) {
      if (auto constant = getStorageRoot(value).getDefiningOp<ConstantOp>())
        weights.insert(constant);
    };
    for (KernelOp kernel : graph->kernels) {
      for (Value input : kernel.getInputs())
        noteWeight(input);
      if (kernel.getKind() == KernelKind::Library)
        kernel.getBody().walk([&](Operation *op) {
          // The call's operands, and a bias row its epilogue adds.
          if (isa<MatMulOp, GemmOp, ConvOp, AddOp>(op))
            for (Value operand : op->getOperands())
              noteWeight(operand);
        });
    }
    for (Value value : returnOp.getOperands())
      noteWeight(value);
    function->setAttr(kActivationArenaBytesAttr,
                      builder.getI64IntegerAttr(arenaBytes));
    return success();
}

struct PlanMemoryPass : impl::KilnPlanMemoryBase<PlanMemoryPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    Builder builder(module.getContext());
    // @kiln_init first: its weights are the raw ones the entry reads too.
    SmallVector<func::FuncOp> functions;
    if (auto init = module.lookupSymbol<func::FuncOp>(kInitFunctionName))
      functions.push_back(init);
    for (auto function : module.getOps<func::FuncOp>())
      if (function.getSymName() != kInitFunctionName)
        functions.push_back(function);
    llvm::SetVector<ConstantOp> weights;
    for (func::FuncOp function : functions)
      if (failed(planActivations(function, weights)))
        return signalPassFailure();

    // Step 5: weights, one arena for the module.
    module.walk(
        [](ConstantOp constant) { constant->removeAttr(kWeightOffsetAttr); });
    DenseMap<Attribute, int64_t> offsetOfValue;
    DenseMap<int64_t, int64_t> offsetOfInitResult;
    int64_t weightBytes = 0;
    for (ConstantOp constant : weights) {
      std::optional<int64_t> bytes = getTensorBytes(constant.getType());
      if (!bytes) {
        constant.emitError("kiln-plan-memory: no byte size for weight of type ")
            << constant.getType();
        return signalPassFailure();
      }
      if (failed(checkArenaBytes(constant, *bytes, "a weight")))
        return signalPassFailure();
      auto [slot, inserted] =
          offsetOfValue.try_emplace(constant.getValue(), weightBytes);
      if (inserted)
        weightBytes += alignArena(std::max<int64_t>(*bytes, 1));
      if (failed(checkArenaBytes(constant, weightBytes, "the weight arena")))
        return signalPassFailure();
      constant->setAttr(kWeightOffsetAttr,
                        builder.getI64IntegerAttr(slot->second));
      if (auto index = constant->getAttrOfType<IntegerAttr>(kInitResultAttr))
        offsetOfInitResult[index.getInt()] = slot->second;
    }
    if (auto init = module.lookupSymbol<func::FuncOp>(kInitFunctionName))
      for (unsigned index = 0; index < init.getNumResults(); ++index) {
        auto offset = offsetOfInitResult.find(index);
        if (offset == offsetOfInitResult.end()) {
          init.emitError("kiln-plan-memory: no weight reads result ")
              << index << " of @" << kInitFunctionName;
          return signalPassFailure();
        }
        init.setResultAttr(index, kInitWeightOffsetAttr,
                           builder.getI64IntegerAttr(offset->second));
      }
    for (func::FuncOp function : functions)
      function->setAttr(kWeightArenaBytesAttr,
                        builder.getI64IntegerAttr(weightBytes));
  }
};

} // namespace
} // namespace kiln
