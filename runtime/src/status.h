// Internal status helpers: building kiln_status_t values and mapping CUDA,
// cuBLAS and cuDNN errors.
#ifndef KILN_RUNTIME_STATUS_H
#define KILN_RUNTIME_STATUS_H

#include "kiln/runtime.h"

#include <cublasLt.h>
#include <cudnn.h>
#include <cuda_runtime_api.h>

#include <sstream>
#include <string>

struct kiln_status_s {
  kiln_status_code_t code;
  std::string message;
};

namespace kiln::runtime {

/// A new error status (never NULL; |code| must not be OK).
kiln_status_t makeStatus(kiln_status_code_t code, std::string message);

/// Builds a message with <<, then converts into a status:
///   return Error(KILN_STATUS_DATA_LOSS) << "section " << i << " ...";
class Error {
public:
  explicit Error(kiln_status_code_t code) : code(code) {}
  template <typename T> Error &operator<<(const T &value) {
    stream << value;
    return *this;
  }
  operator kiln_status_t() const { return makeStatus(code, stream.str()); }

private:
  kiln_status_code_t code;
  std::ostringstream stream;
};

/// The one place CUDA runtime errors become statuses: NULL on cudaSuccess,
/// else "<what>: <cudaGetErrorName>: <cudaGetErrorString>". Clears the
/// (non-sticky) last error so that later calls do not see it again. A sticky
/// error (a kernel's illegal address, trap, ...) is DEVICE_FAULT and says
/// that the context is unusable.
kiln_status_t cudaStatus(cudaError_t error, const std::string &what);
/// The same for cuBLAS(Lt).
kiln_status_t cublasStatus(cublasStatus_t status, const std::string &what);
/// The same for cuDNN: "<what>: <cudnnGetErrorString> (<code>)".
kiln_status_t cudnnStatus(cudnnStatus_t status, const std::string &what);
/// Prefixes |status|'s message with "<context>: " (NULL stays NULL).
kiln_status_t annotate(kiln_status_t status, const std::string &context);
/// Frees |status| and returns its message ("" for NULL): a failure kept
/// as a reason rather than returned.
std::string takeMessage(kiln_status_t status);

} // namespace kiln::runtime

#define KILN_RETURN_IF_ERROR(expr)                                             \
  do {                                                                         \
    kiln_status_t kiln_status_ = (expr);                                       \
    if (kiln_status_)                                                          \
      return kiln_status_;                                                     \
  } while (0)

#endif // KILN_RUNTIME_STATUS_H
