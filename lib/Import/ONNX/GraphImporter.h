// Imports a parsed ModelProto's graph into a module with one kiln function.
#ifndef KILN_LIB_IMPORT_ONNX_GRAPHIMPORTER_H
#define KILN_LIB_IMPORT_ONNX_GRAPHIMPORTER_H

#include "kiln/Import/ONNXImporter.h"

#include "onnx/onnx_pb.h"

namespace kiln::onnx_import {

/// Builds the module for |model|; |modelDirectory| resolves external data.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
importModel(const onnx::ModelProto &model, llvm::StringRef sourceName,
            llvm::StringRef modelDirectory, mlir::MLIRContext &context,
            const ImportOptions &options);

} // namespace kiln::onnx_import

#endif // KILN_LIB_IMPORT_ONNX_GRAPHIMPORTER_H
