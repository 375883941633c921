// Imports an ONNX ModelProto into a module holding one kiln function.
#ifndef KILN_IMPORT_ONNXIMPORTER_H
#define KILN_IMPORT_ONNXIMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <string>

namespace kiln {

struct ImportOptions {
  /// Name of the generated function.
  std::string functionName = "main";
  /// Initializers with more elements than this become dense_resource blobs;
  /// smaller ones (shapes, axes, scalars) become inline dense attributes.
  int64_t inlineElementLimit = 64;
};

/// Parses the model at |path| and imports it. Every problem a model file can
/// cause (unreadable or truncated file, unsupported op, bad attribute,
/// missing input) is returned as an error whose message names the ONNX node,
/// its op type, domain and opset; nothing asserts or aborts.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
importONNXFile(const std::string &path, mlir::MLIRContext &context,
               const ImportOptions &options = {});

/// The same for a serialized ModelProto already in memory.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
importONNXBytes(llvm::StringRef bytes, llvm::StringRef sourceName,
                mlir::MLIRContext &context, const ImportOptions &options = {});

} // namespace kiln

#endif // KILN_IMPORT_ONNXIMPORTER_H
