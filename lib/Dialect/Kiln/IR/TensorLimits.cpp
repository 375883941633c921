// Tensor rank and size limits with checked element-count and byte arithmetic.
#include "kiln/Dialect/Kiln/IR/TensorLimits.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/CheckedArithmetic.h"

using namespace mlir;

namespace kiln {

namespace {
/// "4x?x5": a shape for messages.
std::string describeDims(ArrayRef<int64_t> shape) {
  std::string text;
  for (auto [i, dim] : llvm::enumerate(shape))
    text += (i ? "x" : "") + (ShapedType::isDynamic(dim) ? std::string("?")
                                                         : std::to_string(dim));
  return text;
}

/// Bytes per element of an integer or float type (i1 takes a byte).
std::optional<int64_t> elementBytes(Type element) {
  if (!element.isIntOrFloat())
    return std::nullopt;
  return (int64_t(element.getIntOrFloatBitWidth()) + 7) / 8;
}
} // namespace

LogicalResult checkRank(std::optional<Location> location,
                        std::optional<int64_t> rank) {
  if (rank && *rank > kMaxRank)
    return emitOptionalError(location, "a tensor of rank ", *rank,
                             " is beyond kiln's limit of rank ", kMaxRank);
  return success();
}

std::optional<int64_t> checkedElementCount(ArrayRef<int64_t> dims) {
  std::optional<int64_t> count = 1;
  for (int64_t dim : dims) {
    if (dim < 0) // Negative, or ShapedType::kDynamic.
      return std::nullopt;
    count = llvm::checkedMul(*count, dim);
    if (!count)
      return std::nullopt;
  }
  return count;
}

std::optional<int64_t> getStaticByteSize(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return std::nullopt;
  std::optional<int64_t> bytes = elementBytes(tensor.getElementType());
  std::optional<int64_t> count = checkedElementCount(tensor.getShape());
  if (!bytes || !count)
    return std::nullopt;
  return llvm::checkedMul(*count, *bytes);
}

std::optional<std::string> findTensorSizeProblem(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return std::nullopt;
  if (tensor.getRank() > kMaxRank)
    return "a tensor of rank " + std::to_string(tensor.getRank()) +
           " is beyond kiln's limit of rank " + std::to_string(kMaxRank);
  std::string shape = describeDims(tensor.getShape());
  llvm::SmallVector<int64_t> known;
  for (int64_t dim : tensor.getShape()) {
    if (ShapedType::isDynamic(dim))
      continue;
    if (dim < 0)
      return "a tensor of shape [" + shape + "] has a negative dimension";
    known.push_back(dim);
  }
  std::optional<int64_t> count = checkedElementCount(known);
  if (!count)
    return "a tensor of shape [" + shape + "] has more than 2^63 - 1 elements";
  std::optional<int64_t> bytes = elementBytes(tensor.getElementType());
  if (bytes && !llvm::checkedMul(*count, *bytes))
    return "a tensor of shape [" + shape + "] and " + std::to_string(*bytes) +
           "-byte elements has more than 2^63 - 1 bytes";
  return std::nullopt;
}

LogicalResult checkTensorSize(std::optional<Location> location, Type type) {
  if (std::optional<std::string> problem = findTensorSizeProblem(type))
    return emitOptionalError(location, *problem);
  return success();
}

} // namespace kiln
