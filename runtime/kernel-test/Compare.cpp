// Decoding output elements of every kiln dtype and comparing them with
// tolerances; NaN never passes.
#include "Compare.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <sstream>

namespace kiln::kerneltest {
namespace {

double halfToDouble(uint16_t bits) {
  int exponent = (bits >> 10) & 0x1f;
  int mantissa = bits & 0x3ff;
  double magnitude;
  if (exponent == 0x1f)
    magnitude = mantissa ? NAN : INFINITY;
  else if (exponent == 0)
    magnitude = std::ldexp(mantissa, -24);
  else
    magnitude = std::ldexp(mantissa | 0x400, exponent - 25);
  return (bits & 0x8000) ? -magnitude : magnitude;
}

double bfloat16ToDouble(uint16_t bits) {
  uint32_t wide = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &wide, sizeof(value));
  return value;
}

template <typename T> T load(const char *data, size_t i) {
  T value;
  std::memcpy(&value, data + i * sizeof(T), sizeof(T));
  return value;
}

bool isFloatType(const std::string &dtype) {
  return dtype == "float32" || dtype == "float16" || dtype == "bfloat16" ||
         dtype == "double" || dtype == "float64";
}

double floatAt(const std::string &dtype, const char *data, size_t i) {
  if (dtype == "float32")
    return load<float>(data, i);
  if (dtype == "float16")
    return halfToDouble(load<uint16_t>(data, i));
  if (dtype == "bfloat16")
    return bfloat16ToDouble(load<uint16_t>(data, i));
  return load<double>(data, i);
}

/// Integers as their bit pattern widened (sign-extended for signed types).
int64_t intAt(const std::string &dtype, const char *data, size_t i) {
  if (dtype == "int8")
    return load<int8_t>(data, i);
  if (dtype == "int16")
    return load<int16_t>(data, i);
  if (dtype == "int32")
    return load<int32_t>(data, i);
  if (dtype == "uint8" || dtype == "bool")
    return load<uint8_t>(data, i);
  if (dtype == "uint16")
    return load<uint16_t>(data, i);
  if (dtype == "uint32")
    return load<uint32_t>(data, i);
  return load<int64_t>(data, i);
}

} // namespace

size_t dtypeBytes(const std::string &dtype) {
  if (dtype == "int8" || dtype == "uint8" || dtype == "bool")
    return 1;
  if (dtype == "int16" || dtype == "uint16" || dtype == "float16" ||
      dtype == "bfloat16")
    return 2;
  if (dtype == "int32" || dtype == "uint32" || dtype == "float32")
    return 4;
  if (dtype == "int64" || dtype == "uint64" || dtype == "double" ||
      dtype == "float64")
    return 8;
  return 0;
}

void defaultTolerance(const std::string &dtype, double &rtol, double &atol) {
  if (dtype == "float32")
    rtol = 1e-5, atol = 1e-5;
  else if (dtype == "float16")
    rtol = 1e-2, atol = 1e-2;
  else if (dtype == "bfloat16")
    rtol = 2e-2, atol = 2e-2;
  else if (dtype == "double" || dtype == "float64")
    rtol = 1e-12, atol = 1e-12;
  else
    rtol = 0, atol = 0;
}

Comparison compareBuffers(const std::string &dtype, const char *actual,
                          const char *expected, size_t count, double rtol,
                          double atol) {
  Comparison result;
  auto mismatch = [&](size_t i, const std::string &what) {
    result.ok = false;
    if (result.mismatches++ == 0) {
      std::ostringstream os;
      os << "element " << i << ": " << what;
      result.message = os.str();
    }
  };
  if (isFloatType(dtype)) {
    for (size_t i = 0; i < count; ++i) {
      double a = floatAt(dtype, actual, i), e = floatAt(dtype, expected, i);
      if (std::isnan(a) || std::isnan(e)) {
        std::ostringstream os;
        os << "NaN (got " << a << ", expected " << e << ")";
        mismatch(i, os.str());
        continue;
      }
      if (std::isinf(a) || std::isinf(e)) {
        if (a != e) {
          std::ostringstream os;
          os << "got " << a << ", expected " << e;
          mismatch(i, os.str());
        }
        continue;
      }
      double error = std::fabs(a - e);
      double relative = e != 0 ? error / std::fabs(e) : (error ? INFINITY : 0);
      result.maxAbsError = std::max(result.maxAbsError, error);
      result.maxRelError = std::max(result.maxRelError, relative);
      if (error > atol + rtol * std::fabs(e)) {
        std::ostringstream os;
        os.precision(9);
        os << "got " << a << ", expected " << e << " (error " << error << ")";
        mismatch(i, os.str());
      }
    }
    return result;
  }
  for (size_t i = 0; i < count; ++i) {
    int64_t a = intAt(dtype, actual, i), e = intAt(dtype, expected, i);
    if (a != e) {
      result.maxAbsError = std::max(
          result.maxAbsError, std::fabs(static_cast<double>(a) - double(e)));
      mismatch(i,
               "got " + std::to_string(a) + ", expected " + std::to_string(e));
    }
  }
  return result;
}

} // namespace kiln::kerneltest
