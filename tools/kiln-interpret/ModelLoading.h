// Loading a model for kiln-interpret: import (.onnx) or parse (.mlir), then
// the graph pipeline, with diagnostics turned into one error message.
#ifndef KILN_TOOLS_KILN_INTERPRET_MODELLOADING_H
#define KILN_TOOLS_KILN_INTERPRET_MODELLOADING_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace kiln {

struct LoadOptions {
  std::vector<std::string> inputShapes; // --input-shape entries.
  bool simplify = true;
  std::string precision = "fp32"; // kiln-convert-precision, as kiln-compile.
};

struct LoadedModel {
  mlir::OwningOpRef<mlir::ModuleOp> module;
  mlir::func::FuncOp function; // @main, or the only function.
};

/// Reads |path| (.mlir: kiln + func IR; anything else: an ONNX model), runs
/// the graph pipeline and finds the function to interpret.
llvm::Expected<LoadedModel> loadAndPrepareModel(const std::string &path,
                                                mlir::MLIRContext &context,
                                                const LoadOptions &options);

} // namespace kiln

#endif // KILN_TOOLS_KILN_INTERPRET_MODELLOADING_H
