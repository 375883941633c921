// kiln-require-static: names every dynamic dim left before code generation
// that is not a ranged dim's extent known as an expression.
#include "kiln/Transforms/IfInlining.h"
#include "kiln/Transforms/LoopUnrolling.h"
#include "kiln/Transforms/Passes.h"
#include "kiln/Transforms/SymbolicShapes.h"

#include "kiln/Dialect/Kiln/IR/DimRanges.h"
#include "kiln/Dialect/Kiln/IR/Messages.h"
#include "kiln/Dialect/Kiln/IR/TensorLimits.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/ADT/StringExtras.h"

using namespace mlir;

namespace kiln {
#define GEN_PASS_DEF_KILNREQUIRESTATIC
#include "kiln/Transforms/Passes.h.inc"

namespace {
std::string describeShape(ShapedType type) {
  std::string text;
  for (int64_t i = 0; i < type.getRank(); ++i) {
    if (i)
      text += "x";
    text += type.isDynamicDim(i) ? std::string("N")
                                 : std::to_string(type.getDimSize(i));
  }
  return text;
}

/// With ranged dims (kiln.dim_ranges): every op with a run-time extent must
/// know it as an expression of the ranged dims, since the kernels and the
/// memory plan compute with it. Which kernels take run-time extents is the
/// kernel kinds' contract, checked at fusion (unmetRunTimeExtentRule).
bool checkRangedExtents(func::FuncOp function,
                        const llvm::MapVector<StringRef, DimRange> &ranges) {
  SymbolicShapes shapes(function);
  std::string sizes;
  for (const auto &entry : ranges)
    sizes += (sizes.empty() ? "" : ",") + entry.first.str() + "=N";
  bool ok = true;
  function.walk([&](Operation *op) {
    if (op->getParentOfType<LoopOp>() || op->getParentOfType<IfOp>())
      return WalkResult::advance();
    for (Value result : op->getResults()) {
      auto type = dyn_cast<ShapedType>(result.getType());
      if (!type || type.hasStaticShape() || !type.hasRank())
        continue;
      DimExprs extents = shapes.getDims(result);
      if (llvm::all_of(extents, [](const std::optional<DimExpr> &extent) {
            return extent.has_value();
          }))
        continue;
      std::string rangesText;
      std::string text = describeExtents(extents, ranges, rangesText);
      InFlightDiagnostic diag = op->emitError();
      diag << "result extents " << text;
      if (!rangesText.empty())
        diag << " (" << rangesText << ")";
      diag << " include one that is not an expression of the ranged dims "
              "(`?`); kernels and the memory plan need every run-time extent "
              "as one; pass --input-shape "
           << quoteForShell(sizes) << " for an artifact of one size";
      ok = false;
      // The first such op; those after it usually follow from it.
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return ok;
}

struct RequireStaticPass : impl::KilnRequireStaticBase<RequireStaticPass> {
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (failed(verifySymbolicDimAttributes(function)))
      return signalPassFailure();
    llvm::MapVector<StringRef, DimRange> ranges = getDimRanges(function);
    bool failedCheck = false;
    // A loop left by kiln-simplify-graph could not be unrolled.
    function.walk([&](LoopOp loop) {
      if (loop->getParentOfType<LoopOp>())
        return;
      loop.emitError() << describeLoopBlocker(loop);
      failedCheck = true;
    });
    // An if left by kiln-simplify-graph has a condition that did not fold.
    function.walk([&](IfOp ifOp) {
      if (ifOp->getParentOfType<IfOp>() || ifOp->getParentOfType<LoopOp>())
        return;
      ifOp.emitError() << describeIfBlocker(ifOp);
      failedCheck = true;
    });
    for (unsigned i = 0; i < function.getNumArguments(); ++i) {
      auto type = dyn_cast<ShapedType>(function.getArgument(i).getType());
      if (!type || type.hasStaticShape())
        continue;
      auto name = function.getArgAttrOfType<StringAttr>(i, "kiln.name");
      std::string inputName =
          name ? name.getValue().str() : "#" + std::to_string(i);
      if (!type.hasRank()) {
        failedCheck = true;
        function.emitError()
            << "input '" << inputName << "' has an unknown rank";
        continue;
      }
      auto dimNames = function.getArgAttrOfType<ArrayAttr>(i, "kiln.dim_names");
      for (int64_t d = 0; d < type.getRank(); ++d) {
        if (!type.isDynamicDim(d))
          continue;
        StringRef dimName;
        if (dimNames && d < int64_t(dimNames.size()))
          if (auto text = dyn_cast<StringAttr>(dimNames[d]))
            dimName = text.getValue();
        // A ranged dim is dynamic on purpose: reportRangedBoundary.
        if (!dimName.empty() && ranges.count(dimName))
          continue;
        failedCheck = true;
        InFlightDiagnostic diag = function.emitError()
                                  << "input '" << inputName
                                  << "' has dynamic dim " << d;
        // The hints are shell words: a name with spaces or '!' is quoted.
        std::string byInput =
            quoteForShell(inputName + "=" + describeShape(type));
        if (!dimName.empty())
          diag << " ('" << dimName << "'); pass --input-shape "
               << quoteForShell((dimName + "=N").str()) << " or " << byInput;
        else
          diag << "; pass --input-shape " << byInput;
      }
    }
    if (!failedCheck && !ranges.empty() &&
        !checkRangedExtents(function, ranges))
      return signalPassFailure();
    // With static inputs, a dynamic result means a shape that depends on
    // data (or an op whose inference is incomplete): name the op where it
    // starts, not every op downstream of it, whose types are dynamic only
    // because their operands are.
    if (!failedCheck && ranges.empty())
      function.walk([&](Operation *op) {
        auto isDynamic = [](Value value) {
          auto type = dyn_cast<ShapedType>(value.getType());
          return type && !type.hasStaticShape();
        };
        if (llvm::any_of(op->getOperands(), isDynamic))
          return;
        for (Value result : op->getResults())
          if (isDynamic(result)) {
            op->emitError() << "result type " << result.getType()
                            << " is not static; code generation needs "
                               "static shapes";
            failedCheck = true;
            return;
          }
      });
    // Every size that code generation computes must fit int64: an input
    // shape given on the command line can make one overflow. Inputs first,
    // then the ops whose types follow from them.
    if (!failedCheck)
      for (BlockArgument argument : function.getArguments())
        if (std::optional<std::string> problem =
                findTensorSizeProblem(argument.getType())) {
          auto name = function.getArgAttrOfType<StringAttr>(
              argument.getArgNumber(), "kiln.name");
          function.emitError()
              << "input '" << (name ? name.getValue() : StringRef("?"))
              << "': " << *problem;
          failedCheck = true;
        }
    if (!failedCheck)
      function.walk([&](Operation *op) {
        for (Value result : op->getResults())
          if (failed(checkTensorSize(op->getLoc(), result.getType())))
            failedCheck = true;
      });
    if (failedCheck)
      signalPassFailure();
  }
};
} // namespace
} // namespace kiln
