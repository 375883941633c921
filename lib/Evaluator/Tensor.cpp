// The evaluator's host tensor: dtype mapping (MLIR, ONNX), element storage and
// conversion to and from the little-endian memory layout.
#include "kiln/Evaluator/Tensor.h"

#include "kiln/Evaluator/ScalarSemantics.h"
#include "kiln/Evaluator/TensorIO.h"

#include "mlir/IR/Builders.h"
#include "llvm/Support/CheckedArithmetic.h"

#include "onnx/onnx_pb.h"

#include <cstring>
#include <sstream>

namespace kiln::eval {

bool isFloat(DType dtype) {
  return dtype == DType::F16 || dtype == DType::BF16 || dtype == DType::F32 ||
         dtype == DType::F64;
}

bool isUnsigned(DType dtype) {
  return dtype == DType::U8 || dtype == DType::U16 || dtype == DType::U32 ||
         dtype == DType::U64;
}

size_t byteWidth(DType dtype) {
  switch (dtype) {
  case DType::Bool:
  case DType::I8:
  case DType::U8:
    return 1;
  case DType::I16:
  case DType::U16:
  case DType::F16:
  case DType::BF16:
    return 2;
  case DType::I32:
  case DType::U32:
  case DType::F32:
    return 4;
  case DType::I64:
  case DType::U64:
  case DType::F64:
    return 8;
  }
  return 0;
}

const char *dtypeName(DType dtype) {
  switch (dtype) {
  case DType::Bool:
    return "bool";
  case DType::I8:
    return "int8";
  case DType::I16:
    return "int16";
  case DType::I32:
    return "int32";
  case DType::I64:
    return "int64";
  case DType::U8:
    return "uint8";
  case DType::U16:
    return "uint16";
  case DType::U32:
    return "uint32";
  case DType::U64:
    return "uint64";
  case DType::F16:
    return "float16";
  case DType::BF16:
    return "bfloat16";
  case DType::F32:
    return "float32";
  case DType::F64:
    return "double";
  }
  return "unknown";
}

std::optional<DType> dtypeFromMlir(mlir::Type type) {
  if (type.isF16())
    return DType::F16;
  if (type.isBF16())
    return DType::BF16;
  if (type.isF32())
    return DType::F32;
  if (type.isF64())
    return DType::F64;
  auto integer = mlir::dyn_cast<mlir::IntegerType>(type);
  if (!integer || integer.isSigned())
    return std::nullopt;
  bool isUnsignedType = integer.isUnsigned();
  switch (integer.getWidth()) {
  case 1:
    return isUnsignedType ? std::nullopt : std::optional(DType::Bool);
  case 8:
    return isUnsignedType ? DType::U8 : DType::I8;
  case 16:
    return isUnsignedType ? DType::U16 : DType::I16;
  case 32:
    return isUnsignedType ? DType::U32 : DType::I32;
  case 64:
    return isUnsignedType ? DType::U64 : DType::I64;
  default:
    return std::nullopt;
  }
}

mlir::Type dtypeToMlir(DType dtype, mlir::MLIRContext *context) {
  mlir::Builder builder(context);
  auto unsignedType = [&](unsigned width) {
    return mlir::IntegerType::get(context, width, mlir::IntegerType::Unsigned);
  };
  switch (dtype) {
  case DType::Bool:
    return builder.getI1Type();
  case DType::I8:
    return builder.getI8Type();
  case DType::I16:
    return builder.getI16Type();
  case DType::I32:
    return builder.getI32Type();
  case DType::I64:
    return builder.getI64Type();
  case DType::U8:
    return unsignedType(8);
  case DType::U16:
    return unsignedType(16);
  case DType::U32:
    return unsignedType(32);
  case DType::U64:
    return unsignedType(64);
  case DType::F16:
    return builder.getF16Type();
  case DType::BF16:
    return builder.getBF16Type();
  case DType::F32:
    return builder.getF32Type();
  case DType::F64:
    return builder.getF64Type();
  }
  return {};
}

std::optional<DType> dtypeFromOnnx(int32_t onnxType) {
  using P = onnx::TensorProto;
  switch (onnxType) {
  case P::BOOL:
    return DType::Bool;
  case P::INT8:
    return DType::I8;
  case P::INT16:
    return DType::I16;
  case P::INT32:
    return DType::I32;
  case P::INT64:
    return DType::I64;
  case P::UINT8:
    return DType::U8;
  case P::UINT16:
    return DType::U16;
  case P::UINT32:
    return DType::U32;
  case P::UINT64:
    return DType::U64;
  case P::FLOAT16:
    return DType::F16;
  case P::BFLOAT16:
    return DType::BF16;
  case P::FLOAT:
    return DType::F32;
  case P::DOUBLE:
    return DType::F64;
  default:
    return std::nullopt;
  }
}

int32_t dtypeToOnnx(DType dtype) {
  using P = onnx::TensorProto;
  switch (dtype) {
  case DType::Bool:
    return P::BOOL;
  case DType::I8:
    return P::INT8;
  case DType::I16:
    return P::INT16;
  case DType::I32:
    return P::INT32;
  case DType::I64:
    return P::INT64;
  case DType::U8:
    return P::UINT8;
  case DType::U16:
    return P::UINT16;
  case DType::U32:
    return P::UINT32;
  case DType::U64:
    return P::UINT64;
  case DType::F16:
    return P::FLOAT16;
  case DType::BF16:
    return P::BFLOAT16;
  case DType::F32:
    return P::FLOAT;
  case DType::F64:
    return P::DOUBLE;
  }
  return P::UNDEFINED;
}

Tensor::Tensor(DType dtype, std::vector<int64_t> shape)
    : dtype_(dtype), shape_(std::move(shape)) {
  numElements_ = 1;
  for (int64_t dim : shape_)
    numElements_ *= dim;
  if (eval::isFloat(dtype_))
    floats_.assign(numElements_, 0.0);
  else
    ints_.assign(numElements_, 0);
}

Tensor Tensor::fromDoubles(DType dtype, std::vector<int64_t> shape,
                           llvm::ArrayRef<double> values) {
  Tensor tensor(dtype, std::move(shape));
  for (int64_t i = 0,
               e = std::min<int64_t>(values.size(), tensor.numElements());
       i < e; ++i)
    tensor.setDouble(i, values[i]);
  return tensor;
}

Tensor Tensor::fromInts(DType dtype, std::vector<int64_t> shape,
                        llvm::ArrayRef<int64_t> values) {
  Tensor tensor(dtype, std::move(shape));
  for (int64_t i = 0,
               e = std::min<int64_t>(values.size(), tensor.numElements());
       i < e; ++i)
    tensor.setInt(i, values[i]);
  return tensor;
}

int64_t Tensor::getInt(int64_t index) const {
  if (isFloat())
    return castFloatToInt(floats_[index], DType::I64);
  return ints_[index];
}

void Tensor::setDouble(int64_t index, double value) {
  if (isFloat())
    floats_[index] = roundToFloatDType(value, dtype_);
  else if (dtype_ == DType::Bool)
    ints_[index] = value != 0.0;
  else
    ints_[index] = wrapToIntDType(
        castFloatToInt(value, dtype_ == DType::U64 ? DType::U64 : DType::I64),
        dtype_);
}

void Tensor::setInt(int64_t index, int64_t value) {
  if (isFloat())
    floats_[index] = castIntToFloat(value, DType::I64, dtype_);
  else
    ints_[index] = wrapToIntDType(value, dtype_);
}

std::vector<int64_t> Tensor::strides() const {
  std::vector<int64_t> result(shape_.size(), 1);
  for (int64_t i = rank() - 2; i >= 0; --i)
    result[i] = result[i + 1] * shape_[i + 1];
  return result;
}

namespace {
/// "float32[2x3]".
std::string describeTensorType(DType dtype, llvm::ArrayRef<int64_t> shape) {
  std::ostringstream os;
  os << dtypeName(dtype) << '[';
  for (size_t i = 0; i < shape.size(); ++i)
    os << (i ? "x" : "") << shape[i];
  os << ']';
  return os.str();
}
} // namespace

std::string Tensor::describe() const {
  return describeTensorType(dtype_, shape_);
}

namespace {
template <typename T> void storeAt(std::vector<char> &bytes, int64_t i, T v) {
  std::memcpy(bytes.data() + i * sizeof(T), &v, sizeof(T));
}
template <typename T> T loadAt(llvm::ArrayRef<char> bytes, int64_t i) {
  T v;
  std::memcpy(&v, bytes.data() + i * sizeof(T), sizeof(T));
  return v;
}
} // namespace

std::vector<char> Tensor::toBytes() const {
  std::vector<char> bytes(numElements_ * byteWidth(dtype_));
  for (int64_t i = 0; i < numElements_; ++i) {
    switch (dtype_) {
    case DType::Bool:
    case DType::I8:
    case DType::U8:
      storeAt<uint8_t>(bytes, i, static_cast<uint8_t>(ints_[i]));
      break;
    case DType::I16:
    case DType::U16:
      storeAt<uint16_t>(bytes, i, static_cast<uint16_t>(ints_[i]));
      break;
    case DType::I32:
    case DType::U32:
      storeAt<uint32_t>(bytes, i, static_cast<uint32_t>(ints_[i]));
      break;
    case DType::I64:
    case DType::U64:
      storeAt<int64_t>(bytes, i, ints_[i]);
      break;
    case DType::F16:
      storeAt<uint16_t>(bytes, i, doubleToHalfBits(floats_[i]));
      break;
    case DType::BF16:
      storeAt<uint16_t>(bytes, i, doubleToBFloat16Bits(floats_[i]));
      break;
    case DType::F32:
      storeAt<float>(bytes, i, static_cast<float>(floats_[i]));
      break;
    case DType::F64:
      storeAt<double>(bytes, i, floats_[i]);
      break;
    }
  }
  return bytes;
}

llvm::Expected<int64_t>
checkedTensorElementCount(DType dtype, llvm::ArrayRef<int64_t> shape) {
  std::string text = describeTensorType(dtype, shape);
  std::optional<int64_t> count = 1;
  for (int64_t dim : shape) {
    if (dim < 0)
      return llvm::createStringError("negative dimension %lld in %s",
                                     static_cast<long long>(dim), text.c_str());
    count = llvm::checkedMul(*count, dim);
    if (!count)
      return llvm::createStringError("%s has more than 2^63 - 1 elements",
                                     text.c_str());
  }
  if (!llvm::checkedMul(*count, int64_t(byteWidth(dtype))))
    return llvm::createStringError("%s has more than 2^63 - 1 bytes",
                                   text.c_str());
  return *count;
}

llvm::Expected<Tensor> Tensor::fromBytes(DType dtype,
                                         std::vector<int64_t> shape,
                                         llvm::ArrayRef<char> bytes) {
  // Check the byte count before allocating: a 16-byte file may claim 2^31
  // elements.
  llvm::Expected<int64_t> count = checkedTensorElementCount(dtype, shape);
  if (!count)
    return count.takeError();
  uint64_t expected = uint64_t(*count) * byteWidth(dtype);
  if (bytes.size() != expected)
    return llvm::createStringError("%s needs %llu bytes of data, got %zu",
                                   describeTensorType(dtype, shape).c_str(),
                                   static_cast<unsigned long long>(expected),
                                   bytes.size());
  Tensor tensor(dtype, std::move(shape));
  for (int64_t i = 0; i < tensor.numElements(); ++i) {
    switch (dtype) {
    case DType::Bool:
      tensor.ints_[i] = loadAt<uint8_t>(bytes, i) != 0;
      break;
    case DType::I8:
      tensor.ints_[i] = loadAt<int8_t>(bytes, i);
      break;
    case DType::U8:
      tensor.ints_[i] = loadAt<uint8_t>(bytes, i);
      break;
    case DType::I16:
      tensor.ints_[i] = loadAt<int16_t>(bytes, i);
      break;
    case DType::U16:
      tensor.ints_[i] = loadAt<uint16_t>(bytes, i);
      break;
    case DType::I32:
      tensor.ints_[i] = loadAt<int32_t>(bytes, i);
      break;
    case DType::U32:
      tensor.ints_[i] = loadAt<uint32_t>(bytes, i);
      break;
    case DType::I64:
    case DType::U64:
      tensor.ints_[i] = loadAt<int64_t>(bytes, i);
      break;
    case DType::F16:
      tensor.floats_[i] = halfBitsToDouble(loadAt<uint16_t>(bytes, i));
      break;
    case DType::BF16:
      tensor.floats_[i] = bfloat16BitsToDouble(loadAt<uint16_t>(bytes, i));
      break;
    case DType::F32:
      tensor.floats_[i] = loadAt<float>(bytes, i);
      break;
    case DType::F64:
      tensor.floats_[i] = loadAt<double>(bytes, i);
      break;
    }
  }
  return tensor;
}

} // namespace kiln::eval
