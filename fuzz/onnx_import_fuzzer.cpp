// libFuzzer target: an ONNX ModelProto through the importer and the graph
// pipeline (what kiln-compile and kiln-interpret run before fusion).
#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Import/ONNXImporter.h"
#include "kiln/Transforms/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <cstdlib>
#include <string>

namespace {

/// A model file name in an empty folder of its own: relative external-data
/// locations resolve there and find nothing.
const std::string &modelPath() {
  static const std::string path = [] {
    char folder[] = "/tmp/kiln-fuzz-import-XXXXXX";
    const char *made = mkdtemp(folder);
    return std::string(made ? made : "/nonexistent") + "/model.onnx";
  }();
  return path;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // A context per input: uniqued attributes and resource blobs do not
  // accumulate over millions of runs.
  mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
  context.loadDialect<kiln::KilnDialect, mlir::func::FuncDialect>();
  // Errors are the expected outcome for most inputs: keep them quiet.
  mlir::ScopedDiagnosticHandler quiet(
      &context, [](mlir::Diagnostic &) { return mlir::success(); });
  llvm::StringRef bytes(reinterpret_cast<const char *>(data), size);
  auto module = kiln::importONNXBytes(bytes, modelPath(), context);
  if (!module) {
    llvm::consumeError(module.takeError());
    return 0;
  }
  mlir::PassManager pm(&context);
  kiln::GraphPipelineOptions options;
  kiln::buildGraphPipeline(pm, options);
  (void)pm.run(**module);
  return 0;
}
