// Reading and writing onnx.TensorProto files (raw_data or typed fields).
#include "kiln/Evaluator/ScalarSemantics.h"
#include "kiln/Evaluator/TensorIO.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include "onnx/onnx_pb.h"

#include <cstring>

namespace kiln::eval {
namespace {

/// Reads the typed repeated field that ONNX uses for |dtype|; |count| values.
llvm::Error fillFromTypedField(const onnx::TensorProto &proto, Tensor &tensor,
                               const std::string &path) {
  int64_t count = tensor.numElements();
  auto sizeError = [&](const char *field, int64_t size) {
    return llvm::createStringError(
        "%s: tensor '%s' of %s has %lld values in %s, expected %lld",
        path.c_str(), proto.name().c_str(), tensor.describe().c_str(),
        static_cast<long long>(size), field, static_cast<long long>(count));
  };
  switch (tensor.dtype()) {
  case DType::F32:
    if (proto.float_data_size() != count)
      return sizeError("float_data", proto.float_data_size());
    for (int64_t i = 0; i < count; ++i)
      tensor.floats()[i] = proto.float_data(i);
    return llvm::Error::success();
  case DType::F64:
    if (proto.double_data_size() != count)
      return sizeError("double_data", proto.double_data_size());
    for (int64_t i = 0; i < count; ++i)
      tensor.floats()[i] = proto.double_data(i);
    return llvm::Error::success();
  case DType::I64:
    if (proto.int64_data_size() != count)
      return sizeError("int64_data", proto.int64_data_size());
    for (int64_t i = 0; i < count; ++i)
      tensor.ints()[i] = proto.int64_data(i);
    return llvm::Error::success();
  case DType::U32:
  case DType::U64:
    if (proto.uint64_data_size() != count)
      return sizeError("uint64_data", proto.uint64_data_size());
    for (int64_t i = 0; i < count; ++i)
      tensor.setInt(i, static_cast<int64_t>(proto.uint64_data(i)));
    return llvm::Error::success();
  case DType::F16:
  case DType::BF16:
    // Stored as the 16-bit patterns in int32_data.
    if (proto.int32_data_size() != count)
      return sizeError("int32_data", proto.int32_data_size());
    for (int64_t i = 0; i < count; ++i) {
      uint16_t bits = static_cast<uint16_t>(proto.int32_data(i));
      tensor.floats()[i] = tensor.dtype() == DType::F16
                               ? halfBitsToDouble(bits)
                               : bfloat16BitsToDouble(bits);
    }
    return llvm::Error::success();
  default: // bool, int8/16/32, uint8/16: int32_data.
    if (proto.int32_data_size() != count)
      return sizeError("int32_data", proto.int32_data_size());
    for (int64_t i = 0; i < count; ++i)
      tensor.setInt(i, proto.int32_data(i));
    return llvm::Error::success();
  }
}

} // namespace

llvm::Expected<NamedTensor> readTensorProto(const std::string &path) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                  /*RequiresNullTerminator=*/false);
  if (!buffer)
    return llvm::createStringError(buffer.getError(), "cannot read %s: %s",
                                   path.c_str(),
                                   buffer.getError().message().c_str());
  onnx::TensorProto proto;
  if (!proto.ParseFromArray((*buffer)->getBufferStart(),
                            static_cast<int>((*buffer)->getBufferSize())))
    return llvm::createStringError("%s is not a valid onnx.TensorProto",
                                   path.c_str());
  std::optional<DType> dtype = dtypeFromOnnx(proto.data_type());
  if (!dtype)
    return llvm::createStringError(
        "%s: tensor '%s' has unsupported data_type %d", path.c_str(),
        proto.name().c_str(), proto.data_type());
  if (proto.data_location() == onnx::TensorProto::EXTERNAL)
    return llvm::createStringError("%s: tensor '%s' uses external data",
                                   path.c_str(), proto.name().c_str());
  if (proto.has_segment())
    return llvm::createStringError("%s: tensor '%s' is segmented", path.c_str(),
                                   proto.name().c_str());
  std::vector<int64_t> shape(proto.dims().begin(), proto.dims().end());
  llvm::Expected<int64_t> count = checkedTensorElementCount(*dtype, shape);
  if (!count)
    return llvm::createStringError(path + ": tensor '" + proto.name() +
                                   "': " + llvm::toString(count.takeError()));

  NamedTensor result;
  result.name = proto.name();
  if (proto.has_raw_data()) {
    const std::string &raw = proto.raw_data();
    llvm::Expected<Tensor> tensor = Tensor::fromBytes(
        *dtype, shape, llvm::ArrayRef<char>(raw.data(), raw.size()));
    if (!tensor)
      return llvm::createStringError(
          path + ": tensor '" + proto.name() +
          "': " + llvm::toString(tensor.takeError()));
    result.tensor = std::move(*tensor);
    return result;
  }
  // Every value of a typed field takes at least one byte of the file: a
  // count beyond the file's size cannot match, so do not allocate it.
  if (uint64_t(*count) > (*buffer)->getBufferSize())
    return llvm::createStringError(
        "%s: tensor '%s' claims %lld elements but the file has %zu bytes",
        path.c_str(), proto.name().c_str(), static_cast<long long>(*count),
        (*buffer)->getBufferSize());
  result.tensor = Tensor(*dtype, std::move(shape));
  if (llvm::Error error = fillFromTypedField(proto, result.tensor, path))
    return std::move(error);
  return result;
}

llvm::Error writeTensorProto(const std::string &path,
                             const NamedTensor &value) {
  onnx::TensorProto proto;
  proto.set_name(value.name);
  proto.set_data_type(dtypeToOnnx(value.tensor.dtype()));
  for (int64_t dim : value.tensor.shape())
    proto.add_dims(dim);
  std::vector<char> bytes = value.tensor.toBytes();
  proto.set_raw_data(std::string(bytes.begin(), bytes.end()));
  std::error_code error;
  llvm::raw_fd_ostream os(path, error, llvm::sys::fs::OF_None);
  if (error)
    return llvm::createStringError(error, "cannot write %s: %s", path.c_str(),
                                   error.message().c_str());
  std::string serialized;
  if (!proto.SerializeToString(&serialized))
    return llvm::createStringError("cannot serialise tensor '%s'",
                                   value.name.c_str());
  os << serialized;
  return llvm::Error::success();
}

} // namespace kiln::eval
