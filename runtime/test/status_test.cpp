// Tests of kiln_status_t, the CUDA/cuBLAS error mapping and the C API's
// argument checks.
#include "status.h"
#include "test_util.h"

using namespace kiln::runtime;
using namespace kiln::testing;

namespace {

TEST(StatusTest, NullIsOk) {
  EXPECT_EQ(kiln_status_code(nullptr), KILN_STATUS_OK);
  EXPECT_STREQ(kiln_status_message(nullptr), "");
  kiln_status_free(nullptr);
}

TEST(StatusTest, ErrorCarriesCodeAndMessage) {
  kiln_status_t status = Error(KILN_STATUS_NOT_FOUND) << "input '"
                                                      << "x"
                                                      << "' " << 42;
  EXPECT_EQ(kiln_status_code(status), KILN_STATUS_NOT_FOUND);
  EXPECT_STREQ(kiln_status_message(status), "input 'x' 42");
  status = annotate(status, "step 3");
  EXPECT_STREQ(kiln_status_message(status), "step 3: input 'x' 42");
  kiln_status_free(status);
  EXPECT_EQ(annotate(nullptr, "nothing"), nullptr);
  EXPECT_STREQ(kiln_status_code_name(KILN_STATUS_DATA_LOSS), "DATA_LOSS");
  EXPECT_STREQ(kiln_status_code_name(KILN_STATUS_CANCELLED), "CANCELLED");
}

TEST(StatusTest, CudaErrorsAreMappedInOnePlace) {
  EXPECT_EQ(cudaStatus(cudaSuccess, "nothing"), nullptr);
  EXPECT_TRUE(isError(cudaStatus(cudaErrorMemoryAllocation, "cudaMalloc"),
                      KILN_STATUS_RESOURCE_EXHAUSTED,
                      "cudaMalloc: cudaErrorMemoryAllocation: "));
  EXPECT_TRUE(
      isError(cudaStatus(cudaErrorInsufficientDriver, "cudaGetDeviceCount"),
              KILN_STATUS_UNAVAILABLE, "cudaErrorInsufficientDriver"));
  EXPECT_TRUE(isError(cudaStatus(cudaErrorNoKernelImageForDevice, "launch"),
                      KILN_STATUS_INCOMPATIBLE, "launch"));
  EXPECT_TRUE(isError(cudaStatus(cudaErrorIllegalAddress, "step 2 'k'"),
                      KILN_STATUS_DEVICE_FAULT,
                      "step 2 'k': cudaErrorIllegalAddress"));
  EXPECT_TRUE(isError(cudaStatus(cudaErrorLaunchFailure, "step 1"),
                      KILN_STATUS_DEVICE_FAULT,
                      "the CUDA context is now unusable"));
  EXPECT_STREQ(kiln_status_code_name(KILN_STATUS_DEVICE_FAULT),
               "DEVICE_FAULT");
  EXPECT_TRUE(isError(
      cublasStatus(CUBLAS_STATUS_NOT_SUPPORTED, "cublasLtMatmul"),
      KILN_STATUS_INCOMPATIBLE, "cublasLtMatmul: CUBLAS_STATUS_NOT_SUPPORTED"));
  EXPECT_EQ(cublasStatus(CUBLAS_STATUS_SUCCESS, "x"), nullptr);
}

TEST(StatusTest, CudnnErrors) {
  // The message names the call and cuDNN's own description and code.
  EXPECT_TRUE(isError(cudnnStatus(CUDNN_STATUS_NOT_SUPPORTED_ARCH_MISMATCH,
                                  "cudnnConvolutionForward"),
                      KILN_STATUS_INCOMPATIBLE, "cudnnConvolutionForward: "));
  EXPECT_TRUE(isError(
      cudnnStatus(CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED, "x"),
      KILN_STATUS_RESOURCE_EXHAUSTED, "(4004)"));
  EXPECT_TRUE(isError(cudnnStatus(CUDNN_STATUS_BAD_PARAM, "describing w"),
                      KILN_STATUS_CUDA_ERROR, "describing w: "));
  EXPECT_EQ(cudnnStatus(CUDNN_STATUS_SUCCESS, "x"), nullptr);
}

TEST(StatusTest, DTypes) {
  EXPECT_EQ(kiln_dtype_size(KILN_DTYPE_F32), 4u);
  EXPECT_EQ(kiln_dtype_size(KILN_DTYPE_BF16), 2u);
  EXPECT_EQ(kiln_dtype_size(KILN_DTYPE_UNSPECIFIED), 0u);
  EXPECT_STREQ(kiln_dtype_name(KILN_DTYPE_F16), "f16");
  // A value that names no dtype. 15 is inside the enum's range (its
  // enumerators 0..13 need 4 bits), so the C++ cast is defined; 99 would be
  // undefined behaviour in the test itself (UBSan's enum check).
  EXPECT_STREQ(kiln_dtype_name(static_cast<kiln_dtype_t>(15)), "invalid");
}

TEST(StatusTest, NullArgumentsAreErrorsAndOutputsAreCleared) {
  kiln_model_t *model = reinterpret_cast<kiln_model_t *>(0x10);
  EXPECT_TRUE(isError(kiln_model_load(nullptr, nullptr, &model),
                      KILN_STATUS_INVALID_ARGUMENT, "path is NULL"));
  EXPECT_EQ(model, nullptr);
  EXPECT_TRUE(isError(kiln_model_load("x", nullptr, nullptr),
                      KILN_STATUS_INVALID_ARGUMENT));
  kiln_session_t *session = reinterpret_cast<kiln_session_t *>(0x10);
  EXPECT_TRUE(isError(kiln_session_create(nullptr, nullptr, &session),
                      KILN_STATUS_INVALID_ARGUMENT, "model is NULL"));
  EXPECT_EQ(session, nullptr);
  EXPECT_TRUE(isError(kiln_session_run(nullptr, nullptr),
                      KILN_STATUS_INVALID_ARGUMENT));
  kiln_tensor_t tensor = kiln_device_tensor(nullptr, 0);
  EXPECT_TRUE(isError(kiln_session_bind_input(nullptr, "x", &tensor),
                      KILN_STATUS_INVALID_ARGUMENT));
  kiln_tensor_info_t info;
  EXPECT_TRUE(isError(kiln_model_input_info(nullptr, 0, 0, &info),
                      KILN_STATUS_INVALID_ARGUMENT));
  EXPECT_EQ(kiln_model_input_count(nullptr, 0), 0u);
  EXPECT_EQ(kiln_model_entry_point_name(nullptr, 0), nullptr);
  kiln_model_release(nullptr);
  kiln_session_release(nullptr);
}

} // namespace
