// Rounding doubles to f32/f16/bf16, wrapping integers to their width and the
// ONNX Cast conversions between them.
#include "kiln/Evaluator/ScalarSemantics.h"

#include <cmath>
#include <cstring>
#include <limits>

namespace kiln::eval {
namespace {

/// Rounds |value| to a binary float with |exponentBits| exponent bits and
/// |mantissaBits| stored mantissa bits (IEEE layout, with subnormals), to
/// nearest even, straight from the double so there is no double rounding.
uint16_t doubleToSmallFloatBits(double value, int exponentBits,
                                int mantissaBits) {
  uint64_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  uint16_t sign =
      static_cast<uint16_t>((bits >> 63) << (exponentBits + mantissaBits));
  const int bias = (1 << (exponentBits - 1)) - 1;
  const uint32_t infinityBits = ((1u << exponentBits) - 1) << mantissaBits;
  int rawExponent = static_cast<int>((bits >> 52) & 0x7ff);
  uint64_t fraction = bits & ((uint64_t(1) << 52) - 1);

  if (rawExponent == 0x7ff) // Infinity or NaN (quiet, sign kept).
    return sign | infinityBits | (fraction ? (1u << (mantissaBits - 1)) : 0u);
  if (rawExponent == 0) // Zero or a double subnormal: far below any target.
    return sign;

  int exponent = rawExponent - 1023;
  const int minExponent = 1 - bias;
  if (exponent > bias)
    return sign | infinityBits;

  uint64_t mantissa = fraction | (uint64_t(1) << 52);
  int shift = 52 - mantissaBits;
  if (exponent < minExponent)
    shift += minExponent - exponent; // Subnormal in the target format.
  if (shift > 53)
    return sign; // Below half the smallest subnormal.

  uint64_t quotient = mantissa >> shift;
  uint64_t remainder = mantissa & ((uint64_t(1) << shift) - 1);
  uint64_t half = uint64_t(1) << (shift - 1);
  if (remainder > half || (remainder == half && (quotient & 1)))
    ++quotient;

  uint32_t result;
  if (exponent < minExponent) {
    // quotient <= 2^mantissaBits; reaching it is the smallest normal.
    result = static_cast<uint32_t>(quotient);
  } else {
    // quotient carries the implicit bit, which adds one to the exponent
    // field; a carry out of the mantissa rolls into the exponent as well.
    result = (static_cast<uint32_t>(exponent + bias - 1) << mantissaBits) +
             static_cast<uint32_t>(quotient);
    if (result >= infinityBits)
      result = infinityBits;
  }
  return sign | static_cast<uint16_t>(result);
}

double smallFloatBitsToDouble(uint16_t bits, int exponentBits,
                              int mantissaBits) {
  const int bias = (1 << (exponentBits - 1)) - 1;
  bool negative = (bits >> (exponentBits + mantissaBits)) & 1;
  int exponentField = (bits >> mantissaBits) & ((1 << exponentBits) - 1);
  uint32_t mantissa = bits & ((1u << mantissaBits) - 1);
  double magnitude;
  if (exponentField == (1 << exponentBits) - 1)
    magnitude = mantissa ? std::numeric_limits<double>::quiet_NaN()
                         : std::numeric_limits<double>::infinity();
  else if (exponentField == 0)
    magnitude =
        std::ldexp(static_cast<double>(mantissa), 1 - bias - mantissaBits);
  else
    magnitude = std::ldexp(static_cast<double>(mantissa | (1u << mantissaBits)),
                           exponentField - bias - mantissaBits);
  return negative ? -magnitude : magnitude;
}

} // namespace

uint16_t doubleToHalfBits(double value) {
  return doubleToSmallFloatBits(value, 5, 10);
}
double halfBitsToDouble(uint16_t bits) {
  return smallFloatBitsToDouble(bits, 5, 10);
}
uint16_t doubleToBFloat16Bits(double value) {
  return doubleToSmallFloatBits(value, 8, 7);
}
double bfloat16BitsToDouble(uint16_t bits) {
  return smallFloatBitsToDouble(bits, 8, 7);
}

double roundToFloatDType(double value, DType dtype) {
  switch (dtype) {
  case DType::F64:
    return value;
  case DType::F32:
    return static_cast<double>(static_cast<float>(value)); // IEEE RNE.
  case DType::F16:
    return halfBitsToDouble(doubleToHalfBits(value));
  case DType::BF16:
    return bfloat16BitsToDouble(doubleToBFloat16Bits(value));
  default:
    return value;
  }
}

int64_t wrapToIntDType(int64_t value, DType dtype) {
  switch (dtype) {
  case DType::Bool:
    return value != 0;
  case DType::I8:
    return static_cast<int8_t>(value);
  case DType::I16:
    return static_cast<int16_t>(value);
  case DType::I32:
    return static_cast<int32_t>(value);
  case DType::U8:
    return static_cast<uint8_t>(value);
  case DType::U16:
    return static_cast<uint16_t>(value);
  case DType::U32:
    return static_cast<uint32_t>(value);
  default: // I64, U64 (bit pattern), and floats (unused).
    return value;
  }
}

double intDTypeMin(DType dtype) {
  switch (dtype) {
  case DType::I8:
    return -128.0;
  case DType::I16:
    return -32768.0;
  case DType::I32:
    return -2147483648.0;
  case DType::I64:
    return -9223372036854775808.0;
  default: // Bool and unsigned.
    return 0.0;
  }
}

double intDTypeMax(DType dtype) {
  switch (dtype) {
  case DType::Bool:
    return 1.0;
  case DType::I8:
    return 127.0;
  case DType::I16:
    return 32767.0;
  case DType::I32:
    return 2147483647.0;
  case DType::U8:
    return 255.0;
  case DType::U16:
    return 65535.0;
  case DType::U32:
    return 4294967295.0;
  case DType::U64:
    return 18446744073709551615.0; // Rounds to 2^64; see castFloatToInt.
  default:
    return 9223372036854775807.0; // Rounds to 2^63; see castFloatToInt.
  }
}

int64_t castFloatToInt(double value, DType to) {
  if (to == DType::Bool)
    return value != 0.0; // NaN != 0 is true.
  if (std::isnan(value))
    return 0;
  double truncated = std::trunc(value);
  if (truncated <= intDTypeMin(to))
    return wrapToIntDType(to == DType::I64
                              ? std::numeric_limits<int64_t>::min()
                              : static_cast<int64_t>(intDTypeMin(to)),
                          to);
  // The i64/u64 maxima are not doubles; 2^63 and 2^64 are the first values
  // out of range.
  if (to == DType::I64 && truncated >= 9223372036854775808.0)
    return std::numeric_limits<int64_t>::max();
  if (to == DType::U64) {
    if (truncated >= 18446744073709551616.0)
      return static_cast<int64_t>(std::numeric_limits<uint64_t>::max());
    return static_cast<int64_t>(static_cast<uint64_t>(truncated));
  }
  if (to != DType::I64 && truncated >= intDTypeMax(to))
    return static_cast<int64_t>(intDTypeMax(to));
  return static_cast<int64_t>(truncated);
}

double castIntToFloat(int64_t value, DType from, DType to) {
  if (to == DType::F32)
    return from == DType::U64
               ? static_cast<double>(static_cast<float>(uint64_t(value)))
               : static_cast<double>(static_cast<float>(value));
  double wide = from == DType::U64 ? static_cast<double>(uint64_t(value))
                                   : static_cast<double>(value);
  return roundToFloatDType(wide, to);
}

} // namespace kiln::eval
