// Converts ONNX TensorProtos (raw, typed-field or external data) into inline
// dense attributes or dense_resource blobs.
#include "TensorImporter.h"

#include "mlir/IR/AsmState.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <cstring>
#include <limits>

using namespace mlir;

namespace kiln::onnx_import {
namespace {

// ONNX TensorProto.DataType values; the enum of the installed onnx (1.12)
// lacks the newer ones, so the numbers are spelt out.
enum DataType : int32_t {
  kFloat = 1,
  kUInt8 = 2,
  kInt8 = 3,
  kUInt16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kString = 8,
  kBool = 9,
  kFloat16 = 10,
  kDouble = 11,
  kUInt32 = 12,
  kUInt64 = 13,
  kComplex64 = 14,
  kComplex128 = 15,
  kBFloat16 = 16,
};

/// Bytes per element of a supported data type.
unsigned getByteWidth(int32_t dataType) {
  switch (dataType) {
  case kUInt8:
  case kInt8:
  case kBool:
    return 1;
  case kUInt16:
  case kInt16:
  case kFloat16:
  case kBFloat16:
    return 2;
  case kFloat:
  case kInt32:
  case kUInt32:
    return 4;
  default:
    return 8;
  }
}

/// Appends each value's low |width| bytes (little-endian host).
template <typename T>
void appendNarrowed(const google::protobuf::RepeatedField<T> &values,
                    unsigned width, std::string &bytes) {
  bytes.reserve(bytes.size() + values.size() * width);
  for (T value : values)
    bytes.append(reinterpret_cast<const char *>(&value), width);
}

/// Serialises the typed-field data (float_data, int32_data, ...) of |tensor|.
void readTypedFields(const onnx::TensorProto &tensor, std::string &bytes) {
  unsigned width = getByteWidth(tensor.data_type());
  switch (tensor.data_type()) {
  case kFloat:
    return appendNarrowed(tensor.float_data(), 4, bytes);
  case kDouble:
    return appendNarrowed(tensor.double_data(), 8, bytes);
  case kInt64:
    return appendNarrowed(tensor.int64_data(), 8, bytes);
  case kUInt32:
  case kUInt64:
    return appendNarrowed(tensor.uint64_data(), width, bytes);
  default:
    // int32_data also carries the 8/16-bit integers, bool and the bit
    // patterns of float16/bfloat16.
    return appendNarrowed(tensor.int32_data(), width, bytes);
  }
}

/// The number of elements of |dims|, or an error for negative or huge dims.
llvm::Expected<int64_t> getElementCount(const onnx::TensorProto &tensor,
                                        llvm::StringRef description) {
  int64_t count = 1;
  for (int64_t dim : tensor.dims()) {
    if (dim < 0)
      return llvm::createStringError(description + " has negative dimension " +
                                     llvm::Twine(dim));
    if (dim != 0 && count > (int64_t(1) << 48) / dim)
      return llvm::createStringError(description + " is too large");
    count *= dim;
  }
  return count;
}

} // namespace

std::string getDataTypeName(int32_t dataType) {
  static const char *const names[] = {
      "UNDEFINED",      "FLOAT",        "UINT8",          "INT8",
      "UINT16",         "INT16",        "INT32",          "INT64",
      "STRING",         "BOOL",         "FLOAT16",        "DOUBLE",
      "UINT32",         "UINT64",       "COMPLEX64",      "COMPLEX128",
      "BFLOAT16",       "FLOAT8E4M3FN", "FLOAT8E4M3FNUZ", "FLOAT8E5M2",
      "FLOAT8E5M2FNUZ", "UINT4",        "INT4",           "FLOAT4E2M1"};
  if (dataType >= 0 && dataType < int32_t(std::size(names)))
    return names[dataType];
  return "data type " + std::to_string(dataType);
}

llvm::Expected<Type> convertElementType(MLIRContext &context,
                                        int32_t dataType) {
  Builder b(&context);
  switch (dataType) {
  case kFloat:
    return b.getF32Type();
  case kFloat16:
    return b.getF16Type();
  case kBFloat16:
    return b.getBF16Type();
  case kDouble:
    return b.getF64Type();
  case kInt64:
    return b.getIntegerType(64);
  case kInt32:
    return b.getIntegerType(32);
  case kInt16:
    return b.getIntegerType(16);
  case kInt8:
    return b.getIntegerType(8);
  case kUInt8:
    return b.getIntegerType(8, /*isSigned=*/false);
  case kUInt16:
    return b.getIntegerType(16, /*isSigned=*/false);
  case kUInt32:
    return b.getIntegerType(32, /*isSigned=*/false);
  case kUInt64:
    return b.getIntegerType(64, /*isSigned=*/false);
  case kBool:
    return b.getIntegerType(1);
  default:
    return llvm::createStringError("unsupported element type " +
                                   getDataTypeName(dataType));
  }
}

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
TensorImporter::readExternalData(const onnx::TensorProto &tensor,
                                 uint64_t expectedBytes,
                                 llvm::StringRef description) {
  std::string location;
  uint64_t offset = 0;
  std::optional<uint64_t> length;
  for (const onnx::StringStringEntryProto &entry : tensor.external_data()) {
    if (entry.key() == "location") {
      location = entry.value();
    } else if (entry.key() == "offset" || entry.key() == "length") {
      uint64_t value;
      if (llvm::StringRef(entry.value()).getAsInteger(10, value))
        return llvm::createStringError(description + " has an invalid " +
                                       entry.key() + " '" + entry.value() +
                                       "' in its external data");
      if (entry.key() == "offset")
        offset = value;
      else
        length = value;
    }
  }
  if (location.empty())
    return llvm::createStringError(description +
                                   " has external data without a location");
  if (length && *length != expectedBytes)
    return llvm::createStringError(description +
                                   " has an external data length of " +
                                   llvm::Twine(*length) + " bytes, expected " +
                                   llvm::Twine(expectedBytes));
  llvm::SmallString<256> path(location);
  if (!llvm::sys::path::is_absolute(path)) {
    path = modelDirectory;
    llvm::sys::path::append(path, location);
  }
  uint64_t fileSize;
  if (std::error_code ec = llvm::sys::fs::file_size(path, fileSize))
    return llvm::createStringError(description +
                                   ": cannot read external data '" + path +
                                   "': " + ec.message());
  if (offset > fileSize || fileSize - offset < expectedBytes)
    return llvm::createStringError(
        description + ": external data file '" + path + "' is too short (" +
        llvm::Twine(fileSize) + " bytes; needs " + llvm::Twine(expectedBytes) +
        " bytes at offset " + llvm::Twine(offset) + ")");
  if (expectedBytes == 0)
    return llvm::MemoryBuffer::getMemBuffer("", path, false);
  auto buffer = llvm::MemoryBuffer::getFileSlice(path, expectedBytes, offset,
                                                 /*IsVolatile=*/false);
  if (!buffer)
    return llvm::createStringError(description +
                                   ": cannot read external data '" + path +
                                   "': " + buffer.getError().message());
  return std::move(*buffer);
}

llvm::Expected<ElementsAttr>
TensorImporter::convert(const onnx::TensorProto &tensor,
                        llvm::StringRef description, llvm::StringRef blobName) {
  llvm::Expected<Type> elementType =
      convertElementType(context, tensor.data_type());
  if (!elementType)
    return llvm::createStringError(description + " has an " +
                                   llvm::toString(elementType.takeError()));
  llvm::Expected<int64_t> count = getElementCount(tensor, description);
  if (!count)
    return count.takeError();
  uint64_t expectedBytes = uint64_t(*count) * getByteWidth(tensor.data_type());

  // The bytes come from raw_data (no copy), external data or typed fields.
  llvm::ArrayRef<char> data;
  std::string typedBytes;
  std::unique_ptr<llvm::MemoryBuffer> external;
  if (tensor.has_data_location() &&
      tensor.data_location() == onnx::TensorProto::EXTERNAL) {
    auto buffer = readExternalData(tensor, expectedBytes, description);
    if (!buffer)
      return buffer.takeError();
    external = std::move(*buffer);
    data = llvm::ArrayRef<char>(external->getBufferStart(),
                                external->getBufferSize());
  } else if (tensor.has_raw_data()) {
    data = llvm::ArrayRef<char>(tensor.raw_data().data(),
                                tensor.raw_data().size());
  } else {
    readTypedFields(tensor, typedBytes);
    data = llvm::ArrayRef<char>(typedBytes.data(), typedBytes.size());
  }
  if (data.empty() && expectedBytes > 0 && !tensor.name().empty()) {
    // A graph-only model (dims kept, data stripped): a resource without a
    // blob. The graph compiles; nothing folds it, and packaging or
    // evaluation reports the missing data by name.
    auto &manager = DenseResourceElementsHandle::getManagerInterface(&context);
    auto type = RankedTensorType::get(
        llvm::SmallVector<int64_t>(tensor.dims().begin(), tensor.dims().end()),
        *elementType);
    return cast<ElementsAttr>(DenseResourceElementsAttr::get(
        type, manager.insert(blobName.empty() ? llvm::StringRef(tensor.name())
                                              : blobName)));
  }
  if (data.size() != expectedBytes)
    return llvm::createStringError(
        description + " has " + llvm::Twine(data.size()) +
        " bytes of data, expected " + llvm::Twine(expectedBytes) + " (" +
        llvm::Twine(*count) + " elements of " +
        getDataTypeName(tensor.data_type()) + ")");

  auto type = RankedTensorType::get(
      llvm::SmallVector<int64_t>(tensor.dims().begin(), tensor.dims().end()),
      *elementType);
  bool isBool = tensor.data_type() == kBool;
  if (*count <= inlineElementLimit) {
    if (isBool) {
      llvm::SmallVector<bool> values;
      for (char byte : data)
        values.push_back(byte != 0);
      return cast<ElementsAttr>(DenseElementsAttr::get(type, values));
    }
    return cast<ElementsAttr>(DenseElementsAttr::getFromRawBuffer(type, data));
  }
  constexpr size_t kBlobAlignment = 64;
  bool fromExternal = external != nullptr;
  AsmResourceBlob blob;
  if (external && !isBool &&
      reinterpret_cast<uintptr_t>(data.data()) % kBlobAlignment == 0) {
    // External data stays in the (memory-mapped) file slice, which the blob
    // owns: a 735 MB DeBERTa-v2 took 1 s of CPU to copy into the heap, page
    // faults included, before anything read it. Exporters align external
    // tensors to 64 bytes or more; others are copied.
    auto *owner = external.release();
    blob = UnmanagedAsmResourceBlob::allocateWithAlign(
        data, kBlobAlignment,
        [owner](void *, size_t, size_t) { delete owner; });
  } else {
    blob = HeapAsmResourceBlob::allocateAndCopyWithAlign(data, kBlobAlignment);
    if (isBool)
      for (char &byte : blob.getMutableData())
        byte = byte != 0;
  }
  if (blobName.empty())
    blobName = tensor.name().empty() ? llvm::StringRef("constant")
                                     : llvm::StringRef(tensor.name());
  auto resource =
      DenseResourceElementsAttr::get(type, blobName, std::move(blob));
  if (fromExternal) {
    // The key may differ from |blobName| when the name was taken.
    ExternalOrigin &origin = externalOrigins[resource.getRawHandle().getKey()];
    for (const onnx::StringStringEntryProto &entry : tensor.external_data())
      if (entry.key() == "location")
        origin.location = entry.value();
      else if (entry.key() == "offset")
        llvm::StringRef(entry.value()).getAsInteger(10, origin.offset);
    origin.length = expectedBytes;
  }
  return cast<ElementsAttr>(resource);
}

DictionaryAttr TensorImporter::getExternalOrigins() const {
  Builder b(&context);
  SmallVector<NamedAttribute> entries;
  for (const auto &entry : externalOrigins)
    entries.push_back(b.getNamedAttr(
        entry.getKey(),
        b.getArrayAttr({b.getStringAttr(entry.getValue().location),
                        b.getI64IntegerAttr(entry.getValue().offset),
                        b.getI64IntegerAttr(entry.getValue().length)})));
  return b.getDictionaryAttr(entries);
}

} // namespace kiln::onnx_import
