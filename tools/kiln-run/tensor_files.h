// Host tensors for kiln-run: .npy and ONNX TensorProto (.pb) readers, an .npy
// writer, and comparison.
#ifndef KILN_RUN_TENSOR_FILES_H
#define KILN_RUN_TENSOR_FILES_H

#include "kiln/runtime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::run {

/// A dense row-major tensor in host memory.
struct HostTensor {
  std::string name; // From a TensorProto's name, or the file's stem.
  kiln_dtype_t dtype = KILN_DTYPE_UNSPECIFIED;
  std::vector<int64_t> dims;
  std::vector<uint8_t> data;

  size_t elementCount() const;
  /// Element |index| as a double (f16/bf16 decoded).
  double at(size_t index) const;
};

/// Parses a NumPy .npy file (format 1.0-3.0, little-endian, C order).
bool parseNpy(const uint8_t *data, size_t size, HostTensor *out,
              std::string *error);
/// Parses a serialized onnx.TensorProto with a small wire-format reader:
/// dims, data_type, name, raw_data and the typed *_data fields.
bool parseTensorProto(const uint8_t *data, size_t size, HostTensor *out,
                      std::string *error);
/// Reads |path|: .npy by extension, anything else as a TensorProto. The name
/// defaults to the file's stem.
bool readTensorFile(const std::string &path, HostTensor *out,
                    std::string *error);
/// Writes |tensor| as .npy (bf16 is written as float32).
bool writeNpy(const std::string &path, const HostTensor &tensor,
              std::string *error);
/// Converts |tensor| to |dtype| (between floating types, or same type).
bool convertTensor(const HostTensor &tensor, kiln_dtype_t dtype,
                   HostTensor *out, std::string *error);
std::string shapeText(const std::vector<int64_t> &dims);

/// How an output compares with its expected value.
struct Comparison {
  double maxAbs = 0, maxRel = 0, relL2 = 0;
  /// The largest finite |expected|, and the largest error as a fraction of
  /// it (max |actual - expected| / peak; infinite where an error sits on a
  /// reference of zeros).
  double peak = 0, peakError = 0;
  size_t mismatches = 0; // Outside atol + rtol * |expected|, or NaN in actual.
  size_t nans = 0; // Non-finite values in actual where expected is finite.
  int64_t firstMismatch = -1;
  int64_t worst = -1; // The element farthest from expected (its first).
  bool shapeMatches = true;
};
/// Compares elementwise as numpy.allclose does, except that NaN never passes.
Comparison compareTensors(const HostTensor &actual, const HostTensor &expected,
                          double rtol, double atol);

/// The bounds an output is held to: elementwise |actual - expected| <=
/// atol + rtol * |expected| unless relL2 is given (>= 0); then the relative
/// L2 error at most relL2 *and* every element within peakError of the
/// reference's peak (max |actual - expected| <= peakError * max |expected|;
/// kDefaultPeakErrorPerRelL2 * relL2 when peakError is not given). rel-L2
/// alone would pass a large output with a few elements far off (a race, a
/// tail a vector loop misses); the peak bound fails those without failing
/// the spread-out rounding error of a reduced precision. peakError may be
/// given without relL2 too: it then bounds alongside rtol/atol.
struct Tolerance {
  double rtol = 1e-4, atol = 1e-5, relL2 = -1, peakError = -1;
};
constexpr double kDefaultPeakErrorPerRelL2 = 10;
/// The peak bound in force (< 0: none).
double peakErrorBound(const Tolerance &tolerance);
/// Whether |result| is within |tolerance|, with non-finite values only
/// where the reference has them.
bool withinTolerance(const Comparison &result, const Tolerance &tolerance);
/// Why |result| is not within |tolerance|, in a few words naming the bound
/// missed and the element farthest off ("rel-L2 0.02 > 0.01", "element 17:
/// 3.5 vs 0.25 expected, off by 0.41 of the peak 7.9 (> 0.1)").
std::string toleranceMiss(const Comparison &result, const HostTensor &actual,
                          const HostTensor &expected,
                          const Tolerance &tolerance);

} // namespace kiln::run

#endif // KILN_RUN_TENSOR_FILES_H
