// GPU tests: a kernel's device fault (an illegal address) is reported as
// DEVICE_FAULT naming the step, its ONNX nodes and the CUDA kernel in debug
// mode, and the session then refuses to run. A fault ruins the process's CUDA
// context, so each case runs in a child process (a death test that re-runs
// this binary).
#include "artifact_builder.h"
#include "gpu_kernels.h"
#include "test_util.h"

#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <string>

using namespace kiln::testing;

namespace {

/// In the child: loads the sample whose kernel writes 4 TiB past its output,
/// runs it (debug mode or graph mode), prints what each call returned on
/// stderr and exits 0 when they are the expected statuses.
[[noreturn]] void runFaultingSample(bool debug) {
  SampleOptions options = deviceSample();
  options.kernelSymbol = "wild_write";
  std::vector<uint8_t> bytes = sampleArtifact(options);
  kiln_model_t *model = nullptr;
  kiln_session_t *session = nullptr;
  kiln_session_options_t sessionOptions;
  kiln_session_options_init(&sessionOptions);
  sessionOptions.debug = debug;
  void *x = nullptr, *y = nullptr;
  cudaStream_t stream = nullptr;
  if (!isOk(kiln_model_load_from_memory(bytes.data(), bytes.size(), nullptr,
                                        &model)) ||
      !isOk(kiln_session_create(model, &sessionOptions, &session)) ||
      cudaMalloc(&x, 4096) != cudaSuccess ||
      cudaMalloc(&y, 4096) != cudaSuccess ||
      cudaStreamCreate(&stream) != cudaSuccess)
    std::_Exit(10);
  kiln_tensor_t in = kiln_device_tensor(x, kIn * 4),
                out = kiln_device_tensor(y, kOut * 4);
  if (!isOk(kiln_session_bind_input(session, "x", &in)) ||
      !isOk(kiln_session_bind_output(session, "y", &out)))
    std::_Exit(11);
  kiln_status_t first = kiln_session_run(session, stream);
  if (!debug && !first) {
    // Graph mode returns before the fault: it shows at the next sync.
    cudaError_t synced = cudaStreamSynchronize(stream);
    std::fprintf(stderr, "sync: %s\n", cudaGetErrorName(synced));
    first = kiln_session_run(session, stream);
  }
  kiln_status_t second = kiln_session_run(session, stream);
  std::fprintf(stderr, "first: %s: %s\nsecond: %s: %s\n",
               kiln_status_code_name(kiln_status_code(first)),
               kiln_status_message(first),
               kiln_status_code_name(kiln_status_code(second)),
               kiln_status_message(second));
  bool expected = kiln_status_code(first) == KILN_STATUS_DEVICE_FAULT &&
                  kiln_status_code(second) == KILN_STATUS_DEVICE_FAULT;
  std::fflush(stderr);
  std::_Exit(expected ? 0 : 1);
}

class DeviceFaultTest : public ::testing::Test {
protected:
  void SetUp() override {
    if (!hasCudaDevice())
      GTEST_SKIP() << "no CUDA device";
    ASSERT_TRUE(compiledKernels().error.empty()) << compiledKernels().error;
    // The child re-executes this binary: no CUDA state is inherited.
    GTEST_FLAG_SET(death_test_style, "threadsafe");
  }
};

TEST_F(DeviceFaultTest, DebugModeNamesTheFaultingKernel) {
  EXPECT_EXIT(
      runFaultingSample(/*debug=*/true), ::testing::ExitedWithCode(0),
      "first: DEVICE_FAULT: step 1 'kernel_scale_add' \\(launch; ONNX nodes: "
      "/post/Mul, /post/Add\\) in CUDA kernel wild_write: "
      "cudaErrorIllegalAddress: .*the CUDA context is now unusable.*\n"
      "second: DEVICE_FAULT: the session cannot run: an earlier run hit a "
      "device fault");
}

TEST_F(DeviceFaultTest, GraphModeReportsTheUnusableContext) {
  EXPECT_EXIT(runFaultingSample(/*debug=*/false), ::testing::ExitedWithCode(0),
              "sync: cudaErrorIllegalAddress\nfirst: DEVICE_FAULT: .*KILN_DEBUG"
              "=1.*\nsecond: DEVICE_FAULT: the session cannot run");
}

} // namespace
