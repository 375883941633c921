// kiln-run's tensor files: .npy and TensorProto readers (no protobuf), .npy
// writer, conversions.
#include "tensor_files.h"
#include "float_formats.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

namespace kiln::run {

using kiln::runtime::bf16ToFloat;
using kiln::runtime::floatToBf16;
using kiln::runtime::floatToHalf;
using kiln::runtime::halfToFloat;

namespace {

template <typename T> T load(const uint8_t *data) {
  T value;
  std::memcpy(&value, data, sizeof(T));
  return value;
}

bool fail(std::string *error, const std::string &message) {
  *error = message;
  return false;
}

} // namespace

size_t HostTensor::elementCount() const {
  size_t count = 1;
  for (int64_t dim : dims)
    count *= static_cast<size_t>(dim);
  return count;
}

double HostTensor::at(size_t i) const {
  const uint8_t *p = data.data() + i * kiln_dtype_size(dtype);
  switch (dtype) {
  case KILN_DTYPE_BOOL:
  case KILN_DTYPE_U8:
    return *p;
  case KILN_DTYPE_I8:
    return static_cast<int8_t>(*p);
  case KILN_DTYPE_I16:
    return load<int16_t>(p);
  case KILN_DTYPE_U16:
    return load<uint16_t>(p);
  case KILN_DTYPE_I32:
    return load<int32_t>(p);
  case KILN_DTYPE_U32:
    return load<uint32_t>(p);
  case KILN_DTYPE_I64:
    return double(load<int64_t>(p));
  case KILN_DTYPE_U64:
    return double(load<uint64_t>(p));
  case KILN_DTYPE_F16:
    return halfToFloat(load<uint16_t>(p));
  case KILN_DTYPE_BF16:
    return bf16ToFloat(load<uint16_t>(p));
  case KILN_DTYPE_F32:
    return load<float>(p);
  case KILN_DTYPE_F64:
    return load<double>(p);
  default:
    return NAN;
  }
}

std::string shapeText(const std::vector<int64_t> &dims) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i)
    text += (i ? ", " : "") + std::to_string(dims[i]);
  return text + "]";
}

bool readTensorFile(const std::string &path, HostTensor *out,
                    std::string *error) {
  std::ifstream file(path, std::ios::binary);
  if (!file)
    return fail(error, "cannot open '" + path + "'");
  std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(file)),
                             std::istreambuf_iterator<char>());
  bool npy = path.size() >= 4 && path.compare(path.size() - 4, 4, ".npy") == 0;
  std::string message;
  bool parsed =
      npy ? parseNpy(bytes.data(), bytes.size(), out, &message)
          : parseTensorProto(bytes.data(), bytes.size(), out, &message);
  if (!parsed)
    return fail(error, "'" + path + "': " + message);
  if (out->name.empty()) {
    size_t slash = path.find_last_of('/');
    std::string stem = path.substr(slash == std::string::npos ? 0 : slash + 1);
    out->name = stem.substr(0, stem.find_last_of('.'));
  }
  return true;
}

bool convertTensor(const HostTensor &tensor, kiln_dtype_t dtype,
                   HostTensor *out, std::string *error) {
  if (tensor.dtype == dtype) {
    *out = tensor;
    return true;
  }
  // NumPy has no bfloat16: ONNX's test data (and .npy files) carry bfloat16
  // tensors as uint16 bit patterns. Take them bit for bit.
  if (tensor.dtype == KILN_DTYPE_U16 && dtype == KILN_DTYPE_BF16) {
    *out = tensor;
    out->dtype = dtype;
    return true;
  }
  auto isFloat = [](kiln_dtype_t t) {
    return t == KILN_DTYPE_F16 || t == KILN_DTYPE_BF16 || t == KILN_DTYPE_F32 ||
           t == KILN_DTYPE_F64;
  };
  if (!isFloat(dtype) || !isFloat(tensor.dtype))
    return fail(error, std::string("cannot convert ") +
                           kiln_dtype_name(tensor.dtype) + " to " +
                           kiln_dtype_name(dtype));
  HostTensor converted;
  converted.name = tensor.name;
  converted.dtype = dtype;
  converted.dims = tensor.dims;
  size_t count = tensor.elementCount(), size = kiln_dtype_size(dtype);
  converted.data.resize(count * size);
  for (size_t i = 0; i < count; ++i) {
    double value = tensor.at(i);
    uint8_t *p = converted.data.data() + i * size;
    if (dtype == KILN_DTYPE_F64) {
      std::memcpy(p, &value, 8);
    } else if (dtype == KILN_DTYPE_F32) {
      float narrow = float(value);
      std::memcpy(p, &narrow, 4);
    } else {
      uint16_t bits = dtype == KILN_DTYPE_F16 ? floatToHalf(float(value))
                                              : floatToBf16(float(value));
      std::memcpy(p, &bits, 2);
    }
  }
  *out = std::move(converted);
  return true;
}

Comparison compareTensors(const HostTensor &actual, const HostTensor &expected,
                          double rtol, double atol) {
  Comparison result;
  if (actual.elementCount() != expected.elementCount()) {
    result.shapeMatches = false;
    result.mismatches =
        std::max(actual.elementCount(), expected.elementCount());
    return result;
  }
  double errorSquares = 0, expectedSquares = 0;
  for (size_t i = 0; i < actual.elementCount(); ++i) {
    double a = actual.at(i), e = expected.at(i);
    bool bad;
    if (!std::isfinite(a) || !std::isfinite(e)) {
      // A NaN passes only where the reference holds NaN too (numpy's
      // assert_allclose, ONNX's backend runner); an infinity passes only
      // against the same infinity.
      bad = std::isnan(e) ? !std::isnan(a) : (std::isnan(a) || a != e);
      if (std::isfinite(e) && !std::isfinite(a))
        ++result.nans;
      if (bad) {
        if (result.maxAbs != INFINITY)
          result.worst = static_cast<int64_t>(i);
        result.maxAbs = result.maxRel = INFINITY;
        errorSquares = INFINITY;
      }
    } else {
      double difference = std::fabs(a - e);
      if (difference > result.maxAbs || result.worst < 0)
        result.worst = static_cast<int64_t>(i);
      result.maxAbs = std::max(result.maxAbs, difference);
      result.peak = std::max(result.peak, std::fabs(e));
      if (e != 0)
        result.maxRel = std::max(result.maxRel, difference / std::fabs(e));
      else if (difference != 0)
        result.maxRel = INFINITY;
      errorSquares += difference * difference;
      expectedSquares += e * e;
      bad = difference > atol + rtol * std::fabs(e);
    }
    if (bad) {
      ++result.mismatches;
      if (result.firstMismatch < 0)
        result.firstMismatch = static_cast<int64_t>(i);
    }
  }
  result.relL2 = expectedSquares > 0 ? std::sqrt(errorSquares / expectedSquares)
                                     : (errorSquares > 0 ? INFINITY : 0.0);
  result.peakError = result.peak > 0 ? result.maxAbs / result.peak
                                     : (result.maxAbs > 0 ? INFINITY : 0.0);
  return result;
}

double peakErrorBound(const Tolerance &tolerance) {
  if (tolerance.peakError >= 0)
    return tolerance.peakError;
  return tolerance.relL2 >= 0 ? kDefaultPeakErrorPerRelL2 * tolerance.relL2
                              : -1;
}

bool withinTolerance(const Comparison &result, const Tolerance &tolerance) {
  if (!result.shapeMatches || result.nans != 0)
    return false;
  double peakBound = peakErrorBound(tolerance);
  if (peakBound >= 0 && !(result.peakError <= peakBound))
    return false;
  return tolerance.relL2 >= 0 ? result.relL2 <= tolerance.relL2
                              : result.mismatches == 0;
}

std::string toleranceMiss(const Comparison &result, const HostTensor &actual,
                          const HostTensor &expected,
                          const Tolerance &tolerance) {
  char text[256];
  if (!result.shapeMatches) {
    std::snprintf(text, sizeof(text), "%zu elements, expected %s",
                  actual.elementCount(), shapeText(expected.dims).c_str());
    return text;
  }
  auto element = [&](int64_t index) {
    size_t i = static_cast<size_t>(std::max<int64_t>(index, 0));
    char words[128]; // Its own: |text| may hold what the caller is writing.
    std::snprintf(words, sizeof(words), "element %lld: %g vs %g expected",
                  static_cast<long long>(i), actual.at(i), expected.at(i));
    return std::string(words);
  };
  std::string nonFinite;
  if (result.nans != 0) {
    std::snprintf(text, sizeof(text), "%zu non-finite", result.nans);
    nonFinite = text;
  }
  double peakBound = peakErrorBound(tolerance);
  if (peakBound >= 0 && !(result.peakError <= peakBound)) {
    std::string where = element(result.worst);
    std::snprintf(text, sizeof(text),
                  ", off by %.3g of the reference's peak %.3g (> %.3g)",
                  result.peakError, result.peak, peakBound);
    return (nonFinite.empty() ? "" : nonFinite + "; ") + where + text;
  }
  if (tolerance.relL2 >= 0) {
    std::snprintf(text, sizeof(text), "rel-L2 %.3g > %.3g", result.relL2,
                  tolerance.relL2);
    return nonFinite.empty() || result.relL2 > tolerance.relL2
               ? text
               : nonFinite + "; " + element(result.worst);
  }
  std::snprintf(text, sizeof(text),
                "%zu of %zu elements off, %zu non-finite; "
                "first at ",
                result.mismatches, actual.elementCount(), result.nans);
  return text + element(result.firstMismatch).substr(8);
}

} // namespace kiln::run
