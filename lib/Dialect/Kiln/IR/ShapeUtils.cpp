// Shape arithmetic shared by type inference, folding and the evaluator.
#include "kiln/Dialect/Kiln/IR/ShapeUtils.h"
#include "kiln/Dialect/Kiln/IR/KilnOps.h"
#include "kiln/Dialect/Kiln/IR/TensorLimits.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"

using namespace mlir;

namespace kiln {

bool areCompatibleTensorTypes(TypeRange lhs, TypeRange rhs) {
  if (lhs.size() != rhs.size())
    return false;
  for (auto [left, right] : llvm::zip(lhs, rhs)) {
    auto leftTensor = dyn_cast<TensorType>(left);
    auto rightTensor = dyn_cast<TensorType>(right);
    if (!leftTensor || !rightTensor)
      return left == right;
    if (leftTensor.getElementType() != rightTensor.getElementType())
      return false;
    if (failed(verifyCompatibleShape(leftTensor, rightTensor)))
      return false;
  }
  return true;
}

std::optional<SmallVector<int64_t>> broadcastShapes(ArrayRef<int64_t> lhs,
                                                    ArrayRef<int64_t> rhs) {
  size_t rank = std::max(lhs.size(), rhs.size());
  SmallVector<int64_t> result(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t left = i < rank - lhs.size() ? 1 : lhs[i - (rank - lhs.size())];
    int64_t right = i < rank - rhs.size() ? 1 : rhs[i - (rank - rhs.size())];
    if (left == 1) {
      result[i] = right;
    } else if (right == 1) {
      result[i] = left;
    } else if (ShapedType::isDynamic(left)) {
      result[i] = right; // A dynamic dim must match a static one (or be 1).
      if (ShapedType::isDynamic(right))
        result[i] = ShapedType::kDynamic;
    } else if (ShapedType::isDynamic(right) || left == right) {
      result[i] = left;
    } else {
      return std::nullopt;
    }
  }
  return result;
}

std::optional<int64_t> normalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank)
    return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

std::optional<SmallVector<int64_t>>
normalizeDistinctAxes(ArrayRef<int64_t> axes, int64_t rank,
                      std::string *problem) {
  SmallVector<int64_t> normalized;
  for (int64_t axis : axes) {
    std::optional<int64_t> dim = normalizeAxis(axis, rank);
    if (!dim || llvm::is_contained(normalized, *dim)) {
      if (problem)
        *problem = "axis " + std::to_string(axis) +
                   (dim ? " is listed more than once"
                        : " is out of range for rank " + std::to_string(rank));
      return std::nullopt;
    }
    normalized.push_back(*dim);
  }
  return normalized;
}

ArrayRef<char> getRawElementBytes(ElementsAttr attr) {
  if (auto resource = dyn_cast<DenseResourceElementsAttr>(attr)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return {};
    return blob->getData();
  }
  if (auto dense = dyn_cast<DenseElementsAttr>(attr))
    if (!dense.isSplat())
      return dense.getRawData();
  return {};
}

std::optional<SmallVector<int64_t>> getIntegerElements(ElementsAttr attr) {
  auto intType = dyn_cast<IntegerType>(attr.getElementType());
  if (!intType)
    return std::nullopt;
  SmallVector<int64_t> values;
  if (auto dense = dyn_cast<DenseIntElementsAttr>(attr)) {
    for (const APInt &value : dense.getValues<APInt>())
      values.push_back(intType.isUnsigned() || intType.getWidth() == 1
                           ? static_cast<int64_t>(value.getZExtValue())
                           : value.getSExtValue());
    return values;
  }
  ArrayRef<char> bytes = getRawElementBytes(attr);
  unsigned width = intType.getWidth();
  if (width != 8 && width != 16 && width != 32 && width != 64)
    return std::nullopt;
  size_t count = attr.getNumElements();
  if (bytes.size() != count * (width / 8))
    return std::nullopt;
  for (size_t i = 0; i < count; ++i) {
    const char *p = bytes.data() + i * (width / 8);
    int64_t v = 0;
    switch (width) {
    case 8:
      v = intType.isUnsigned() ? int64_t(*reinterpret_cast<const uint8_t *>(p))
                               : int64_t(*reinterpret_cast<const int8_t *>(p));
      break;
    case 16: {
      uint16_t raw;
      memcpy(&raw, p, 2);
      v = intType.isUnsigned() ? int64_t(raw) : int64_t(int16_t(raw));
      break;
    }
    case 32: {
      uint32_t raw;
      memcpy(&raw, p, 4);
      v = intType.isUnsigned() ? int64_t(raw) : int64_t(int32_t(raw));
      break;
    }
    default:
      memcpy(&v, p, 8);
    }
    values.push_back(v);
  }
  return values;
}

std::optional<SmallVector<int64_t>> getConstantIntegers(Value value) {
  if (!value)
    return std::nullopt;
  Attribute attr;
  if (!matchPattern(value, m_Constant(&attr)))
    return std::nullopt;
  auto elements = dyn_cast<ElementsAttr>(attr);
  if (!elements)
    return std::nullopt;
  return getIntegerElements(elements);
}

std::optional<SmallVector<int64_t>> getPartialIntegers(Value value) {
  if (std::optional<SmallVector<int64_t>> constant = getConstantIntegers(value))
    return constant;
  auto type = dyn_cast<RankedTensorType>(value.getType());
  // Longer than any rank: not a shape (and too long to list its entries).
  if (!type || type.getRank() > 1 || !type.hasStaticShape() ||
      type.getNumElements() > kMaxRank)
    return std::nullopt;
  Operation *op = value.getDefiningOp();
  if (!op)
    return std::nullopt;
  if (auto shape = dyn_cast<ShapeOp>(op)) {
    auto input = dyn_cast<RankedTensorType>(shape.getData().getType());
    if (!input)
      return std::nullopt;
    int64_t rank = input.getRank();
    auto clampIndex = [&](int64_t index) {
      return std::clamp<int64_t>(index < 0 ? index + rank : index, 0, rank);
    };
    int64_t first = clampIndex(shape.getStart());
    int64_t last = shape.getEnd() ? clampIndex(*shape.getEnd()) : rank;
    return SmallVector<int64_t>(
        input.getShape().slice(first, std::max<int64_t>(last - first, 0)));
  }
  if (auto concat = dyn_cast<ConcatOp>(op)) {
    SmallVector<int64_t> values;
    for (Value input : concat.getInputs()) {
      std::optional<SmallVector<int64_t>> part = getPartialIntegers(input);
      if (part) {
        llvm::append_range(values, *part);
        continue;
      }
      auto inputType = dyn_cast<RankedTensorType>(input.getType());
      if (!inputType || !inputType.hasStaticShape())
        return std::nullopt;
      values.append(inputType.getNumElements(), ShapedType::kDynamic);
    }
    return values;
  }
  if (isa<UnsqueezeOp, ReshapeOp, IdentityOp>(op)) {
    // Same elements, new shape: only a 0-d or 1-d source is looked through.
    Value source = op->getOperand(0);
    if (std::optional<SmallVector<int64_t>> part = getPartialIntegers(source))
      return part;
    return SmallVector<int64_t>(type.getNumElements(), ShapedType::kDynamic);
  }
  if (auto gather = dyn_cast<GatherOp>(op)) {
    std::optional<SmallVector<int64_t>> source =
        getPartialIntegers(gather.getData());
    std::optional<SmallVector<int64_t>> indices =
        getConstantIntegers(gather.getIndices());
    if (!source || !indices)
      return SmallVector<int64_t>(type.getNumElements(), ShapedType::kDynamic);
    SmallVector<int64_t> values;
    for (int64_t index : *indices) {
      std::optional<int64_t> position = normalizeAxis(index, source->size());
      values.push_back(position ? (*source)[*position] : ShapedType::kDynamic);
    }
    return values;
  }
  return SmallVector<int64_t>(type.getNumElements(), ShapedType::kDynamic);
}

Type dynamicTensor(std::optional<int64_t> rank, Type element) {
  if (!rank)
    return UnrankedTensorType::get(element);
  return RankedTensorType::get(SmallVector<int64_t>(*rank, ShapedType::kDynamic),
                               element);
}

std::optional<int64_t> staticLength(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || type.getRank() != 1 || type.isDynamicDim(0))
    return std::nullopt;
  return type.getDimSize(0);
}

/// The result type of a reduction of |data| over the constant or unknown
/// |axes| operand (opset-18 semantics).
LogicalResult inferReductionType(std::optional<Location> location,
                                 Value data,
                                 Value axesValue, bool keepDims,
                                 bool noopWithEmptyAxes,
                                 SmallVectorImpl<Type> &inferred) {
  auto type = cast<TensorType>(data.getType());
  Type element = type.getElementType();
  if (!type.hasRank()) {
    inferred.push_back(UnrankedTensorType::get(element));
    return success();
  }
  int64_t rank = type.getRank();
  SmallVector<bool> reduced(rank, false);
  if (axesValue) {
    std::optional<SmallVector<int64_t>> axes = getConstantIntegers(axesValue);
    if (!axes) {
      auto axesType = cast<TensorType>(axesValue.getType());
      if (keepDims)
        inferred.push_back(RankedTensorType::get(
            SmallVector<int64_t>(rank, ShapedType::kDynamic), element));
      else if (axesType.hasStaticShape() && axesType.getRank() == 1 &&
               axesType.getDimSize(0) <= rank && axesType.getDimSize(0) > 0)
        inferred.push_back(RankedTensorType::get(
            SmallVector<int64_t>(rank - axesType.getDimSize(0),
                                 ShapedType::kDynamic),
            element));
      else
        inferred.push_back(UnrankedTensorType::get(element));
      return success();
    }
    if (axes->empty() && !noopWithEmptyAxes)
      reduced.assign(rank, true);
    for (int64_t axis : *axes) {
      std::optional<int64_t> normalized = normalizeAxis(axis, rank);
      if (!normalized)
        return emitOptionalError(location, "axis ", axis,
                                 " is out of range for rank ", rank);
      if (reduced[*normalized])
        return emitOptionalError(location, "axis ", axis, " is repeated");
      reduced[*normalized] = true;
    }
  } else if (!noopWithEmptyAxes) {
    reduced.assign(rank, true);
  }
  SmallVector<int64_t> shape;
  for (int64_t i = 0; i < rank; ++i) {
    if (!reduced[i])
      shape.push_back(type.getDimSize(i));
    else if (keepDims)
      shape.push_back(1);
  }
  inferred.push_back(RankedTensorType::get(shape, element));
  return success();
}

std::optional<int64_t> getStaticElementCount(ArrayRef<int64_t> shape) {
  return checkedElementCount(shape); // Checked: std::nullopt on overflow too.
}

} // namespace kiln
