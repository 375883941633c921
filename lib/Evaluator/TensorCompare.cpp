// Comparing an actual tensor with an expected one under numpy allclose rules.
#include "kiln/Evaluator/TensorIO.h"

#include <cmath>
#include <sstream>

namespace kiln::eval {
namespace {

std::string positionOf(llvm::ArrayRef<int64_t> shape, int64_t flat) {
  std::vector<int64_t> index(shape.size());
  for (int64_t dim = static_cast<int64_t>(shape.size()) - 1; dim >= 0; --dim) {
    index[dim] = flat % shape[dim];
    flat /= shape[dim];
  }
  std::string text = "[";
  for (size_t i = 0; i < index.size(); ++i)
    text += (i ? ", " : "") + std::to_string(index[i]);
  return text + "]";
}

} // namespace

Comparison compareTensors(const Tensor &actual, const Tensor &expected,
                          double rtol, double atol) {
  Comparison result;
  if (actual.dtype() != expected.dtype()) {
    result.message = std::string("dtype ") + dtypeName(actual.dtype()) +
                     ", expected " + dtypeName(expected.dtype());
    return result;
  }
  if (actual.shape() != expected.shape()) {
    result.message =
        "shape " + actual.describe() + ", expected " + expected.describe();
    return result;
  }
  int64_t firstMismatch = -1;
  for (int64_t i = 0; i < actual.numElements(); ++i) {
    double a = actual.getDouble(i), e = expected.getDouble(i);
    bool close;
    if (std::isnan(a) || std::isnan(e)) {
      close = std::isnan(a) && std::isnan(e);
    } else if (std::isinf(a) || std::isinf(e)) {
      close = a == e;
    } else {
      double absError = std::fabs(a - e);
      close = absError <= atol + rtol * std::fabs(e);
      result.maxAbsError = std::max(result.maxAbsError, absError);
      if (e != 0.0)
        result.maxRelError =
            std::max(result.maxRelError, absError / std::fabs(e));
    }
    if (!close) {
      ++result.mismatches;
      if (firstMismatch < 0)
        firstMismatch = i;
    }
  }
  result.matches = result.mismatches == 0;
  if (!result.matches) {
    std::ostringstream os;
    os.precision(9);
    os << result.mismatches << " of " << actual.numElements()
       << " elements differ; first at "
       << positionOf(actual.shape(), firstMismatch) << ": got "
       << actual.getDouble(firstMismatch) << ", expected "
       << expected.getDouble(firstMismatch);
    result.message = os.str();
  }
  return result;
}

} // namespace kiln::eval
