// Reading and writing host tensors as ONNX TensorProto (.pb) and NumPy (.npy)
// files, and comparing tensors with ONNX's backend-test tolerances.
#ifndef KILN_EVALUATOR_TENSORIO_H
#define KILN_EVALUATOR_TENSORIO_H

#include "kiln/Evaluator/Tensor.h"

#include "llvm/Support/Error.h"

#include <string>

namespace kiln::eval {

struct NamedTensor {
  std::string name; // TensorProto name; empty for .npy files.
  Tensor tensor;
};

/// Reads a serialized onnx.TensorProto (raw_data or typed fields).
/// The element count of a |dtype| tensor of |shape| read from a file, with
/// checked arithmetic: an error for a negative dim, or when the count or the
/// size in bytes overflows int64. Every shape read from a file goes through
/// it before anything is allocated.
llvm::Expected<int64_t>
checkedTensorElementCount(DType dtype, llvm::ArrayRef<int64_t> shape);

llvm::Expected<NamedTensor> readTensorProto(const std::string &path);
/// Reads a .npy file (little-endian, C order).
llvm::Expected<NamedTensor> readNpy(const std::string &path);
/// Dispatches on the extension (.pb or .npy).
llvm::Expected<NamedTensor> readTensorFile(const std::string &path);
/// Reads every input_N.pb / output_N.pb (or *.npy) in |directory|, ordered by
/// N, or all files sorted by name when they are not numbered. A directory
/// without such files gives an empty list (a model without inputs).
llvm::Expected<std::vector<NamedTensor>>
readTensorDirectory(const std::string &directory, const std::string &prefix);

llvm::Error writeNpy(const std::string &path, const Tensor &tensor);
llvm::Error writeTensorProto(const std::string &path, const NamedTensor &value);

struct Comparison {
  bool matches = false;
  double maxAbsError = 0;
  double maxRelError = 0;
  int64_t mismatches = 0;
  std::string message; // Why it failed: shape, dtype, NaN, tolerance.
};

/// numpy.testing.assert_allclose semantics: |a - e| <= atol + rtol * |e|,
/// NaN matches NaN only, shapes and dtypes must agree.
Comparison compareTensors(const Tensor &actual, const Tensor &expected,
                          double rtol, double atol);

} // namespace kiln::eval

#endif // KILN_EVALUATOR_TENSORIO_H
