// Located error messages, checked allocation and broadcasting for the
// evaluator's op families.
#include "EvaluatorSupport.h"

#include "kiln/Dialect/Kiln/IR/Locations.h"
#include "kiln/Dialect/Kiln/IR/ShapeUtils.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/Support/raw_ostream.h"

namespace kiln::eval {
namespace {

/// The evaluator keeps elements in 8-byte wide form; refuse results that
/// would need more than 4 GiB rather than exhaust the host.
constexpr int64_t kMaxElements = int64_t(1) << 29;

} // namespace

std::string describeOp(mlir::Operation *op) {
  return op->getName().getStringRef().str() + " at " +
         describeLocation(op->getLoc());
}

llvm::Error opError(mlir::Operation *op, const llvm::Twine &message) {
  return llvm::createStringError(describeOp(op) + ": " + message.str());
}

std::string formatShape(llvm::ArrayRef<int64_t> shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

llvm::Expected<Tensor> makeTensor(mlir::Operation *op, DType dtype,
                                  llvm::ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t dim : shape) {
    if (dim < 0)
      return opError(op, "result shape " + formatShape(shape) +
                             " has a negative dimension");
    if (dim != 0 && count > kMaxElements / dim)
      return opError(op, "result shape " + formatShape(shape) +
                             " is too large for the CPU evaluator");
    count *= dim;
  }
  return Tensor(dtype, std::vector<int64_t>(shape.begin(), shape.end()));
}

llvm::Expected<std::vector<int64_t>>
broadcastRuntimeShapes(mlir::Operation *op,
                       llvm::ArrayRef<llvm::ArrayRef<int64_t>> shapes) {
  llvm::SmallVector<int64_t> result;
  for (llvm::ArrayRef<int64_t> shape : shapes) {
    std::optional<llvm::SmallVector<int64_t>> next =
        broadcastShapes(result, shape);
    if (!next) {
      std::string list;
      for (size_t i = 0; i < shapes.size(); ++i)
        list += (i ? " and " : "") + formatShape(shapes[i]);
      return opError(op, "operand shapes " + list + " do not broadcast");
    }
    result = std::move(*next);
  }
  return std::vector<int64_t>(result.begin(), result.end());
}

BroadcastIterator::BroadcastIterator(
    llvm::ArrayRef<int64_t> resultShape,
    llvm::ArrayRef<llvm::ArrayRef<int64_t>> operandShapes)
    : resultShape_(resultShape.begin(), resultShape.end()),
      counter_(resultShape.size(), 0), offsets_(operandShapes.size(), 0) {
  size_t rank = resultShape.size();
  for (llvm::ArrayRef<int64_t> shape : operandShapes) {
    std::vector<int64_t> strides(rank, 0);
    int64_t stride = 1;
    for (size_t i = 0; i < shape.size(); ++i) {
      size_t dim = shape.size() - 1 - i;
      size_t resultDim = rank - 1 - i;
      strides[resultDim] = shape[dim] == 1 ? 0 : stride;
      stride *= shape[dim];
    }
    strides_.push_back(std::move(strides));
  }
}

void BroadcastIterator::next() {
  for (int64_t dim = static_cast<int64_t>(resultShape_.size()) - 1; dim >= 0;
       --dim) {
    if (++counter_[dim] < resultShape_[dim]) {
      for (size_t operand = 0; operand < offsets_.size(); ++operand)
        offsets_[operand] += strides_[operand][dim];
      return;
    }
    counter_[dim] = 0;
    for (size_t operand = 0; operand < offsets_.size(); ++operand)
      offsets_[operand] -= strides_[operand][dim] * (resultShape_[dim] - 1);
  }
}

llvm::Expected<int64_t> normalizeAxisOrError(mlir::Operation *op, int64_t axis,
                                             int64_t rank,
                                             llvm::StringRef what) {
  std::optional<int64_t> normalized = normalizeAxis(axis, rank);
  if (!normalized)
    return opError(op, what + " " + std::to_string(axis) +
                           " is out of range for rank " + std::to_string(rank));
  return *normalized;
}

llvm::Expected<std::vector<int64_t>> readIntegerList(mlir::Operation *op,
                                                     const Tensor &tensor,
                                                     llvm::StringRef what) {
  if (tensor.isFloat())
    return opError(op, what + " must be an integer tensor, got " +
                           tensor.describe());
  if (tensor.rank() > 1)
    return opError(op, what + " must be 1-D, got " + tensor.describe());
  return std::vector<int64_t>(tensor.ints().begin(), tensor.ints().end());
}

llvm::Expected<std::vector<Tensor>>
singleResult(llvm::Expected<Tensor> result) {
  if (!result)
    return result.takeError();
  std::vector<Tensor> results;
  results.push_back(std::move(*result));
  return results;
}

} // namespace kiln::eval
