// GPU tests of profile mode's kernel times: CUPTI's per-step durations and
// counts, and the fall back to event timing.
#include "artifact_builder.h"
#include "gpu_kernels.h"
#include "test_util.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>

using namespace kiln::testing;

namespace {

// CUDA events resolve about half a microsecond: a step's kernel time may
// exceed its event-timed replay by that much at most.
constexpr float kEventResolutionMs = 0.001f;

bool cuptiDisabled() {
  const char *setting = std::getenv("KILN_CUPTI");
  return setting && std::strcmp(setting, "0") == 0;
}

class ProfileTest : public ::testing::Test {
protected:
  void SetUp() override {
    if (!hasCudaDevice())
      GTEST_SKIP() << "no CUDA device";
    ASSERT_TRUE(compiledKernels().error.empty()) << compiledKernels().error;
    ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
    for (float **buffer : {&x, &y})
      ASSERT_EQ(cudaMalloc(reinterpret_cast<void **>(buffer), 4096),
                cudaSuccess);
  }
  void TearDown() override {
    kiln_session_release(session);
    kiln_model_release(model);
    for (float *buffer : {x, y})
      cudaFree(buffer);
    if (stream)
      cudaStreamDestroy(stream);
  }

  /// Creates |session| for the sample (two streams: it has event steps) with
  /// |profile| and |debug| and binds x and y.
  void createSession(int profile, int debug) {
    SampleOptions options = deviceSample();
    options.twoStreams = true;
    std::vector<uint8_t> bytes = sampleArtifact(options);
    ASSERT_TRUE(isOk(kiln_model_load_from_memory(bytes.data(), bytes.size(),
                                                 nullptr, &model)));
    kiln_session_options_t sessionOptions;
    kiln_session_options_init(&sessionOptions);
    sessionOptions.profile = profile;
    sessionOptions.debug = debug;
    ASSERT_TRUE(isOk(kiln_session_create(model, &sessionOptions, &session)));
    kiln_tensor_t in = kiln_device_tensor(x, kIn * 4),
                  out = kiln_device_tensor(y, kOut * 4);
    ASSERT_TRUE(isOk(kiln_session_bind_input(session, "x", &in)));
    ASSERT_TRUE(isOk(kiln_session_bind_output(session, "y", &out)));
  }

  /// Runs the session on a fresh input and checks its output.
  void runAndCheck(float seed) {
    std::vector<float> input = sampleInput(seed), expected = reference(input);
    ASSERT_EQ(cudaMemcpy(x, input.data(), kIn * 4, cudaMemcpyHostToDevice),
              cudaSuccess);
    ASSERT_TRUE(isOk(kiln_session_run(session, stream)));
    ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    std::vector<float> actual(kOut);
    ASSERT_EQ(cudaMemcpy(actual.data(), y, kOut * 4, cudaMemcpyDeviceToHost),
              cudaSuccess);
    for (int i = 0; i < kOut; ++i)
      ASSERT_NEAR(actual[i], expected[i], 1e-4f * (1 + std::fabs(expected[i])))
          << "at " << i;
  }

  std::string source() {
    const char *text = nullptr;
    EXPECT_TRUE(isOk(kiln_session_profile_source(session, &text)));
    return text ? text : "(none)";
  }

  /// Checks CUPTI's times of every step of the last run against its events.
  void expectKernelTimes() {
    ASSERT_EQ(source(), "cupti");
    size_t kernelSteps = 0;
    for (size_t i = 0; i < kiln_session_step_count(session); ++i) {
      kiln_step_profile_t step;
      ASSERT_TRUE(isOk(kiln_session_step_profile(session, i, &step)));
      std::string kind = step.kind;
      SCOPED_TRACE("step " + std::to_string(i) + " (" + kind + ")");
      if (kind == "record_event" || kind == "wait_event") {
        EXPECT_EQ(step.kernel_count, 0);
        EXPECT_EQ(step.kernel_ms, 0.0f);
        continue;
      }
      ++kernelSteps;
      EXPECT_GE(step.kernel_count, 1);
      if (kind == "launch") {
        EXPECT_EQ(step.kernel_count, 1); // One NVRTC kernel.
      }
      EXPECT_GT(step.kernel_ms, 0.0f);
      // The replay between events adds the graph launch to the same work.
      EXPECT_LE(step.kernel_ms, step.duration_ms + kEventResolutionMs);
      // One stream: the kernels run one after another within their span.
      EXPECT_GE(step.kernel_span_ms, step.kernel_ms * 0.999f);
      EXPECT_LE(step.kernel_span_ms, step.duration_ms + kEventResolutionMs);
    }
    EXPECT_EQ(kernelSteps, 2u); // The gemm and the launch.
  }

  cudaStream_t stream = nullptr;
  float *x = nullptr, *y = nullptr;
  kiln_model_t *model = nullptr;
  kiln_session_t *session = nullptr;
};

TEST_F(ProfileTest, CuptiTimesTheKernelsOfEachStep) {
  if (cuptiDisabled())
    GTEST_SKIP() << "KILN_CUPTI=0";
  createSession(/*profile=*/1, /*debug=*/0);
  EXPECT_EQ(source(), "cupti"); // libcupti loaded at creation.
  // Every run collects anew: the first captures the steps' graphs, the
  // second replays them.
  for (int run = 0; run < 2; ++run) {
    SCOPED_TRACE("run " + std::to_string(run));
    runAndCheck(1.0f + run);
    expectKernelTimes();
  }
}

TEST_F(ProfileTest, DebugProfileModeTimesTheStepsItEnqueues) {
  if (cuptiDisabled())
    GTEST_SKIP() << "KILN_CUPTI=0";
  createSession(/*profile=*/1, /*debug=*/1);
  runAndCheck(3.0f);
  expectKernelTimes();
}

TEST_F(ProfileTest, KilnCuptiZeroFallsBackToEvents) {
  const char *saved = std::getenv("KILN_CUPTI");
  std::string previous = saved ? saved : "";
  setenv("KILN_CUPTI", "0", 1);
  createSession(/*profile=*/1, /*debug=*/0);
  runAndCheck(4.0f);
  if (saved)
    setenv("KILN_CUPTI", previous.c_str(), 1);
  else
    unsetenv("KILN_CUPTI");
  EXPECT_EQ(source(), "events: KILN_CUPTI=0");
  for (size_t i = 0; i < kiln_session_step_count(session); ++i) {
    kiln_step_profile_t step;
    ASSERT_TRUE(isOk(kiln_session_step_profile(session, i, &step)));
    EXPECT_GE(step.duration_ms, 0.0f);
    EXPECT_EQ(step.kernel_ms, -1.0f);
    EXPECT_EQ(step.kernel_count, -1);
    EXPECT_EQ(step.kernel_span_ms, -1.0f);
  }
}

TEST_F(ProfileTest, OutsideProfileModeThereAreNoKernelTimes) {
  createSession(/*profile=*/0, /*debug=*/0);
  runAndCheck(5.0f);
  const char *text = "unchanged";
  EXPECT_TRUE(isError(kiln_session_profile_source(session, &text),
                      KILN_STATUS_FAILED_PRECONDITION, "not in profile mode"));
  EXPECT_EQ(text, nullptr);
  kiln_step_profile_t step;
  ASSERT_TRUE(isOk(kiln_session_step_profile(session, 0, &step)));
  EXPECT_EQ(step.duration_ms, -1.0f);
  EXPECT_EQ(step.kernel_ms, -1.0f);
  EXPECT_EQ(step.kernel_count, -1);
}

} // namespace
