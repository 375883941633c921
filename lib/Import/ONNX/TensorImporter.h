// Converts ONNX element types and TensorProtos (inline, typed or external
// data) into MLIR types and elements attributes.
#ifndef KILN_LIB_IMPORT_ONNX_TENSORIMPORTER_H
#define KILN_LIB_IMPORT_ONNX_TENSORIMPORTER_H

#include "mlir/IR/BuiltinAttributeInterfaces.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include "onnx/onnx_pb.h"

#include <cstdint>
#include <memory>
#include <string>

namespace kiln::onnx_import {

/// The ONNX name of a TensorProto data type ("FLOAT", "INT64", ...).
std::string getDataTypeName(int32_t dataType);

/// The MLIR element type of an ONNX data type; an error for strings, complex
/// numbers, 8-bit floats and other types kiln does not support.
llvm::Expected<mlir::Type> convertElementType(mlir::MLIRContext &context,
                                              int32_t dataType);

/// Turns TensorProtos into elements attributes: small tensors become inline
/// `dense` attributes, larger ones `dense_resource` blobs owned by the builtin
/// dialect's resource manager, so that weights never print as text.
class TensorImporter {
public:
  /// |modelDirectory| resolves the relative paths of external data.
  TensorImporter(mlir::MLIRContext &context, std::string modelDirectory,
                 int64_t inlineElementLimit)
      : context(context), modelDirectory(std::move(modelDirectory)),
        inlineElementLimit(inlineElementLimit) {}

  /// Converts |tensor|; |description| names it in error messages, e.g.
  /// "initializer 'w'"; |blobName| names a resource blob (default: the
  /// tensor's name).
  llvm::Expected<mlir::ElementsAttr> convert(const onnx::TensorProto &tensor,
                                             llvm::StringRef description,
                                             llvm::StringRef blobName = "");

  /// Where the resource blobs that came from ONNX external data live: blob
  /// key -> [location (as the model names it), offset, length]. kiln-compile
  /// --external-weights keeps such weights in that file.
  mlir::DictionaryAttr getExternalOrigins() const;

private:
  /// Reads the |expectedBytes| bytes of the tensor's external data.
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
  readExternalData(const onnx::TensorProto &tensor, uint64_t expectedBytes,
                   llvm::StringRef description);

  struct ExternalOrigin {
    std::string location;
    uint64_t offset = 0, length = 0;
  };

  mlir::MLIRContext &context;
  std::string modelDirectory;
  int64_t inlineElementLimit;
  llvm::StringMap<ExternalOrigin> externalOrigins;
};

} // namespace kiln::onnx_import

#endif // KILN_LIB_IMPORT_ONNX_TENSORIMPORTER_H
