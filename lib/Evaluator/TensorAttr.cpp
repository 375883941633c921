// Conversion between evaluator tensors and MLIR elements attributes (dense,
// splat and dense_resource).
#include "kiln/Evaluator/Tensor.h"

#include "kiln/Dialect/Kiln/IR/ShapeUtils.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinDialect.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "llvm/Support/raw_ostream.h"

namespace kiln::eval {
namespace {

std::string typeToString(mlir::Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

/// Reads every element of a dense attribute through APInt / APFloat (used for
/// splats and for i1, whose dense storage is bit-packed).
Tensor tensorFromDenseValues(mlir::DenseElementsAttr dense, DType dtype,
                             std::vector<int64_t> shape) {
  Tensor tensor(dtype, std::move(shape));
  if (isFloat(dtype)) {
    int64_t i = 0;
    for (const llvm::APFloat &value : dense.getValues<llvm::APFloat>()) {
      llvm::APFloat wide = value;
      bool losesInfo = false;
      wide.convert(llvm::APFloat::IEEEdouble(),
                   llvm::APFloat::rmNearestTiesToEven, &losesInfo);
      tensor.floats()[i++] = wide.convertToDouble();
    }
    return tensor;
  }
  int64_t i = 0;
  for (const llvm::APInt &value : dense.getValues<llvm::APInt>())
    tensor.ints()[i++] = isUnsigned(dtype) || dtype == DType::Bool
                             ? static_cast<int64_t>(value.getZExtValue())
                             : value.getSExtValue();
  return tensor;
}

} // namespace

llvm::Expected<Tensor> tensorFromAttr(mlir::ElementsAttr attr) {
  auto type = mlir::dyn_cast<mlir::RankedTensorType>(attr.getShapedType());
  if (!type || !type.hasStaticShape())
    return llvm::createStringError("constant of type " +
                                   typeToString(attr.getShapedType()) +
                                   " has no static shape");
  std::optional<DType> dtype = dtypeFromMlir(type.getElementType());
  if (!dtype)
    return llvm::createStringError("unsupported element type " +
                                   typeToString(type.getElementType()) +
                                   " in a constant");
  std::vector<int64_t> shape(type.getShape().begin(), type.getShape().end());

  if (auto dense = mlir::dyn_cast<mlir::DenseElementsAttr>(attr)) {
    if (dense.isSplat() || *dtype == DType::Bool)
      return tensorFromDenseValues(dense, *dtype, std::move(shape));
    return Tensor::fromBytes(*dtype, std::move(shape), dense.getRawData());
  }
  if (auto resource = mlir::dyn_cast<mlir::DenseResourceElementsAttr>(attr)) {
    if (!resource.getRawHandle().getBlob())
      return llvm::createStringError("dense_resource '" +
                                     resource.getRawHandle().getKey().str() +
                                     "' has no data (the blob was not loaded)");
    return Tensor::fromBytes(*dtype, std::move(shape),
                             getRawElementBytes(attr));
  }
  return llvm::createStringError("unsupported constant attribute kind for " +
                                 typeToString(type));
}

mlir::DenseElementsAttr tensorToAttr(const Tensor &tensor,
                                     mlir::RankedTensorType type) {
  if (!type || !type.hasStaticShape() || type.getShape() != tensor.shape() ||
      dtypeFromMlir(type.getElementType()) != tensor.dtype())
    return {};
  if (tensor.dtype() == DType::Bool) {
    llvm::SmallVector<bool> values(tensor.ints().begin(), tensor.ints().end());
    return mlir::DenseElementsAttr::get(type, llvm::ArrayRef<bool>(values));
  }
  std::vector<char> bytes = tensor.toBytes();
  return mlir::DenseElementsAttr::getFromRawBuffer(type, bytes);
}

} // namespace kiln::eval
