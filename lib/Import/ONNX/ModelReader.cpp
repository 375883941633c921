// The importer's entry points: reads and parses a serialized ModelProto, then
// hands it to the graph importer.
#include "GraphImporter.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <google/protobuf/io/coded_stream.h>

#include <climits>

namespace kiln {
namespace {

/// Parses |bytes| as a ModelProto; protobuf limits a message to 2 GiB.
llvm::Expected<std::unique_ptr<onnx::ModelProto>>
parseModel(llvm::StringRef bytes, llvm::StringRef sourceName) {
  auto invalid = [&](const llvm::Twine &reason) {
    return llvm::createStringError("'" + sourceName +
                                   "' is not a valid ONNX model: " + reason);
  };
  if (bytes.size() >= size_t(INT_MAX))
    return invalid("it is larger than protobuf's 2 GiB limit; store the "
                   "weights as external data");
  google::protobuf::io::CodedInputStream stream(
      reinterpret_cast<const uint8_t *>(bytes.data()), int(bytes.size()));
  stream.SetTotalBytesLimit(INT_MAX);
  auto model = std::make_unique<onnx::ModelProto>();
  if (!model->ParseFromCodedStream(&stream) || !stream.ConsumedEntireMessage())
    return invalid("protobuf parsing failed (truncated or corrupt file)");
  if (!model->has_graph())
    return invalid("it has no graph");
  return std::move(model);
}

} // namespace

llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
importONNXBytes(llvm::StringRef bytes, llvm::StringRef sourceName,
                mlir::MLIRContext &context, const ImportOptions &options) {
  auto model = parseModel(bytes, sourceName);
  if (!model)
    return model.takeError();
  llvm::StringRef directory = llvm::sys::path::parent_path(sourceName);
  return onnx_import::importModel(**model, sourceName,
                                  directory.empty() ? "." : directory, context,
                                  options);
}

llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
importONNXFile(const std::string &path, mlir::MLIRContext &context,
               const ImportOptions &options) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return llvm::createStringError("cannot read '" + path +
                                   "': " + buffer.getError().message());
  return importONNXBytes((*buffer)->getBuffer(), path, context, options);
}

} // namespace kiln
