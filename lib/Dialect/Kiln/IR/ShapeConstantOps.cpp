// Type inference, verifier and folds of kiln.shape and kiln.constant, and
// kiln.constant's custom assembly format.
#include "kiln/Dialect/Kiln/IR/KilnOps.h"

using namespace mlir;
using namespace kiln;

//===----------------------------------------------------------------------===//
// Shape, Constant
//===----------------------------------------------------------------------===//

namespace {
/// The [start, end) range of dims that Shape selects, clamped as ONNX says.
std::pair<int64_t, int64_t> shapeRange(int64_t rank, int64_t start,
                                       std::optional<int64_t> end) {
  auto clampIndex = [&](int64_t index) {
    if (index < 0)
      index += rank;
    return std::clamp<int64_t>(index, 0, rank);
  };
  int64_t first = clampIndex(start);
  int64_t last = end ? clampIndex(*end) : rank;
  return {first, std::max(first, last)};
}
} // namespace

LogicalResult ShapeOp::inferReturnTypes(MLIRContext *context,
                                        std::optional<Location>,
                                        Adaptor adaptor,
                                        SmallVectorImpl<Type> &inferred) {
  auto type = tensorOf(adaptor.getData());
  Type i64 = IntegerType::get(context, 64);
  if (!type.hasRank()) {
    inferred.push_back(RankedTensorType::get({ShapedType::kDynamic}, i64));
    return success();
  }
  auto [first, last] =
      shapeRange(type.getRank(), adaptor.getStart(), adaptor.getEnd());
  inferred.push_back(RankedTensorType::get({last - first}, i64));
  return success();
}

// shape(x) -> constant, when the selected dims of x are static
OpFoldResult ShapeOp::fold(FoldAdaptor) {
  auto type = dyn_cast<RankedTensorType>(getData().getType());
  auto resultType = dyn_cast<RankedTensorType>(getType());
  if (!type || !resultType || !resultType.hasStaticShape())
    return {};
  auto [first, last] = shapeRange(type.getRank(), getStart(), getEnd());
  SmallVector<int64_t> dims(type.getShape().slice(first, last - first));
  if (llvm::any_of(dims, ShapedType::isDynamic))
    return {};
  return DenseIntElementsAttr::get(resultType, dims);
}

LogicalResult ConstantOp::verify() {
  if (getValue().getType() != getType())
    return emitOpError("value type ")
           << getValue().getType() << " differs from result type " << getType();
  return success();
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

// kiln.constant <attr-dict> <typed elements attribute>
ParseResult ConstantOp::parse(OpAsmParser &parser, OperationState &result) {
  ElementsAttr value;
  if (parser.parseOptionalAttrDict(result.attributes) ||
      parser.parseAttribute(value, "value", result.attributes))
    return failure();
  result.addTypes(value.getType());
  return success();
}

void ConstantOp::print(OpAsmPrinter &printer) {
  printer.printOptionalAttrDict((*this)->getAttrs(), {"value"});
  printer << ' ';
  printer.printAttribute(getValue());
}
