// Loading a model for kiln-interpret: import or parse, then the graph pipeline.
#include "ModelLoading.h"

#include "kiln/Dialect/Kiln/IR/KilnDialect.h"
#include "kiln/Dialect/Kiln/IR/Messages.h"
#include "kiln/Import/ONNXImporter.h"
#include "kiln/Transforms/Pipelines.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

namespace kiln {
namespace {

/// Collects error diagnostics as "location: message" lines, at most 20 of a
/// kind (RepeatedDiagnosticLimit) and a count of the rest.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(mlir::MLIRContext &context)
      : handler(&context, [this](mlir::Diagnostic &diagnostic) {
          if (diagnostic.getSeverity() != mlir::DiagnosticSeverity::Error)
            return mlir::success();
          std::string line;
          llvm::raw_string_ostream os(line);
          os << diagnostic.getLocation() << ": " << diagnostic;
          for (const mlir::Diagnostic &note : diagnostic.getNotes())
            os << "\n  note: " << note;
          if (repeated.admit(os.str()))
            messages.push_back(os.str());
          return mlir::success();
        }) {}

  /// "|what|: <collected messages>".
  llvm::Error takeError(const llvm::Twine &what) {
    std::string text = what.str();
    for (const std::string &message : messages)
      text += "\n  " + message;
    for (const std::string &line : repeated.summary())
      text += "\n  " + line;
    messages.clear();
    repeated = RepeatedDiagnosticLimit();
    return llvm::createStringError(text);
  }

private:
  std::vector<std::string> messages;
  RepeatedDiagnosticLimit repeated;
  mlir::ScopedDiagnosticHandler handler;
};

llvm::Expected<mlir::func::FuncOp> findEntryFunction(mlir::ModuleOp module) {
  mlir::func::FuncOp only;
  unsigned count = 0;
  for (auto function : module.getOps<mlir::func::FuncOp>()) {
    if (function.getSymName() == "main")
      return function;
    if (!function.isExternal()) {
      only = function;
      ++count;
    }
  }
  if (count == 1)
    return only;
  return llvm::createStringError(
      count ? "the module has several functions and none is @main"
            : "the module has no function to interpret");
}

} // namespace

llvm::Expected<LoadedModel> loadAndPrepareModel(const std::string &path,
                                                mlir::MLIRContext &context,
                                                const LoadOptions &options) {
  context.loadDialect<KilnDialect, mlir::func::FuncDialect>();
  DiagnosticCollector diagnostics(context);
  LoadedModel model;

  if (llvm::sys::path::extension(path) == ".mlir") {
    llvm::SourceMgr sourceMgr;
    std::string includeError;
    if (sourceMgr.AddIncludeFile(path, llvm::SMLoc(), includeError) == 0)
      return llvm::createStringError("cannot read " + path);
    model.module = mlir::parseSourceFile<mlir::ModuleOp>(sourceMgr, &context);
    if (!model.module)
      return diagnostics.takeError("cannot parse " + path);
  } else {
    llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>> imported =
        importONNXFile(path, context);
    if (!imported)
      return imported.takeError();
    model.module = std::move(*imported);
  }

  mlir::PassManager pm(&context);
  GraphPipelineOptions pipeline;
  pipeline.inputShapes = options.inputShapes;
  pipeline.simplify = options.simplify;
  if (options.simplify)
    pipeline.precision = options.precision;
  buildGraphPipeline(pm, pipeline);
  if (mlir::failed(pm.run(*model.module)))
    return diagnostics.takeError("the graph pipeline failed on " + path);

  llvm::Expected<mlir::func::FuncOp> function =
      findEntryFunction(*model.module);
  if (!function)
    return function.takeError();
  model.function = *function;
  return model;
}

} // namespace kiln
