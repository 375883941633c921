// Where the attention kernels read q/k/v and write their output: a kernel
// input or output seen through the views, transposes and slices fused into
// the kernel (attentionOperandLayout and attentionOutputLayout,
// KernelConfiguration.h), as an offset per batch index and a row stride.
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

} // namespace kiln::cuda
