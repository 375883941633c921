// Where the attention kernels read q/k/v and write their output: a kernel
// input or output seen through the views, transposes and slices fused into
// the kernel (attentionOperandLayout and attentionOutputLayout,
// KernelConfiguration.h), as an offset per batch index and a row stride:
// numbers, or with run-time extents (issue 18) expressions over the kernel's
// dim parameters.
#include "AttentionTemplates.h"

using namespace mlir;

namespace kiln::cuda {

std::string layoutText(const ElementalEmitter &emitter, const DimExpr &term) {
  if (std::optional<int64_t> value = term.getConstant())
    return std::to_string(*value);
  return emitter.extentText(term);
}

std::string
BatchedOperands::stridedMatrixOffset(Value operand,
                                     const StridedLayout &layout) const {
  Extents shape = emitter.extentsOf(operand);
  int64_t rank = shape.size();
  SmallVector<std::string, 4> dims =
      emitter.dimsOf(indexOf(operand, Extent(shape, rank - 2),
                             Extent(shape, rank - 1), "0", "0"),
                     shape);
  std::string offset = layout.offset != DimExpr()
                           ? layoutText(emitter, layout.offset)
                           : std::string();
  for (int64_t dim = 0; dim + 2 < rank; ++dim) {
    if (layout.strides[dim] == DimExpr() || dims[dim] == "0")
      continue;
    std::string term = "(kiln_index_t)(" + dims[dim] + ") * " +
                       layoutText(emitter, layout.strides[dim]);
    offset = offset.empty() ? term : offset + " + " + term;
  }
  return offset.empty() ? "0" : offset;
}

std::string Extent::plus(int64_t offset) const {
  if (isStatic())
    return std::to_string(size + offset);
  return "(" + text + (offset < 0 ? " - " : " + ") +
         std::to_string(offset < 0 ? -offset : offset) + ")";
}

std::string Extent::times(int64_t factor) const {
  if (isStatic())
    return std::to_string(size * factor);
  return factor == 1 ? text : text + " * " + std::to_string(factor);
}

std::string Extent::ceilDiv(int64_t divisor) const {
  if (isStatic())
    return std::to_string((size + divisor - 1) / divisor);
  return "((" + text + " + " + std::to_string(divisor - 1) + ") / " +
         std::to_string(divisor) + ")";
}

Extent productOf(const Extents &extents) {
  int64_t count = elementCount(extents.sizes);
  if (!ShapedType::isDynamic(count))
    return Extent(count);
  int64_t factor = 1;
  std::string text;
  for (size_t d = 0; d < extents.size(); ++d) {
    if (extents[d] == 1)
      continue;
    if (!ShapedType::isDynamic(extents[d])) {
      factor *= extents[d];
      continue;
    }
    text += (text.empty() ? "" : " * ") + extents.texts[d];
  }
  Extent product(ShapedType::kDynamic);
  product.text =
      "(" + text + (factor == 1 ? "" : " * " + std::to_string(factor)) + ")";
  return product;
}

} // namespace kiln::cuda
