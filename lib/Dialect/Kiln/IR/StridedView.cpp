// Strided layouts of views, transposes and slices (StridedView.h).
#include "kiln/Dialect/Kiln/IR/StridedView.h"

#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/IR/ShapeUtils.h"

#include <algorithm>

using namespace mlir;

namespace kiln {
namespace {

std::optional<SmallVector<int64_t, 4>> staticShape(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape() || type.getNumElements() == 0)
    return std::nullopt;
  return SmallVector<int64_t, 4>(type.getShape());
}

/// Size-1 dims get stride 0, so that their stride never matters.
void zeroUnitStrides(ArrayRef<int64_t> shape,
                     SmallVectorImpl<int64_t> &strides) {
  for (auto [size, stride] : llvm::zip(shape, strides))
    if (size == 1)
      stride = 0;
}

/// The strides of |newShape| viewing the elements of |oldShape| laid out with
/// |oldStrides| in row-major order (a reshape); std::nullopt when a merged
/// group of dims is not contiguous (PyTorch's view rule).
std::optional<SmallVector<int64_t, 4>>
reshapeStrides(ArrayRef<int64_t> oldShape, ArrayRef<int64_t> oldStrides,
               ArrayRef<int64_t> newShape) {
  SmallVector<int64_t, 4> shape, strides;
  for (auto [size, stride] : llvm::zip(oldShape, oldStrides))
    if (size != 1) {
      shape.push_back(size);
      strides.push_back(stride);
    }
  SmallVector<int64_t, 4> result(newShape.size(), 0);
  int64_t viewDim = int64_t(newShape.size()) - 1;
  if (!shape.empty()) {
    int64_t chunkStride = strides.back(), tensorCount = 1, viewCount = 1;
    for (int64_t dim = int64_t(shape.size()) - 1; dim >= 0; --dim) {
      tensorCount *= shape[dim];
      if (dim > 0 && strides[dim - 1] == tensorCount * chunkStride)
        continue; // Dim - 1 continues this contiguous chunk.
      while (viewDim >= 0 &&
             (viewCount < tensorCount || newShape[viewDim] == 1)) {
        result[viewDim] = viewCount * chunkStride;
        viewCount *= newShape[viewDim--];
      }
      if (viewCount != tensorCount)
        return std::nullopt;
      if (dim > 0) {
        chunkStride = strides[dim - 1];
        tensorCount = viewCount = 1;
      }
    }
  }
  for (; viewDim >= 0; --viewDim)
    if (newShape[viewDim] != 1)
      return std::nullopt;
  zeroUnitStrides(newShape, result);
  return result;
}

/// The first element and step of a constant slice along each dim (clamped
/// as the evaluator does); std::nullopt when an operand is not constant.
std::optional<std::pair<SmallVector<int64_t, 4>, SmallVector<int64_t, 4>>>
sliceBeginsAndSteps(SliceOp slice, ArrayRef<int64_t> shape) {
  auto starts = getConstantIntegers(slice.getStarts());
  auto axes = getConstantIntegers(slice.getAxes());
  auto steps = getConstantIntegers(slice.getSteps());
  if (!starts || !axes || !steps || !getConstantIntegers(slice.getEnds()))
    return std::nullopt;
  SmallVector<int64_t, 4> begin(shape.size(), 0), step(shape.size(), 1);
  for (size_t i = 0; i < axes->size(); ++i) {
    std::optional<int64_t> axis = normalizeAxis((*axes)[i], shape.size());
    if (!axis || i >= starts->size() || i >= steps->size() || (*steps)[i] == 0)
      return std::nullopt;
    int64_t dim = shape[*axis], start = (*starts)[i];
    if (start < 0)
      start += dim;
    begin[*axis] = (*steps)[i] > 0 ? std::clamp<int64_t>(start, 0, dim)
                                   : std::clamp<int64_t>(start, 0, dim - 1);
    step[*axis] = (*steps)[i];
  }
  return std::make_pair(begin, step);
}

} // namespace

SmallVector<int64_t, 4> contiguousStrides(ArrayRef<int64_t> shape) {
  SmallVector<int64_t, 4> strides(shape.size(), 0);
  int64_t stride = 1;
  for (int64_t dim = int64_t(shape.size()) - 1; dim >= 0; --dim) {
    strides[dim] = shape[dim] == 1 ? 0 : stride;
    stride *= shape[dim];
  }
  return strides;
}

bool isStridedViewOp(Operation *op) {
  if (!isa<TransposeOp, ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp, SliceOp>(
          op) ||
      op->getNumResults() != 1 || op->getNumOperands() < 1 ||
      !staticShape(op->getOperand(0)) || !staticShape(op->getResult(0)))
    return false;
  if (auto slice = dyn_cast<SliceOp>(op))
    return sliceBeginsAndSteps(slice, *staticShape(slice.getData()))
        .has_value();
  return true;
}

std::optional<StridedLayout>
traceStridedRead(Value value, function_ref<bool(Operation *)> follow) {
  std::optional<SmallVector<int64_t, 4>> shape = staticShape(value);
  if (!shape)
    return std::nullopt;
  Operation *op = value.getDefiningOp();
  if (!op || !isStridedViewOp(op) || !follow(op))
    return StridedLayout{value, 0, contiguousStrides(*shape)};
  Value input = op->getOperand(0);
  std::optional<StridedLayout> layout = traceStridedRead(input, follow);
  if (!layout)
    return std::nullopt;
  SmallVector<int64_t, 4> inShape = *staticShape(input);
  if (auto transpose = dyn_cast<TransposeOp>(op)) {
    SmallVector<int64_t, 4> strides;
    for (int64_t axis : transpose.getPerm())
      strides.push_back(layout->strides[axis]);
    layout->strides = strides;
  } else if (auto slice = dyn_cast<SliceOp>(op)) {
    auto [begin, step] = *sliceBeginsAndSteps(slice, inShape);
    for (size_t dim = 0; dim < inShape.size(); ++dim) {
      layout->offset += begin[dim] * layout->strides[dim];
      layout->strides[dim] *= step[dim];
    }
  } else {
    std::optional<SmallVector<int64_t, 4>> strides =
        reshapeStrides(inShape, layout->strides, *shape);
    if (!strides)
      return std::nullopt;
    layout->strides = *strides;
  }
  zeroUnitStrides(*shape, layout->strides);
  return layout;
}

std::optional<StridedLayout> traceStridedWrite(Value value,
                                               ArrayRef<Operation *> chain) {
  Value stored = chain.empty() ? value : chain.back()->getResult(0);
  std::optional<SmallVector<int64_t, 4>> storedShape = staticShape(stored);
  if (!storedShape)
    return std::nullopt;
  SmallVector<int64_t, 4> strides = contiguousStrides(*storedShape);
  // From the stored value back to |value|: each op's input layout from its
  // result's.
  for (Operation *op : llvm::reverse(chain)) {
    if (isa<SliceOp>(op) || !isStridedViewOp(op))
      return std::nullopt;
    SmallVector<int64_t, 4> inShape = *staticShape(op->getOperand(0));
    SmallVector<int64_t, 4> outShape = *staticShape(op->getResult(0));
    if (auto transpose = dyn_cast<TransposeOp>(op)) {
      SmallVector<int64_t, 4> inStrides(inShape.size(), 0);
      for (auto [dim, axis] : llvm::enumerate(transpose.getPerm()))
        inStrides[axis] = strides[dim];
      strides = inStrides;
    } else {
      std::optional<SmallVector<int64_t, 4>> inStrides =
          reshapeStrides(outShape, strides, inShape);
      if (!inStrides)
        return std::nullopt;
      strides = *inStrides;
    }
    zeroUnitStrides(inShape, strides);
  }
  return StridedLayout{stored, 0, strides};
}

bool hasAlignedRows(const StridedLayout &layout, int64_t alignment) {
  if (layout.strides.empty() || layout.strides.back() != 1 ||
      layout.offset % alignment != 0)
    return false;
  return llvm::all_of(ArrayRef<int64_t>(layout.strides).drop_back(),
                      [&](int64_t stride) { return stride % alignment == 0; });
}

} // namespace kiln
