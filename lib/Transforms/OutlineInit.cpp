// kiln-outline-init: moves the weight transforms that constant folding left
// alone (results above its size cap: transposes, casts to fp16, BatchNorm
// folds, concatenations of large weights) out of the entry function into
// @kiln_init, which runs once on the GPU when the model loads and writes its
// results into the weight arena.
//
// Algorithm:
//  1. In program order, an op of the entry function is a weight transform
//     when it has no regions, has results, and every operand is a
//     kiln.constant or the result of another weight transform.
//  2. Pure view chains (reshape-like ops of constants) stay: views cost
//     nothing and keep the weight's own buffer.
//  3. A broadcast of weights (kiln.expand to more elements) stays when every
//     user is an op that fusion absorbs producers into by index maps
//     (pointwise, data movement, row reductions) and is no weight transform
//     itself: its operand is outlined instead, and the kernels read that
//     small operand through the broadcast's index map. Outlined, the
//     broadcast is a full copy in the weight arena that every run reads
//     again (DeBERTa's position indices expanded over batch x heads: a
//     4 MiB i64 tensor per layer read by two kernels, where 128 KiB hold
//     the same values). A library or attention user needs the buffer, so
//     there the broadcast is outlined.
//  4. The values of weight transforms used by anything else become results
//     of @kiln_init, which clones the transforms (and the constants and
//     views they read). In the entry function each such value is replaced by
//     a kiln.constant `dense_resource<kiln_init.N>` without data, marked
//     `kiln.init_result = N`, and the transforms are erased.
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/KernelKinds/OpClasses.h"
#include "kiln/Transforms/Passes.h"
#include "kiln/Transforms/Planning/LaunchGraph.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNOUTLINEINIT
#include "kiln/Transforms/Passes.h.inc"

namespace {

/// Step 2: a constant, or a view of one (through views only).
bool isConstantView(Value value) {
  Operation *op = value.getDefiningOp();
  while (op && isViewOp(op))
    op = op->getOperand(0).getDefiningOp();
  return op && isa<ConstantOp>(op);
}

/// A dense_resource handle named |name| that has no blob: the data appears
/// only on the GPU.
DenseResourceElementsAttr getInitResource(ShapedType type, StringRef name) {
  auto &manager = DenseResourceElementsHandle::getManagerInterface(
      type.getContext());
  DenseResourceElementsHandle handle = manager.insert(name);
  return DenseResourceElementsAttr::get(type, handle);
}

/// Step 3: a broadcast that stays in the entry function.
bool keepsBroadcast(Operation *op,
                    const llvm::SetVector<Operation *> &transforms) {
  auto expand = dyn_cast<ExpandOp>(op);
  if (!expand)
    return false;
  auto from = dyn_cast<RankedTensorType>(expand->getOperand(0).getType());
  auto to = dyn_cast<RankedTensorType>(expand.getType());
  if (!from || !to || !from.hasStaticShape() || !to.hasStaticShape() ||
      to.getNumElements() <= from.getNumElements())
    return false;
  return llvm::all_of(expand->getUsers(), [&](Operation *user) {
    if (transforms.contains(user))
      return false;
    FusionClass kind = classifyForFusion(user);
    return kind == FusionClass::Pointwise ||
           kind == FusionClass::DataMovement || kind == FusionClass::Reduction;
  });
}

struct OutlineInitPass : impl::KilnOutlineInitBase<OutlineInitPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    func::FuncOp entry = getEntryFunction(module);
    if (!entry || module.lookupSymbol(kInitFunctionName))
      return;
    Block &body = entry.getBody().front();

    // Steps 1 and 2.
    llvm::SetVector<Operation *> transforms;
    for (Operation &op : body) {
      if (isa<ConstantOp, func::ReturnOp>(op) || op.getNumRegions() != 0 ||
          op.getNumResults() == 0 || op.getNumOperands() == 0)
        continue;
      bool fromWeights = llvm::all_of(op.getOperands(), [&](Value operand) {
        Operation *producer = operand.getDefiningOp();
        return producer &&
               (isa<ConstantOp>(producer) || transforms.contains(producer));
      });
      if (fromWeights && !(isViewOp(&op) && isConstantView(op.getResult(0))))
        transforms.insert(&op);
    }
    // Step 3, in reverse program order: a user is a transform or not before
    // its operand's broadcast is looked at.
    for (Operation *op : llvm::to_vector(llvm::reverse(transforms)))
      if (keepsBroadcast(op, transforms))
        transforms.remove(op);
    if (transforms.empty())
      return;

    // Step 4: the values the rest of the function reads.
    SmallVector<Value> outlined;
    for (Operation *op : transforms)
      for (Value result : op->getResults())
        if (llvm::any_of(result.getUsers(), [&](Operation *user) {
              return !transforms.contains(user);
            }))
          outlined.push_back(result);

    OpBuilder builder(module.getContext());
    builder.setInsertionPointAfter(entry);
    auto init = builder.create<func::FuncOp>(
        entry.getLoc(), kInitFunctionName,
        builder.getFunctionType({}, ValueRange(outlined).getTypes()));
    init.setPrivate();
    Block *initBody = init.addEntryBlock();
    builder.setInsertionPointToEnd(initBody);
    IRMapping mapping;
    // Constants and the views of them that a transform reads, cloned once.
    std::function<void(Value)> cloneSource = [&](Value value) {
      if (mapping.contains(value))
        return;
      Operation *producer = value.getDefiningOp();
      for (Value operand : producer->getOperands())
        cloneSource(operand);
      builder.clone(*producer, mapping);
    };
    for (Operation *op : transforms) {
      for (Value operand : op->getOperands())
        cloneSource(operand);
      builder.clone(*op, mapping);
    }
    SmallVector<Value> initResults;
    for (Value value : outlined)
      initResults.push_back(mapping.lookup(value));
    builder.create<func::ReturnOp>(entry.getLoc(), initResults);

    for (auto [index, value] : llvm::enumerate(outlined)) {
      Operation *producer = value.getDefiningOp();
      builder.setInsertionPoint(producer);
      auto type = cast<ShapedType>(value.getType());
      auto weight = builder.create<ConstantOp>(
          producer->getLoc(),
          getInitResource(type, "kiln_init." + std::to_string(index)));
      weight->setAttr(kInitResultAttr, builder.getI64IntegerAttr(index));
      value.replaceAllUsesWith(weight.getResult());
    }
    for (Operation *op : llvm::reverse(transforms))
      op->erase();
    // Constants that only the transforms read.
    for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
      if (isa<ConstantOp>(op) && op.use_empty())
        op.erase();
  }
};

} // namespace
} // namespace kiln
