// GPU tests of kiln_session_run's promise of no hidden synchronisation: runs
// captured into the caller's CUDA graph in cudaStreamCaptureModeGlobal (any
// synchronising or legacy-stream call would break the capture) replay to the
// same bytes as uncaptured runs, and an uncaptured run returns while its
// stream is held shut by a host function. Every model of testModels().
#include "model_io.h"
#include "test_util.h"

#include "kiln/runtime.h"

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdio>
#include <chrono>
#include <string>
#include <thread>
#include <unistd.h>

using namespace kiln::testing;

namespace {

class GraphCaptureTest : public ::testing::Test {
protected:
  void SetUp() override {
    if (!hasCudaDevice())
      GTEST_SKIP() << "no CUDA device";
    ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking),
              cudaSuccess);
  }
  void TearDown() override {
    if (stream)
      cudaStreamDestroy(stream);
  }
  cudaStream_t stream = nullptr;
};

/// Captures one kiln_session_run on |stream| in global mode into |*exec|.
::testing::AssertionResult captureRun(kiln_session_t *session,
                                      cudaStream_t stream,
                                      cudaGraphExec_t *exec) {
  cudaGraph_t graph = nullptr;
  if (cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal) !=
      cudaSuccess)
    return ::testing::AssertionFailure() << "cudaStreamBeginCapture failed";
  kiln_status_t status = kiln_session_run(session, stream);
  cudaError_t ended = cudaStreamEndCapture(stream, &graph);
  StatusHolder holder(status);
  if (status)
    return ::testing::AssertionFailure()
           << "kiln_session_run in a global capture: "
           << kiln_status_code_name(holder.code()) << ": " << holder.message();
  if (ended != cudaSuccess)
    return ::testing::AssertionFailure()
           << "the capture broke (a hidden synchronisation or legacy-stream "
              "use?): cudaStreamEndCapture: "
           << cudaGetErrorName(ended);
  cudaError_t made = cudaGraphInstantiate(exec, graph, 0);
  cudaGraphDestroy(graph);
  if (made != cudaSuccess)
    return ::testing::AssertionFailure()
           << "cudaGraphInstantiate: " << cudaGetErrorName(made);
  return ::testing::AssertionSuccess();
}

TEST_F(GraphCaptureTest, CapturedRunsReplayLikeUncapturedRuns) {
  for (const TestModel &test : testModels()) {
    SCOPED_TRACE("model " + test.name);
    kiln_model_t *model = nullptr;
    ASSERT_TRUE(isOk(test.load(&model)));
    DeviceIO io;
    std::string error;
    ASSERT_TRUE(io.create(model, test.dataDir, &error)) << error;
    // Both sessions take their algorithms from one cache, as identical
    // deployments do: this test is about capture, and two sessions that
    // each time the candidates may choose differently when the timings are
    // close or disturbed (under compute-sanitizer they were).
    std::string cache = ::testing::TempDir() + "kiln_graph_capture_" +
                        std::to_string(getpid()) + "_" + test.name + ".cache";
    std::remove(cache.c_str());
    kiln_session_options_t options;
    kiln_session_options_init(&options);
    options.algorithm_cache_path = cache.c_str();
    // Reference: an uncaptured run of its own session.
    kiln_session_t *reference = nullptr, *session = nullptr;
    ASSERT_TRUE(isOk(kiln_session_create(model, &options, &reference)));
    ASSERT_TRUE(isOk(io.bind(reference)));
    ASSERT_TRUE(isOk(kiln_session_run(reference, stream)));
    std::vector<std::vector<uint8_t>> expected, actual;
    ASSERT_TRUE(io.downloadOutputs(stream, &expected));

    // A fresh session whose first run is the captured one, then one that
    // has run before (its own graph exists) captured as well.
    ASSERT_TRUE(isOk(kiln_session_create(model, &options, &session)));
    ASSERT_TRUE(isOk(io.bind(session)));
    for (kiln_session_t *captured : {session, reference}) {
      cudaGraphExec_t exec = nullptr;
      ASSERT_TRUE(captureRun(captured, stream, &exec));
      ASSERT_TRUE(io.poisonOutputs(stream));
      ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
      ASSERT_TRUE(io.downloadOutputs(stream, &actual));
      EXPECT_EQ(compareBytes(actual, expected, io.outputNames()), "");
      // The replay reads the inputs as they are when it runs.
      ASSERT_TRUE(io.changeInputs(&error)) << error;
      ASSERT_TRUE(io.poisonOutputs(stream));
      ASSERT_TRUE(isOk(kiln_session_run(reference, stream)));
      std::vector<std::vector<uint8_t>> changed;
      ASSERT_TRUE(io.downloadOutputs(stream, &changed));
      ASSERT_TRUE(io.poisonOutputs(stream));
      ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
      ASSERT_TRUE(io.downloadOutputs(stream, &actual));
      EXPECT_EQ(compareBytes(actual, changed, io.outputNames()), "");
      ASSERT_TRUE(io.changeInputs(&error)) << error; // Back to the first set.
      // Uncaptured runs still work after the capture, in either order.
      ASSERT_TRUE(io.poisonOutputs(stream));
      ASSERT_TRUE(isOk(kiln_session_run(captured, stream)));
      ASSERT_EQ(cudaGraphLaunch(exec, stream), cudaSuccess);
      ASSERT_TRUE(io.downloadOutputs(stream, &actual));
      EXPECT_EQ(compareBytes(actual, expected, io.outputNames()), "");
      cudaGraphExecDestroy(exec);
    }
    kiln_session_release(session);
    kiln_session_release(reference);
    kiln_model_release(model);
  }
}

/// Holds a stream shut until open() (or a 60 s watchdog) from the host.
class StreamGate {
public:
  explicit StreamGate(cudaStream_t stream) {
    cudaLaunchHostFunc(stream, &StreamGate::wait, this);
    watchdog = std::thread([this] {
      for (int i = 0; i < 600 && !opened; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
      open();
    });
  }
  ~StreamGate() {
    open();
    watchdog.join();
  }
  void open() { opened = true; }
  /// False until open(): a call that waited for the stream returns only
  /// after the watchdog opened it, and finds it open.
  bool isOpen() const { return opened; }

private:
  static void CUDART_CB wait(void *data) {
    auto *gate = static_cast<StreamGate *>(data);
    while (!gate->opened)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  std::atomic<bool> opened{false};
  std::thread watchdog;
};

TEST_F(GraphCaptureTest, RunReturnsWhileItsStreamIsHeld) {
  for (const TestModel &test : testModels()) {
    SCOPED_TRACE("model " + test.name);
    kiln_model_t *model = nullptr;
    ASSERT_TRUE(isOk(test.load(&model)));
    DeviceIO io, other;
    std::string error;
    ASSERT_TRUE(io.create(model, test.dataDir, &error)) << error;
    ASSERT_TRUE(other.create(model, test.dataDir, &error)) << error;
    kiln_session_t *session = nullptr;
    ASSERT_TRUE(isOk(kiln_session_create(model, nullptr, &session)));
    ASSERT_TRUE(isOk(io.bind(session)));
    std::vector<std::vector<uint8_t>> expected, actual;
    // The first run (captures and instantiates the plan), a steady run, and
    // a run with other buffers bound (updates the graph) each return while
    // the stream cannot make progress: none waits for the device.
    for (int round = 0; round < 3; ++round) {
      SCOPED_TRACE("round " + std::to_string(round));
      DeviceIO &bound = round == 2 ? other : io;
      if (round == 2) {
        ASSERT_TRUE(isOk(other.bind(session)));
      }
      ASSERT_TRUE(bound.poisonOutputs(stream));
      {
        StreamGate gate(stream);
        kiln_status_t status = kiln_session_run(session, stream);
        EXPECT_FALSE(gate.isOpen())
            << "kiln_session_run returned only after the watchdog opened its "
               "stream: it waited for the device";
        gate.open();
        ASSERT_TRUE(isOk(status));
      }
      ASSERT_TRUE(bound.downloadOutputs(stream, &actual));
      if (round == 0)
        expected = actual;
      else
        EXPECT_EQ(compareBytes(actual, expected, bound.outputNames()), "");
    }
    kiln_session_release(session);
    kiln_model_release(model);
  }
}

} // namespace
