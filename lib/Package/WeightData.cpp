// Element types and constant contents as the artifact stores them: the
// dtype enum, and each weight's row-major bytes (i1 as one byte).
#include "PackageInternal.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/DialectResourceBlobManager.h"

using namespace mlir;

namespace kiln::package {

using namespace kiln::artifact;

FailureOr<DType> getArtifactDType(Operation *where, Type type) {
  if (auto shaped = dyn_cast<ShapedType>(type))
    type = shaped.getElementType();
  if (type.isF16())
    return DType_F16;
  if (type.isBF16())
    return DType_BF16;
  if (type.isF32())
    return DType_F32;
  if (type.isF64())
    return DType_F64;
  if (auto integer = dyn_cast<IntegerType>(type)) {
    bool isUnsigned = integer.isUnsigned();
    switch (integer.getWidth()) {
    case 1:
      return DType_Bool;
    case 8:
      return isUnsigned ? DType_U8 : DType_I8;
    case 16:
      return isUnsigned ? DType_U16 : DType_I16;
    case 32:
      return isUnsigned ? DType_U32 : DType_I32;
    case 64:
      return isUnsigned ? DType_U64 : DType_I64;
    default:
      break;
    }
  }
  return where->emitError("packager: element type ")
         << type << " has no artifact dtype";
}

LogicalResult getConstantBytes(ConstantOp constant, std::vector<char> &owned,
                               ArrayRef<char> &bytes) {
  auto type = cast<ShapedType>(constant.getType());
  std::optional<int64_t> expected = getTensorBytes(type);
  if (!expected)
    return constant.emitError("packager: weight of type ")
           << type << " has no fixed size";
  ElementsAttr value = constant.getValue();
  auto wrongSize = [&](size_t actual) {
    return constant.emitError("packager: weight data has ")
           << actual << " bytes, its type " << type << " needs " << *expected;
  };

  if (auto resource = dyn_cast<DenseResourceElementsAttr>(value)) {
    AsmResourceBlob *blob = resource.getRawHandle().getBlob();
    if (!blob)
      return constant.emitError("packager: weight '")
             << resource.getRawHandle().getKey()
             << "' has no data (a graph-only model?); fill the weights, e.g. "
                "scripts/fill-weights.py MODEL.onnx FILLED.onnx --external, "
                "and compile that file";
    bytes = blob->getData();
    if (int64_t(bytes.size()) != *expected)
      return wrongSize(bytes.size());
    return success();
  }

  auto dense = dyn_cast<DenseElementsAttr>(value);
  if (!dense)
    return constant.emitError("packager: unsupported weight attribute ")
           << value;
  if (type.getElementType().isInteger(1)) {
    // Dense i1 data is bit-packed; the runtime stores one byte per element.
    for (bool element : dense.getValues<bool>())
      owned.push_back(element ? 1 : 0);
    bytes = owned;
    return success();
  }
  ArrayRef<char> raw = dense.getRawData();
  if (dense.isSplat()) {
    int64_t elementBytes =
        *expected / std::max<int64_t>(type.getNumElements(), 1);
    if (int64_t(raw.size()) != elementBytes)
      return wrongSize(raw.size());
    owned.reserve(*expected);
    for (int64_t i = 0; i < type.getNumElements(); ++i)
      owned.insert(owned.end(), raw.begin(), raw.end());
    bytes = owned;
    return success();
  }
  if (int64_t(raw.size()) != *expected)
    return wrongSize(raw.size());
  bytes = raw;
  return success();
}

} // namespace kiln::package
