// ElementalEmitter's dtype knowledge: computation and storage types, the
// conversions at load and store, integer wrapping and literals.
#include "kiln/Target/CUDA/ElementalEmitter.h"

#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace mlir;

namespace kiln {

//===----------------------------------------------------------------------===//
// Types and conversions
//===----------------------------------------------------------------------===//

std::optional<ComputeKind> ElementalEmitter::computeKind(Type type) {
  if (type.isF16() || type.isBF16() || type.isF32())
    return ComputeKind::Float;
  if (type.isF64())
    return ComputeKind::Double;
  if (type.isInteger(1))
    return ComputeKind::Bool;
  if (auto integer = dyn_cast<IntegerType>(type))
    if (llvm::is_contained({8u, 16u, 32u, 64u}, integer.getWidth()))
      return ComputeKind::Int;
  return std::nullopt;
}

std::string ElementalEmitter::computeType(Type type) {
  switch (computeKind(type).value_or(ComputeKind::Bool)) {
  case ComputeKind::Float:
    return "float";
  case ComputeKind::Double:
    return "double";
  case ComputeKind::Int:
    return "long long";
  case ComputeKind::Bool:
    return computeKind(type) ? "bool" : "";
  }
  return "";
}

bool ElementalEmitter::isUnsignedInteger(Type type) {
  auto integer = dyn_cast<IntegerType>(type);
  return integer && integer.isUnsigned();
}

std::string ElementalEmitter::storageType(Type type) {
  if (type.isF16())
    return "__half";
  if (type.isBF16())
    return "__nv_bfloat16";
  if (type.isF32())
    return "float";
  if (type.isF64())
    return "double";
  auto integer = dyn_cast<IntegerType>(type);
  if (!integer)
    return "";
  std::string prefix = integer.isUnsigned() ? "unsigned " : "";
  switch (integer.getWidth()) {
  case 1:
    return "unsigned char";
  case 8:
    return integer.isUnsigned() ? "unsigned char" : "signed char";
  case 16:
    return prefix + "short";
  case 32:
    return prefix + "int";
  case 64:
    return prefix + "long long";
  default:
    return "";
  }
}

std::string ElementalEmitter::loadConversion(Type type,
                                             const std::string &storage) {
  if (type.isF16())
    return "__half2float(" + storage + ")";
  if (type.isBF16())
    return "__bfloat162float(" + storage + ")";
  if (type.isF32() || type.isF64())
    return storage;
  if (type.isInteger(1))
    return "(" + storage + " != 0)";
  return "(long long)" + storage;
}

std::string ElementalEmitter::storeConversion(Type type,
                                              const std::string &value) {
  if (type.isF16())
    return "__float2half_rn(" + value + ")";
  if (type.isBF16())
    return "__float2bfloat16_rn(" + value + ")";
  if (type.isF32() || type.isF64())
    return value;
  if (type.isInteger(1))
    return "(unsigned char)(" + value + " ? 1 : 0)";
  return "(" + storageType(type) + ")" + parenthesize(value);
}

std::string ElementalEmitter::wrapInteger(Type type, const std::string &expr) {
  auto integer = dyn_cast<IntegerType>(type);
  if (!integer || integer.getWidth() == 64)
    return expr;
  if (integer.getWidth() == 1)
    return "(" + parenthesize(expr) + " != 0)";
  return "(long long)(" + storageType(type) + ")" + parenthesize(expr);
}

std::string ElementalEmitter::floatLiteral(Type type, double value) {
  bool isDouble = type.isF64();
  if (std::isnan(value))
    return isDouble ? "__longlong_as_double(0x7ff8000000000000LL)"
                    : "__int_as_float(0x7fc00000)";
  if (std::isinf(value)) {
    std::string inf = isDouble ? "__longlong_as_double(0x7ff0000000000000LL)"
                               : "__int_as_float(0x7f800000)";
    return value < 0 ? "(-" + inf + ")" : inf;
  }
  std::string text;
  llvm::raw_string_ostream os(text);
  if (isDouble)
    os << llvm::format("%.17g", value);
  else
    os << llvm::format("%.9g", static_cast<double>(static_cast<float>(value)));
  os.flush();
  if (text.find_first_of(".eE") == std::string::npos)
    text += ".0";
  if (!isDouble)
    text += "f";
  return value < 0 || std::signbit(value) ? "(" + text + ")" : text;
}

std::string ElementalEmitter::intLiteral(int64_t value) {
  if (value == INT64_MIN)
    return "(-9223372036854775807LL - 1)";
  std::string text = std::to_string(value) + "LL";
  return value < 0 ? "(" + text + ")" : text;
}

} // namespace kiln
