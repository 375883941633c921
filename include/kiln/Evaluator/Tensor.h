// A host tensor for kiln's CPU evaluator: a dtype, a shape and element values
// held in a wide form (double for floats, int64 for integers and bool) that is
// rounded or wrapped to the dtype whenever a value is stored.
#ifndef KILN_EVALUATOR_TENSOR_H
#define KILN_EVALUATOR_TENSOR_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kiln::eval {

enum class DType : uint8_t {
  Bool,
  I8,
  I16,
  I32,
  I64,
  U8,
  U16,
  U32,
  U64,
  F16,
  BF16,
  F32,
  F64
};

bool isFloat(DType dtype);
bool isUnsigned(DType dtype);
/// Bytes per element in memory (bool is one byte).
size_t byteWidth(DType dtype);
/// ONNX-style name: float32, float16, bfloat16, double, int64, uint8, bool, ...
const char *dtypeName(DType dtype);

std::optional<DType> dtypeFromMlir(mlir::Type type);
mlir::Type dtypeToMlir(DType dtype, mlir::MLIRContext *context);
/// From/to onnx::TensorProto::DataType values.
std::optional<DType> dtypeFromOnnx(int32_t onnxType);
int32_t dtypeToOnnx(DType dtype);

class Tensor {
public:
  Tensor() = default;
  /// A zero-filled tensor.
  Tensor(DType dtype, std::vector<int64_t> shape);
  /// A tensor holding |values| (row-major), each rounded or wrapped to the
  /// dtype as by setDouble / setInt. The count must match the shape.
  static Tensor fromDoubles(DType dtype, std::vector<int64_t> shape,
                            llvm::ArrayRef<double> values);
  static Tensor fromInts(DType dtype, std::vector<int64_t> shape,
                         llvm::ArrayRef<int64_t> values);

  DType dtype() const { return dtype_; }
  llvm::ArrayRef<int64_t> shape() const { return shape_; }
  int64_t rank() const { return static_cast<int64_t>(shape_.size()); }
  int64_t numElements() const { return numElements_; }
  bool isFloat() const { return eval::isFloat(dtype_); }

  /// Element |index| (row-major) as a double, whatever the dtype.
  double getDouble(int64_t index) const {
    if (isFloat())
      return floats_[index];
    if (dtype_ == DType::U64)
      return static_cast<double>(static_cast<uint64_t>(ints_[index]));
    return static_cast<double>(ints_[index]);
  }
  /// Element |index| as an integer (floats truncate toward zero and saturate
  /// to int64, NaN gives 0; u64 values are their bit pattern).
  int64_t getInt(int64_t index) const;
  /// Stores |value| rounded to the dtype (integers: truncated, then wrapped).
  void setDouble(int64_t index, double value);
  /// Stores |value| converted to the dtype (wrapped for narrow integers).
  void setInt(int64_t index, int64_t value);

  /// Raw storage; floats_ is used for float dtypes, ints_ for the others.
  std::vector<double> &floats() { return floats_; }
  const std::vector<double> &floats() const { return floats_; }
  std::vector<int64_t> &ints() { return ints_; }
  const std::vector<int64_t> &ints() const { return ints_; }

  /// Row-major strides of the shape, in elements.
  std::vector<int64_t> strides() const;
  /// "float32[2x3]".
  std::string describe() const;

  /// Little-endian bytes in the dtype's memory layout.
  std::vector<char> toBytes() const;
  static llvm::Expected<Tensor> fromBytes(DType dtype,
                                          std::vector<int64_t> shape,
                                          llvm::ArrayRef<char> bytes);

private:
  DType dtype_ = DType::F32;
  std::vector<int64_t> shape_;
  int64_t numElements_ = 0;
  std::vector<double> floats_;
  std::vector<int64_t> ints_;
};

/// Converts a dense or dense_resource attribute into a tensor.
llvm::Expected<Tensor> tensorFromAttr(mlir::ElementsAttr attr);
/// Converts a tensor into a dense attribute of |type| (static shape, same
/// dtype).
mlir::DenseElementsAttr tensorToAttr(const Tensor &tensor,
                                     mlir::RankedTensorType type);

} // namespace kiln::eval

#endif // KILN_EVALUATOR_TENSOR_H
