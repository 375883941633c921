// kiln-require-static: names every dynamic dim left before code generation,
// and where a ranged dim's run-time extents stop being supported.
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

/// "[batch*seq, 768]", with the ranges of the names it uses appended to
/// |rangesText| ("batch in 1..64").
std::string describeExtents(const DimExprs &extents,
                            const llvm::MapVector<StringRef, DimRange> &ranges,
                            std::string &rangesText) {
  std::string text = "[";
  std::vector<std::string> names;
  for (auto [d, extent] : llvm::enumerate(extents)) {
    text += (d ? ", " : "") + (extent ? extent->str() : std::string("?"));
    if (extent)
      for (const std::string &name : extent->getSymbols())
        if (!llvm::is_contained(names, name))
          names.push_back(name);
  }
  for (const std::string &name : names) {
    auto range = ranges.find(name);
    if (range == ranges.end())
      continue;
    rangesText += (rangesText.empty() ? "" : ", ") + name + " in " +
                  formatDimRange(range->second);
  }
  return text + "]";
}

/// The boundary of dynamic shapes (issue 18): a function whose ranged dims
/// (kiln.dim_ranges) are all that is dynamic gets one error, at the first op
/// whose result has a run-time extent (its location names the ONNX node),
/// with the extents as expressions of the ranged dims and the stage that
/// cannot take them.
void reportRangedBoundary(func::FuncOp function,
                          const llvm::MapVector<StringRef, DimRange> &ranges) {
  SymbolicShapes shapes(function);
  std::string sizes;
  for (const auto &entry : ranges)
    sizes += (sizes.empty() ? "" : ",") + entry.first.str() + "=N";
  const char *stage =
      "kernel fusion (kiln-fuse-kernels) does not take run-time extents yet: "
      "the kernel kinds' contracts do not say which extents may be run-time "
      "values, and tiling, memory planning and the artifact need static "
      "sizes after it (issue 18)";
  Operation *first = nullptr;
  int64_t others = 0;
  function.walk([&](Operation *op) {
    if (op->getNumResults() != 1 || op->getParentOfType<LoopOp>())
      return;
    auto type = dyn_cast<ShapedType>(op->getResult(0).getType());
    if (!type || type.hasStaticShape())
      return;
    if (first)
      ++others;
    else
      first = op;
  });
  if (!first) {
    // Only the inputs are ranged: nothing computes with them.
    function.emitError() << "the ranged dims (" << sizes << ") reach no op; "
                         << stage << "; pass --input-shape "
                         << quoteForShell(sizes);
    return;
  }
  std::string rangesText;
  std::string extents =
      describeExtents(shapes.getDims(first->getResult(0)), ranges, rangesText);
  InFlightDiagnostic diag = first->emitError();
  diag << "result extents " << extents;
  if (!rangesText.empty())
    diag << " (" << rangesText << ")";
  diag << " are known only at run time; " << stage;
  if (others)
    diag << "; " << others << " more op" << (others > 1 ? "s have" : " has")
         << " run-time extents";
  diag << "; pass --input-shape " << quoteForShell(sizes)
       << " for an artifact of one size";
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
    if (!failedCheck && !ranges.empty()) {
      reportRangedBoundary(function, ranges);
      return signalPassFailure();
    }
    // With static inputs, a dynamic result means a shape that depends on
    // data (or an op whose inference is incomplete): name the op where it
    // starts, not every op downstream of it, whose types are dynamic only
    // because their operands are.
    if (!failedCheck)
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
