// GPU tests of profile mode's kernel times: CUPTI's per-step durations and
// counts, and the fall back to event timing.
#include "session_fixture.h"

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

class ProfileTest : public SessionTest {
protected:
  void TearDown() override {
    kiln_session_release(session);
    kiln_model_release(model);
    SessionTest::TearDown();
  }

  /// Creates |session| for the sample (two streams: it has event steps) with
  /// |profile| and |debug| and binds x and y.
  void createSession(int profile, int debug) {
    SampleOptions options = deviceSample();
    options.twoStreams = true;
    ASSERT_TRUE(isOk(load(options, &model)));
    kiln_session_options_t sessionOptions;
    kiln_session_options_init(&sessionOptions);
    sessionOptions.profile = profile;
    sessionOptions.debug = debug;
    ASSERT_TRUE(isOk(kiln_session_create(model, &sessionOptions, &session)));
    bindDevice(session, y);
  }

  /// Runs the session on a fresh input and checks its output.
  void runAndCheck(float seed) {
    std::vector<float> input = sampleInput(seed);
    upload(input);
    ASSERT_TRUE(isOk(kiln_session_run(session, stream)));
    expectNear(download(y), reference(input));
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
