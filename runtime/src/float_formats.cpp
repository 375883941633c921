// Host conversions between float and IEEE half / bfloat16 (float_formats.h).
#include "float_formats.h"

#include <cmath>
#include <cstring>

namespace kiln::runtime {

float halfToFloat(uint16_t bits) {
  uint32_t sign = (bits >> 15) & 1, exponent = (bits >> 10) & 0x1f,
           mantissa = bits & 0x3ff;
  float value;
  if (exponent == 0)
    value = std::ldexp(float(mantissa), -24);
  else if (exponent == 31)
    value = mantissa ? NAN : INFINITY;
  else
    value = std::ldexp(float(mantissa | 0x400), int(exponent) - 25);
  return sign ? -value : value;
}

uint16_t floatToHalf(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  uint16_t sign = uint16_t((bits >> 16) & 0x8000);
  if (std::isnan(value))
    return uint16_t(sign | 0x7e00);
  float magnitude = std::fabs(value);
  if (magnitude >= 65520.0f)
    return uint16_t(sign | 0x7c00);
  if (magnitude < 6.103515625e-05f) // Subnormal: round to a multiple of 2^-24.
    return uint16_t(sign | uint16_t(std::nearbyint(magnitude * 16777216.0f)));
  int exponent;
  float fraction = std::frexp(magnitude, &exponent); // [0.5, 1)
  uint32_t mantissa = uint32_t(std::nearbyint((fraction * 2 - 1) * 1024));
  exponent += 14;
  if (mantissa == 1024) {
    mantissa = 0;
    ++exponent;
  }
  return uint16_t(sign | (exponent << 10) | mantissa);
}

float bf16ToFloat(uint16_t bits) {
  uint32_t wide = uint32_t(bits) << 16;
  float value;
  std::memcpy(&value, &wide, 4);
  return value;
}

uint16_t floatToBf16(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  if (std::isnan(value))
    return uint16_t((bits >> 16) | 0x40);
  bits += 0x7fff + ((bits >> 16) & 1); // Round to nearest even.
  return uint16_t(bits >> 16);
}

} // namespace kiln::runtime
