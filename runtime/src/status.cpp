// kiln_status_t: the C API's error values, and the single mapping of CUDA,
// cuBLAS and cuDNN errors.
#include "status.h"

using namespace kiln::runtime;

namespace kiln::runtime {

kiln_status_t makeStatus(kiln_status_code_t code, std::string message) {
  if (code == KILN_STATUS_OK)
    code = KILN_STATUS_INTERNAL;
  return new kiln_status_s{code, std::move(message)};
}

kiln_status_t cudaStatus(cudaError_t error, const std::string &what) {
  if (error == cudaSuccess)
    return nullptr;
  cudaGetLastError(); // Reset the non-sticky error that this call reported.
  kiln_status_code_t code = KILN_STATUS_CUDA_ERROR;
  switch (error) {
  case cudaErrorNoDevice:
  case cudaErrorInsufficientDriver:
  case cudaErrorDevicesUnavailable:
    code = KILN_STATUS_UNAVAILABLE;
    break;
  case cudaErrorMemoryAllocation:
    code = KILN_STATUS_RESOURCE_EXHAUSTED;
    break;
  case cudaErrorIllegalAddress:
  case cudaErrorLaunchTimeout:
  case cudaErrorAssert:
  case cudaErrorHardwareStackError:
  case cudaErrorIllegalInstruction:
  case cudaErrorMisalignedAddress:
  case cudaErrorInvalidAddressSpace:
  case cudaErrorInvalidPc:
  case cudaErrorLaunchFailure:
  case cudaErrorTensorMemoryLeak:
  case cudaErrorECCUncorrectable:
  case cudaErrorNvlinkUncorrectable:
  case cudaErrorContextIsDestroyed:
    return Error(KILN_STATUS_DEVICE_FAULT)
           << what << ": " << cudaGetErrorName(error) << ": "
           << cudaGetErrorString(error)
           << " (a device fault: the CUDA context is now unusable and every "
              "later CUDA call in this process fails; start a new process)";
  case cudaErrorNoKernelImageForDevice:
  case cudaErrorUnsupportedPtxVersion:
  case cudaErrorInvalidPtx:
    code = KILN_STATUS_INCOMPATIBLE;
    break;
  default:
    break;
  }
  return Error(code) << what << ": " << cudaGetErrorName(error) << ": "
                     << cudaGetErrorString(error);
}

static const char *cublasStatusName(cublasStatus_t status) {
  switch (status) {
  case CUBLAS_STATUS_NOT_INITIALIZED:
    return "CUBLAS_STATUS_NOT_INITIALIZED";
  case CUBLAS_STATUS_ALLOC_FAILED:
    return "CUBLAS_STATUS_ALLOC_FAILED";
  case CUBLAS_STATUS_INVALID_VALUE:
    return "CUBLAS_STATUS_INVALID_VALUE";
  case CUBLAS_STATUS_ARCH_MISMATCH:
    return "CUBLAS_STATUS_ARCH_MISMATCH";
  case CUBLAS_STATUS_MAPPING_ERROR:
    return "CUBLAS_STATUS_MAPPING_ERROR";
  case CUBLAS_STATUS_EXECUTION_FAILED:
    return "CUBLAS_STATUS_EXECUTION_FAILED";
  case CUBLAS_STATUS_INTERNAL_ERROR:
    return "CUBLAS_STATUS_INTERNAL_ERROR";
  case CUBLAS_STATUS_NOT_SUPPORTED:
    return "CUBLAS_STATUS_NOT_SUPPORTED";
  case CUBLAS_STATUS_LICENSE_ERROR:
    return "CUBLAS_STATUS_LICENSE_ERROR";
  default:
    return "CUBLAS_STATUS_UNKNOWN";
  }
}

kiln_status_t cublasStatus(cublasStatus_t status, const std::string &what) {
  if (status == CUBLAS_STATUS_SUCCESS)
    return nullptr;
  kiln_status_code_t code = KILN_STATUS_CUDA_ERROR;
  if (status == CUBLAS_STATUS_ALLOC_FAILED)
    code = KILN_STATUS_RESOURCE_EXHAUSTED;
  else if (status == CUBLAS_STATUS_NOT_SUPPORTED ||
           status == CUBLAS_STATUS_ARCH_MISMATCH)
    code = KILN_STATUS_INCOMPATIBLE;
  return Error(code) << what << ": " << cublasStatusName(status) << " ("
                     << static_cast<int>(status) << ")";
}

kiln_status_t cudnnStatus(cudnnStatus_t status, const std::string &what) {
  if (status == CUDNN_STATUS_SUCCESS)
    return nullptr;
  // cuDNN 9 codes are families (hundreds) refined by the last digits.
  kiln_status_code_t code = KILN_STATUS_CUDA_ERROR;
  if (status == CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED ||
      status == CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED)
    code = KILN_STATUS_RESOURCE_EXHAUSTED;
  else if (status / 1000 == CUDNN_STATUS_NOT_SUPPORTED / 1000 ||
           status == CUDNN_STATUS_SUBLIBRARY_VERSION_MISMATCH ||
           status == CUDNN_STATUS_SUBLIBRARY_LOADING_FAILED)
    code = KILN_STATUS_INCOMPATIBLE;
  return Error(code) << what << ": " << cudnnGetErrorString(status) << " ("
                     << static_cast<int>(status) << ")";
}

kiln_status_t annotate(kiln_status_t status, const std::string &context) {
  if (status)
    status->message = context + ": " + status->message;
  return status;
}

std::string takeMessage(kiln_status_t status) {
  std::string text = status ? status->message : "";
  kiln_status_free(status);
  return text;
}

} // namespace kiln::runtime

extern "C" {

kiln_status_code_t kiln_status_code(kiln_status_t status) {
  return status ? status->code : KILN_STATUS_OK;
}

const char *kiln_status_message(kiln_status_t status) {
  return status ? status->message.c_str() : "";
}

void kiln_status_free(kiln_status_t status) { delete status; }

const char *kiln_status_code_name(kiln_status_code_t code) {
  switch (code) {
  case KILN_STATUS_OK:
    return "OK";
  case KILN_STATUS_INVALID_ARGUMENT:
    return "INVALID_ARGUMENT";
  case KILN_STATUS_NOT_FOUND:
    return "NOT_FOUND";
  case KILN_STATUS_DATA_LOSS:
    return "DATA_LOSS";
  case KILN_STATUS_INCOMPATIBLE:
    return "INCOMPATIBLE";
  case KILN_STATUS_UNAVAILABLE:
    return "UNAVAILABLE";
  case KILN_STATUS_RESOURCE_EXHAUSTED:
    return "RESOURCE_EXHAUSTED";
  case KILN_STATUS_FAILED_PRECONDITION:
    return "FAILED_PRECONDITION";
  case KILN_STATUS_CUDA_ERROR:
    return "CUDA_ERROR";
  case KILN_STATUS_NUMERIC_ERROR:
    return "NUMERIC_ERROR";
  case KILN_STATUS_INTERNAL:
    return "INTERNAL";
  case KILN_STATUS_DEVICE_FAULT:
    return "DEVICE_FAULT";
  case KILN_STATUS_CANCELLED:
    return "CANCELLED";
  }
  return "UNKNOWN";
}

size_t kiln_dtype_size(kiln_dtype_t dtype) {
  switch (dtype) {
  case KILN_DTYPE_BOOL:
  case KILN_DTYPE_I8:
  case KILN_DTYPE_U8:
    return 1;
  case KILN_DTYPE_I16:
  case KILN_DTYPE_U16:
  case KILN_DTYPE_F16:
  case KILN_DTYPE_BF16:
    return 2;
  case KILN_DTYPE_I32:
  case KILN_DTYPE_U32:
  case KILN_DTYPE_F32:
    return 4;
  case KILN_DTYPE_I64:
  case KILN_DTYPE_U64:
  case KILN_DTYPE_F64:
    return 8;
  default:
    return 0;
  }
}

const char *kiln_dtype_name(kiln_dtype_t dtype) {
  static const char *const names[] = {
      "unspecified", "bool", "i8",  "i16", "i32",  "i64", "u8",
      "u16",         "u32",  "u64", "f16", "bf16", "f32", "f64"};
  unsigned index = static_cast<unsigned>(dtype);
  return index < sizeof(names) / sizeof(names[0]) ? names[index] : "invalid";
}

} // extern "C"
