// kiln-require-static: names every dynamic dim left before code generation.
#include "kiln/Transforms/LoopUnrolling.h"
#include "kiln/Transforms/Passes.h"

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

struct RequireStaticPass : impl::KilnRequireStaticBase<RequireStaticPass> {
  void runOnOperation() override {
    func::FuncOp function = getOperation();
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
      failedCheck = true;
      auto name = function.getArgAttrOfType<StringAttr>(i, "kiln.name");
      std::string inputName =
          name ? name.getValue().str() : "#" + std::to_string(i);
      if (!type.hasRank()) {
        function.emitError() << "input '" << inputName
                             << "' has an unknown rank";
        continue;
      }
      auto dimNames = function.getArgAttrOfType<ArrayAttr>(i, "kiln.dim_names");
      for (int64_t d = 0; d < type.getRank(); ++d) {
        if (!type.isDynamicDim(d))
          continue;
        InFlightDiagnostic diag = function.emitError()
                                  << "input '" << inputName
                                  << "' has dynamic dim " << d;
        StringRef dimName;
        if (dimNames && d < int64_t(dimNames.size()))
          if (auto text = dyn_cast<StringAttr>(dimNames[d]))
            dimName = text.getValue();
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
