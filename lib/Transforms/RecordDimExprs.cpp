// kiln-record-dim-exprs: writes the symbolic extents of dynamic results.
#include "kiln/Transforms/RecordDimExprs.h"

#include "kiln/Dialect/Kiln/IR/DimRanges.h"
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
    // Only a function with ranged dims (kiln.dim_ranges) has extents to
    // record: a static compile, or an unranged dynamic dim, is left alone.
    if (!function->hasAttr(kDimRangesAttrName))
      return;
    SymbolicShapes shapes(function);
    Builder builder(function.getContext());
    function.walk([&](Operation *op) {
      if (op->getNumResults() != 1)
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
};
} // namespace

std::unique_ptr<Pass> createKilnRecordDimExprs() {
  return std::make_unique<RecordDimExprsPass>();
}

void registerKilnRecordDimExprs() { PassRegistration<RecordDimExprsPass>(); }

} // namespace kiln
