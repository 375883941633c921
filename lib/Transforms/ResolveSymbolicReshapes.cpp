// kiln-resolve-symbolic-reshapes: constant shapes for reshapes whose shape
// is computed from run-time extents.
#include "kiln/Transforms/ResolveSymbolicReshapes.h"

#include "kiln/Dialect/Kiln/IR/DimRanges.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/IR/ShapeUtils.h"
#include "kiln/Transforms/SymbolicShapes.h"
#include "kiln/Transforms/TypeRefinement.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

namespace kiln {
namespace {

/// The constant shape that gives |reshape| the result extents |result|
/// from an input of extents |input|, or std::nullopt: static extents as
/// themselves (not 0, which would need allowzero), a run-time extent equal
/// to the input's in the same dim as 0, one other as -1.
std::optional<SmallVector<int64_t>> constantShape(const DimExprs &input,
                                                  const DimExprs &result) {
  SmallVector<int64_t> shape;
  bool inferred = false;
  for (auto [dim, extent] : llvm::enumerate(result)) {
    if (!extent)
      return std::nullopt;
    if (std::optional<int64_t> size = extent->getConstant()) {
      if (*size <= 0)
        return std::nullopt;
      shape.push_back(*size);
    } else if (dim < input.size() && input[dim] && *input[dim] == *extent) {
      shape.push_back(0);
    } else if (!inferred) {
      inferred = true;
      shape.push_back(-1);
    } else {
      return std::nullopt;
    }
  }
  return shape;
}

struct ResolveSymbolicReshapesPass
    : PassWrapper<ResolveSymbolicReshapesPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ResolveSymbolicReshapesPass)

  StringRef getArgument() const final {
    return "kiln-resolve-symbolic-reshapes";
  }
  StringRef getDescription() const final {
    return "Gives reshapes whose shape is computed from run-time extents a "
           "constant shape (0 copies a dim, -1 infers one) and refines the "
           "types.";
  }

  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (!function->hasAttr(kDimRangesAttrName))
      return;
    if (failed(verifySymbolicDimAttributes(function)))
      return signalPassFailure();
    SymbolicShapes shapes(function);
    bool changed = false;
    function.walk([&](ReshapeOp reshape) {
      if (getConstantIntegers(reshape.getShape()) ||
          reshape->getParentOfType<KernelOp>())
        return;
      std::optional<SmallVector<int64_t>> shape =
          constantShape(shapes.getDims(reshape.getData()),
                        shapes.getDims(reshape.getResult()));
      if (!shape)
        return;
      OpBuilder builder(reshape);
      auto type =
          RankedTensorType::get({int64_t(shape->size())}, builder.getI64Type());
      Value constant = builder.create<ConstantOp>(
          reshape.getLoc(), type,
          DenseIntElementsAttr::get(type, ArrayRef<int64_t>(*shape)));
      reshape.getShapeMutable().set(constant);
      reshape.setAllowzero(false);
      changed = true;
    });
    if (!changed)
      return;
    // The shape arithmetic that built the old shapes, now unused.
    SmallVector<Operation *> ops;
    function.walk([&](Operation *op) {
      if (op->getParentOp() == function.getOperation())
        ops.push_back(op);
    });
    for (Operation *op : llvm::reverse(ops))
      if (isOpTriviallyDead(op))
        op->erase();
    bool refined = false;
    if (failed(refineFunctionTypes(function, refined)))
      return signalPassFailure();
  }
};
} // namespace

std::unique_ptr<Pass> createKilnResolveSymbolicReshapes() {
  return std::make_unique<ResolveSymbolicReshapesPass>();
}

void registerKilnResolveSymbolicReshapes() {
  PassRegistration<ResolveSymbolicReshapesPass>();
}

} // namespace kiln
