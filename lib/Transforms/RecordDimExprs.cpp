// kiln-record-dim-exprs: writes the symbolic extents of dynamic results.
#include "kiln/Transforms/RecordDimExprs.h"

#include "kiln/Dialect/Kiln/IR/DimRanges.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Transforms/SymbolicShapes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

namespace kiln {
namespace {
struct RecordDimExprsPass
    : PassWrapper<RecordDimExprsPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(RecordDimExprsPass)

  StringRef getArgument() const final { return "kiln-record-dim-exprs"; }
  StringRef getDescription() const final {
    return "Writes each dynamic result's extents as expressions of the named "
           "input dims (kiln.dim_exprs).";
  }

  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (failed(verifySymbolicDimAttributes(function)))
      return signalPassFailure();
    recordDimExprs(function);
  }
};
} // namespace

void recordDimExprs(func::FuncOp function) {
  // Only a function with ranged dims (kiln.dim_ranges) has extents to
  // record: a static compile, or an unranged dynamic dim, is left alone.
  if (!function->hasAttr(kDimRangesAttrName))
    return;
  SymbolicShapes shapes(function);
  Builder builder(function.getContext());
  function.walk([&](Operation *op) {
    // Ops in a kernel read its block arguments, which the analysis does
    // not follow: they keep what fusion moved in with them.
    if (op->getNumResults() != 1 || op->getParentOfType<KernelOp>())
      return;
    auto type = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!type || type.hasStaticShape())
      return;
    SmallVector<Attribute> entries;
    for (const std::optional<DimExpr> &extent :
         shapes.getDims(op->getResult(0)))
      entries.push_back(builder.getStringAttr(extent ? extent->str() : "?"));
    op->setAttr(kDimExprsAttrName, builder.getArrayAttr(entries));
  });
}

std::unique_ptr<Pass> createKilnRecordDimExprs() {
  return std::make_unique<RecordDimExprsPass>();
}

void registerKilnRecordDimExprs() { PassRegistration<RecordDimExprsPass>(); }

} // namespace kiln
