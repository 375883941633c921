// Where the attention kernels read q/k/v and write their output: a kernel
// input or output seen through the views, transposes and slices fused into
// the kernel (StridedView.h), as an offset per batch index and a row stride.
#include "AttentionTemplates.h"

using namespace mlir;

namespace kiln::cuda {

std::string
BatchedOperands::stridedMatrixOffset(Value operand,
                                     const StridedLayout &layout) const {
  ArrayRef<int64_t> shape = shapeOf(operand);
  int64_t rank = shape.size();
  SmallVector<std::string, 4> dims = emitter.dimsOf(
      indexOf(operand, shape[rank - 2], shape[rank - 1], "0", "0"), shape);
  std::string offset =
      layout.offset ? std::to_string(layout.offset) : std::string();
  for (int64_t dim = 0; dim + 2 < rank; ++dim) {
    if (layout.strides[dim] == 0 || dims[dim] == "0")
      continue;
    std::string term = "(kiln_index_t)(" + dims[dim] + ") * " +
                       std::to_string(layout.strides[dim]);
    offset = offset.empty() ? term : offset + " + " + term;
  }
  return offset.empty() ? "0" : offset;
}

std::optional<StridedOperand> stridedOperand(ElementalEmitter &emitter,
                                             Value operand) {
  Block *body = &emitter.getKernel().getBody().front();
  std::optional<StridedLayout> layout = traceStridedRead(
      operand, [&](Operation *op) { return op->getBlock() == body; });
  if (!layout)
    return std::nullopt;
  std::optional<unsigned> input = inputNumber(emitter, layout->buffer);
  if (!input)
    return std::nullopt;
  return StridedOperand{*input, *layout};
}

std::optional<StridedLayout> attentionOutputLayout(ElementalEmitter &emitter,
                                                   AttentionOp attention) {
  ValueRange yielded = emitter.getKernel().getYield().getValues();
  if (yielded.size() != 1)
    return std::nullopt;
  SmallVector<Operation *, 4> chain;
  Value value = attention.getResult();
  while (value != yielded[0]) {
    if (!value.hasOneUse())
      return std::nullopt;
    Operation *user = *value.getUsers().begin();
    if (isa<SliceOp>(user) || !isStridedViewOp(user))
      return std::nullopt;
    chain.push_back(user);
    value = user->getResult(0);
  }
  return traceStridedWrite(attention.getResult(), chain);
}

bool hasAlignedRows(const StridedLayout &layout, int64_t alignment) {
  if (layout.strides.empty() || layout.strides.back() != 1 ||
      layout.offset % alignment != 0)
    return false;
  return llvm::all_of(ArrayRef<int64_t>(layout.strides).drop_back(),
                      [&](int64_t stride) { return stride % alignment == 0; });
}

} // namespace kiln::cuda
