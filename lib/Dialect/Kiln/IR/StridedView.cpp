// Strided layouts of views, transposes and slices (StridedView.h).
#include "kiln/Dialect/Kiln/IR/StridedView.h"

#include "kiln/Dialect/Kiln/IR/DimRanges.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/IR/ShapeUtils.h"

#include <algorithm>

using namespace mlir;

namespace kiln {
namespace {
using ExprVector = SmallVector<DimExpr, 4>;

bool isOne(const DimExpr &extent) { return extent.getConstant() == 1; }

/// Size-1 dims get stride 0, so that their stride never matters.
void zeroUnitStrides(ArrayRef<DimExpr> shape, MutableArrayRef<DimExpr> strides) {
  for (auto [size, stride] : llvm::zip(shape, strides))
    if (isOne(size))
      stride = DimExpr();
}

/// Whether a group of view dims whose product is |viewCount| still falls
/// short of the tensor dims' |tensorCount|: a comparison of the values when
/// both are constants; otherwise while they differ (the group must end
/// equal, which the caller checks).
bool fallsShort(const DimExpr &viewCount, const DimExpr &tensorCount) {
  std::optional<int64_t> view = viewCount.getConstant(),
                         tensor = tensorCount.getConstant();
  if (view && tensor)
    return *view < *tensor;
  return viewCount != tensorCount;
}

/// The strides of |newShape| viewing the elements of |oldShape| laid out with
/// |oldStrides| in row-major order (a reshape); std::nullopt when a merged
/// group of dims is not contiguous (PyTorch's view rule).
std::optional<ExprVector> reshapeStrides(ArrayRef<DimExpr> oldShape,
                                         ArrayRef<DimExpr> oldStrides,
                                         ArrayRef<DimExpr> newShape) {
  ExprVector shape, strides;
  for (auto [size, stride] : llvm::zip(oldShape, oldStrides))
    if (!isOne(size)) {
      shape.push_back(size);
      strides.push_back(stride);
    }
  ExprVector result(newShape.size(), DimExpr());
  int64_t viewDim = int64_t(newShape.size()) - 1;
  if (!shape.empty()) {
    DimExpr chunkStride = strides.back(), tensorCount = DimExpr::constant(1),
            viewCount = DimExpr::constant(1);
    for (int64_t dim = int64_t(shape.size()) - 1; dim >= 0; --dim) {
      std::optional<DimExpr> grown = tensorCount * shape[dim];
      if (!grown)
        return std::nullopt;
      tensorCount = *grown;
      if (dim > 0) {
        std::optional<DimExpr> contiguous = tensorCount * chunkStride;
        if (contiguous && strides[dim - 1] == *contiguous)
          continue; // Dim - 1 continues this contiguous chunk.
      }
      while (viewDim >= 0 && (fallsShort(viewCount, tensorCount) ||
                              isOne(newShape[viewDim]))) {
        std::optional<DimExpr> stride = viewCount * chunkStride;
        std::optional<DimExpr> count = viewCount * newShape[viewDim];
        if (!stride || !count)
          return std::nullopt;
        result[viewDim--] = *stride;
        viewCount = *count;
      }
      if (viewCount != tensorCount)
        return std::nullopt;
      if (dim > 0) {
        chunkStride = strides[dim - 1];
        tensorCount = viewCount = DimExpr::constant(1);
      }
    }
  }
  for (; viewDim >= 0; --viewDim)
    if (!isOne(newShape[viewDim]))
      return std::nullopt;
  zeroUnitStrides(newShape, result);
  return result;
}

/// The first element and step of a constant slice along each dim (clamped
/// as the evaluator does); std::nullopt when an operand is not constant or
/// a sliced dim is a run-time extent.
std::optional<std::pair<SmallVector<int64_t, 4>, SmallVector<int64_t, 4>>>
sliceBeginsAndSteps(SliceOp slice, ArrayRef<DimExpr> shape) {
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
    std::optional<int64_t> dim = shape[*axis].getConstant();
    if (!dim)
      return std::nullopt;
    int64_t start = (*starts)[i];
    if (start < 0)
      start += *dim;
    begin[*axis] = (*steps)[i] > 0 ? std::clamp<int64_t>(start, 0, *dim)
                                   : std::clamp<int64_t>(start, 0, *dim - 1);
    step[*axis] = (*steps)[i];
  }
  return std::make_pair(begin, step);
}

} // namespace

std::optional<ExprVector> stridedExtentsOf(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type)
    return std::nullopt;
  ExprVector extents;
  if (type.hasStaticShape()) {
    if (type.getNumElements() == 0)
      return std::nullopt;
    for (int64_t size : type.getShape())
      extents.push_back(DimExpr::constant(size));
    return extents;
  }
  // A kernel body's argument has the extents of the kernel's operand.
  Value outside = value;
  if (auto argument = dyn_cast<BlockArgument>(value))
    if (auto kernel =
            dyn_cast_or_null<KernelOp>(argument.getOwner()->getParentOp()))
      outside = kernel->getOperand(argument.getArgNumber());
  std::vector<std::optional<DimExpr>> recorded = getRecordedExtents(outside);
  if (int64_t(recorded.size()) != type.getRank())
    return std::nullopt;
  for (int64_t d = 0; d < type.getRank(); ++d) {
    if (!type.isDynamicDim(d))
      extents.push_back(DimExpr::constant(type.getDimSize(d)));
    else if (recorded[d])
      extents.push_back(*recorded[d]);
    else
      return std::nullopt;
  }
  return extents;
}

std::optional<ExprVector> contiguousStrides(ArrayRef<DimExpr> shape) {
  ExprVector strides(shape.size(), DimExpr());
  DimExpr stride = DimExpr::constant(1);
  for (int64_t dim = int64_t(shape.size()) - 1; dim >= 0; --dim) {
    if (!isOne(shape[dim]))
      strides[dim] = stride;
    std::optional<DimExpr> next = stride * shape[dim];
    if (!next)
      return std::nullopt;
    stride = *next;
  }
  return strides;
}

bool isStridedViewOp(Operation *op) {
  if (!isa<TransposeOp, ReshapeOp, FlattenOp, SqueezeOp, UnsqueezeOp, SliceOp>(
          op) ||
      op->getNumResults() != 1 || op->getNumOperands() < 1 ||
      !stridedExtentsOf(op->getResult(0)))
    return false;
  std::optional<ExprVector> input = stridedExtentsOf(op->getOperand(0));
  if (!input)
    return false;
  if (auto slice = dyn_cast<SliceOp>(op))
    return sliceBeginsAndSteps(slice, *input).has_value();
  return true;
}

namespace {
/// traceStridedRead with each dim's stride one expression (run-time extents
/// included): a reshape must keep every merged group contiguous.
std::optional<StridedLayout>
traceExpressionStrides(Value value, function_ref<bool(Operation *)> follow) {
  std::optional<ExprVector> shape = stridedExtentsOf(value);
  if (!shape)
    return std::nullopt;
  Operation *op = value.getDefiningOp();
  if (!op || !isStridedViewOp(op) || !follow(op)) {
    std::optional<ExprVector> strides = contiguousStrides(*shape);
    if (!strides)
      return std::nullopt;
    return StridedLayout{value, DimExpr(), *strides};
  }
  Value input = op->getOperand(0);
  std::optional<StridedLayout> layout = traceExpressionStrides(input, follow);
  if (!layout)
    return std::nullopt;
  ExprVector inShape = *stridedExtentsOf(input);
  if (auto transpose = dyn_cast<TransposeOp>(op)) {
    ExprVector strides;
    for (int64_t axis : transpose.getPerm())
      strides.push_back(layout->strides[axis]);
    layout->strides = strides;
  } else if (auto slice = dyn_cast<SliceOp>(op)) {
    auto [begin, step] = *sliceBeginsAndSteps(slice, inShape);
    for (size_t dim = 0; dim < inShape.size(); ++dim) {
      std::optional<DimExpr> first =
          layout->strides[dim] * DimExpr::constant(begin[dim]);
      std::optional<DimExpr> offset =
          first ? layout->offset + *first : std::nullopt;
      std::optional<DimExpr> stride =
          layout->strides[dim] * DimExpr::constant(step[dim]);
      if (!offset || !stride)
        return std::nullopt;
      layout->offset = *offset;
      layout->strides[dim] = *stride;
    }
  } else {
    std::optional<ExprVector> strides =
        reshapeStrides(inShape, layout->strides, *shape);
    if (!strides)
      return std::nullopt;
    layout->strides = *strides;
  }
  zeroUnitStrides(*shape, layout->strides);
  return layout;
}

/// |size| elements |stride| apart: one run of a static strided layout.
struct Atom {
  int64_t size, stride;
};
using AtomDims = SmallVector<SmallVector<Atom, 2>, 4>;

/// A static layout whose dims are each a list of runs, outermost first, so
/// that a dim a reshape merges need not be contiguous: it is still made of
/// runs, which a later reshape can split apart again.
struct AtomLayout {
  Value buffer;
  int64_t offset = 0;
  AtomDims dims;
};

/// The runs of |runs| without size-1 ones.
SmallVector<Atom, 2> withoutUnitRuns(ArrayRef<Atom> runs) {
  SmallVector<Atom, 2> kept;
  for (const Atom &atom : runs)
    if (atom.size != 1)
      kept.push_back(atom);
  return kept;
}

/// The one (size, stride) that |runs| form, when each run is the next one's
/// size times stride apart; stride 0 for a dim of size 1.
std::optional<Atom> mergeRuns(ArrayRef<Atom> runs) {
  SmallVector<Atom, 2> kept = withoutUnitRuns(runs);
  if (kept.empty())
    return Atom{1, 0};
  Atom merged = kept.back();
  for (const Atom &atom : llvm::reverse(ArrayRef<Atom>(kept).drop_back())) {
    if (atom.stride != merged.size * merged.stride)
      return std::nullopt;
    merged.size *= atom.size;
  }
  return merged;
}

/// |runs| (every dim's, in order) regrouped into dims of |shape|, splitting a
/// run where a dim ends inside it; std::nullopt when a dim would end between
/// two of a run's elements that are not a whole multiple apart.
std::optional<AtomDims> regroupRuns(ArrayRef<Atom> runs,
                                    ArrayRef<int64_t> shape) {
  SmallVector<Atom> queue(withoutUnitRuns(runs));
  size_t next = 0;
  AtomDims dims(shape.size());
  for (auto [dim, size] : llvm::enumerate(shape)) {
    int64_t remaining = size;
    while (remaining > 1) {
      if (next == queue.size())
        return std::nullopt;
      Atom &atom = queue[next];
      if (remaining % atom.size == 0) {
        dims[dim].push_back(atom);
        remaining /= atom.size;
        ++next;
      } else if (atom.size % remaining == 0) {
        int64_t inner = atom.size / remaining;
        dims[dim].push_back(Atom{remaining, atom.stride * inner});
        atom.size = inner;
        remaining = 1;
      } else {
        return std::nullopt;
      }
    }
  }
  if (next != queue.size())
    return std::nullopt;
  return dims;
}

/// traceStridedRead for static shapes with each dim a list of runs: a view
/// chain whose intermediate values merge dims that are not contiguous
/// (nn.MultiheadAttention's [s, b, e] -> [s, b*h, d] -> transpose ->
/// [b, h, s, d]) is accepted when the traced value's dims are each one run.
std::optional<AtomLayout>
traceStaticRuns(Value value, function_ref<bool(Operation *)> follow) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape() || type.getNumElements() == 0)
    return std::nullopt;
  ArrayRef<int64_t> shape = type.getShape();
  Operation *op = value.getDefiningOp();
  if (!op || !isStridedViewOp(op) || !follow(op)) {
    AtomLayout layout{value, 0, AtomDims(shape.size())};
    int64_t stride = 1;
    for (int64_t dim = int64_t(shape.size()) - 1; dim >= 0; --dim) {
      layout.dims[dim].push_back(Atom{shape[dim], stride});
      if (llvm::MulOverflow(stride, shape[dim], stride))
        return std::nullopt;
    }
    return layout;
  }
  Value input = op->getOperand(0);
  std::optional<AtomLayout> layout = traceStaticRuns(input, follow);
  if (!layout)
    return std::nullopt;
  if (auto transpose = dyn_cast<TransposeOp>(op)) {
    AtomDims dims;
    for (int64_t axis : transpose.getPerm())
      dims.push_back(layout->dims[axis]);
    layout->dims = std::move(dims);
  } else if (auto slice = dyn_cast<SliceOp>(op)) {
    ArrayRef<int64_t> inShape =
        cast<RankedTensorType>(input.getType()).getShape();
    ExprVector extents;
    for (int64_t size : inShape)
      extents.push_back(DimExpr::constant(size));
    auto [begin, step] = *sliceBeginsAndSteps(slice, extents);
    for (size_t dim = 0; dim < inShape.size(); ++dim) {
      if (begin[dim] == 0 && step[dim] == 1 && shape[dim] == inShape[dim])
        continue;
      std::optional<Atom> run = mergeRuns(layout->dims[dim]);
      if (!run)
        return std::nullopt;
      layout->offset += begin[dim] * run->stride;
      layout->dims[dim] = {Atom{shape[dim], run->stride * step[dim]}};
    }
  } else {
    SmallVector<Atom> runs;
    for (const auto &dim : layout->dims)
      llvm::append_range(runs, dim);
    std::optional<AtomDims> dims = regroupRuns(runs, shape);
    if (!dims)
      return std::nullopt;
    layout->dims = std::move(*dims);
  }
  return layout;
}
} // namespace

std::optional<StridedLayout>
traceStridedRead(Value value, function_ref<bool(Operation *)> follow) {
  if (std::optional<StridedLayout> layout =
          traceExpressionStrides(value, follow))
    return layout;
  // Static shapes: merged dims that a later view splits again.
  std::optional<AtomLayout> runs = traceStaticRuns(value, follow);
  if (!runs)
    return std::nullopt;
  StridedLayout layout{runs->buffer, DimExpr::constant(runs->offset), {}};
  for (const auto &dim : runs->dims) {
    std::optional<Atom> run = mergeRuns(dim);
    if (!run)
      return std::nullopt;
    layout.strides.push_back(DimExpr::constant(run->stride));
  }
  return layout;
}

std::optional<StridedLayout> traceStridedWrite(Value value,
                                               ArrayRef<Operation *> chain) {
  Value stored = chain.empty() ? value : chain.back()->getResult(0);
  std::optional<ExprVector> storedShape = stridedExtentsOf(stored);
  if (!storedShape)
    return std::nullopt;
  std::optional<ExprVector> strides = contiguousStrides(*storedShape);
  if (!strides)
    return std::nullopt;
  // From the stored value back to |value|: each op's input layout from its
  // result's.
  for (Operation *op : llvm::reverse(chain)) {
    if (isa<SliceOp>(op) || !isStridedViewOp(op))
      return std::nullopt;
    ExprVector inShape = *stridedExtentsOf(op->getOperand(0));
    ExprVector outShape = *stridedExtentsOf(op->getResult(0));
    if (auto transpose = dyn_cast<TransposeOp>(op)) {
      ExprVector inStrides(inShape.size(), DimExpr());
      for (auto [dim, axis] : llvm::enumerate(transpose.getPerm()))
        inStrides[axis] = (*strides)[dim];
      strides = inStrides;
    } else {
      strides = reshapeStrides(outShape, *strides, inShape);
      if (!strides)
        return std::nullopt;
    }
    zeroUnitStrides(inShape, *strides);
  }
  return StridedLayout{stored, DimExpr(), *strides};
}

bool hasAlignedRows(const StridedLayout &layout, int64_t alignment) {
  auto isMultiple = [&](const DimExpr &extent) {
    return divideExactly(extent, DimExpr::constant(alignment)).has_value();
  };
  if (layout.strides.empty() || layout.strides.back().getConstant() != 1 ||
      !isMultiple(layout.offset))
    return false;
  return llvm::all_of(ArrayRef<DimExpr>(layout.strides).drop_back(),
                      isMultiple);
}

} // namespace kiln
