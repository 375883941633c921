// GPU tests of bounds-checked artifacts (format 2): every launch gets the
// session's fault record and its step index, a recorded out-of-range index
// fails the run (graph mode, debug mode, after a captured replay) with the
// step, its ONNX nodes, the kernel, the index, the bound and the axis, and
// the session stays usable: no device fault, the record is cleared.
#include "session_fixture.h"

#include "kiln/artifact_format.h"

#include <string>

using namespace kiln::testing;

namespace {

constexpr const char *kFault =
    "step 1 'kernel_scale_add' (launch; ONNX nodes: /post/Mul, /post/Add) in "
    "CUDA kernel bounds_fault: Gather index 50321 out of range [-30522, "
    "30522) on axis 0; the index came from the data (usually an input): the "
    "run's outputs are unspecified";

class BoundsChecksGPUTest : public SessionTest {
protected:
  /// The sample compiled "with bounds checks": format 2, and |symbol| (a
  /// kernel taking the record and the step index) as its launch.
  void loadChecked(const char *symbol, bool debug) {
    SampleOptions options = deviceSample();
    options.kernelSymbol = symbol;
    ArtifactBuilder builder;
    buildSample(builder, options);
    builder.model.bounds_checks = true;
    builder.model.format_version = kiln::artifact::kBoundsChecksFormatVersion;
    std::vector<uint8_t> bytes =
        builder.finish(kiln::artifact::kBoundsChecksFormatVersion);
    ASSERT_TRUE(isOk(kiln_model_load_from_memory(bytes.data(), bytes.size(),
                                                 nullptr, &model)));
    kiln_session_options_t sessionOptions;
    kiln_session_options_init(&sessionOptions);
    sessionOptions.debug = debug;
    ASSERT_TRUE(isOk(kiln_session_create(model, &sessionOptions, &session)));
    upload(input);
    poison(y);
    bindDevice(session, y);
  }
  void TearDown() override {
    kiln_session_release(session);
    kiln_model_release(model);
    SessionTest::TearDown();
  }
  /// The status of one run, as "CODE: message".
  std::string run() {
    StatusHolder holder(kiln_session_run(session, stream));
    return std::string(kiln_status_code_name(holder.code())) + ": " +
           holder.message();
  }

  std::vector<float> input = sampleInput(3);
  kiln_model_t *model = nullptr;
  kiln_session_t *session = nullptr;
};

TEST_F(BoundsChecksGPUTest, InRangeRunsComputeAsUnchecked) {
  for (bool debug : {false, true}) {
    loadChecked("bounds_scale_add", debug);
    for (int i = 0; i < 3; ++i)
      ASSERT_EQ(run(), "OK: ") << "debug " << debug << ", run " << i;
    expectNear(download(y), reference(input));
    kiln_session_release(session);
    kiln_model_release(model);
    session = nullptr;
    model = nullptr;
  }
}

TEST_F(BoundsChecksGPUTest, GraphModeNamesTheFaultAndStaysUsable) {
  loadChecked("bounds_fault", /*debug=*/false);
  EXPECT_EQ(run(), std::string("INVALID_ARGUMENT: ") + kFault);
  // Cleared after the report, recorded again by the next run: never a
  // device fault, never a stale record.
  EXPECT_EQ(run(), std::string("INVALID_ARGUMENT: ") + kFault);
  expectNear(download(y), reference(input));
}

TEST_F(BoundsChecksGPUTest, DebugModeNamesTheFault) {
  loadChecked("bounds_fault", /*debug=*/true);
  EXPECT_EQ(run(), std::string("INVALID_ARGUMENT: ") + kFault);
}

TEST_F(BoundsChecksGPUTest, CapturedReplaysReportAtTheNextRun) {
  loadChecked("bounds_fault", /*debug=*/false);
  cudaStream_t capture = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&capture, cudaStreamNonBlocking),
            cudaSuccess);
  ASSERT_EQ(cudaStreamBeginCapture(capture, cudaStreamCaptureModeGlobal),
            cudaSuccess);
  kiln_status_t captured = kiln_session_run(session, capture);
  cudaGraph_t graph = nullptr;
  ASSERT_EQ(cudaStreamEndCapture(capture, &graph), cudaSuccess);
  ASSERT_TRUE(isOk(captured));
  cudaGraphExec_t exec = nullptr;
  ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
  ASSERT_EQ(cudaGraphLaunch(exec, capture), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(capture), cudaSuccess);
  std::string status = run();
  EXPECT_NE(status.find(std::string("INVALID_ARGUMENT: ") +
                        "step 1 'kernel_scale_add' (launch; ONNX nodes: "
                        "/post/Mul, /post/Add) in CUDA kernel bounds_fault: "
                        "Gather index 50321 out of range [-30522, 30522) on "
                        "axis 0 (recorded by this run or by a replay of a "
                        "CUDA graph"),
            std::string::npos)
      << status;
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  cudaStreamDestroy(capture);
}

} // namespace
