// SessionTest: the GTest fixture the GPU session tests share: a stream and
// three device buffers, and helpers to load the sample artifact, upload,
// poison, download, compare and bind.
#ifndef KILN_RUNTIME_TEST_SESSION_FIXTURE_H
#define KILN_RUNTIME_TEST_SESSION_FIXTURE_H

#include "artifact_builder.h"
#include "gpu_kernels.h"
#include "test_util.h"

#include "kiln/runtime.h"

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <vector>

namespace kiln::testing {

class SessionTest : public ::testing::Test {
protected:
  void SetUp() override {
    if (!hasCudaDevice())
      GTEST_SKIP() << "no CUDA device";
    ASSERT_TRUE(compiledKernels().error.empty()) << compiledKernels().error;
    ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
    for (float **buffer : {&x, &y, &y2})
      ASSERT_EQ(cudaMalloc(reinterpret_cast<void **>(buffer), 4096),
                cudaSuccess);
  }
  void TearDown() override {
    for (float *buffer : {x, y, y2})
      cudaFree(buffer);
    if (stream)
      cudaStreamDestroy(stream);
  }

  kiln_status_t load(const SampleOptions &options, kiln_model_t **model) {
    std::vector<uint8_t> bytes = sampleArtifact(options);
    return kiln_model_load_from_memory(bytes.data(), bytes.size(), nullptr,
                                       model);
  }
  void upload(const std::vector<float> &values) {
    ASSERT_EQ(
        cudaMemcpy(x, values.data(), values.size() * 4, cudaMemcpyHostToDevice),
        cudaSuccess);
  }
  /// Fills |buffer| with NaN so that an output never written cannot pass.
  void poison(float *buffer) {
    ASSERT_EQ(cudaMemset(buffer, 0xff, 4096), cudaSuccess);
  }
  std::vector<float> download(const float *buffer) {
    std::vector<float> values(kOut);
    EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    EXPECT_EQ(
        cudaMemcpy(values.data(), buffer, kOut * 4, cudaMemcpyDeviceToHost),
        cudaSuccess);
    return values;
  }
  void expectNear(const std::vector<float> &actual,
                  const std::vector<float> &expected) {
    ASSERT_EQ(actual.size(), expected.size());
    for (size_t i = 0; i < actual.size(); ++i)
      ASSERT_NEAR(actual[i], expected[i], 1e-4f * (1 + std::fabs(expected[i])))
          << "at " << i;
  }
  void bindDevice(kiln_session_t *session, float *output) {
    kiln_tensor_t in = kiln_device_tensor(x, kIn * 4),
                  out = kiln_device_tensor(output, kOut * 4);
    ASSERT_TRUE(isOk(kiln_session_bind_input(session, "x", &in)));
    ASSERT_TRUE(isOk(kiln_session_bind_output(session, "y", &out)));
  }

  cudaStream_t stream = nullptr;
  float *x = nullptr, *y = nullptr, *y2 = nullptr;
};

} // namespace kiln::testing

#endif // KILN_RUNTIME_TEST_SESSION_FIXTURE_H
