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
  size_t mismatches = 0; // Outside atol + rtol * |expected|, or NaN in actual.
  size_t nans = 0; // Non-finite values in actual where expected is finite.
  int64_t firstMismatch = -1;
  bool shapeMatches = true;
};
/// Compares elementwise as numpy.allclose does, except that NaN never passes.
Comparison compareTensors(const HostTensor &actual, const HostTensor &expected,
                          double rtol, double atol);

} // namespace kiln::run

#endif // KILN_RUN_TENSOR_FILES_H
