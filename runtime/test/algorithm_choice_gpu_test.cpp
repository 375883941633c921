// GPU test: the algorithm check orders its poison, its candidates and its
// download on the candidates' own (non-blocking) stream. Work queued on the
// legacy default stream, which non-blocking streams do not wait for (another
// session's uploads), must not be able to land between a candidate's write
// and its check. The legacy stream is held here by a host function that
// sleeps: a poison queued there would be written after the candidate and
// read back instead of its output, failing a correct candidate (a cached
// choice then rejected and re-timed: sessions created at once chose
// different algorithms, ConcurrencyTest, 2026-12-07).
#include "algorithm_choice.h"
#include "candidate_check.h"
#include "status.h"
#include "test_util.h"

#include <cuda_runtime.h>

#include <chrono>
#include <memory>
#include <thread>
#include <vector>

using namespace kiln::runtime;
using kiln::testing::hasCudaDevice;
using kiln::testing::isOk;

namespace {

constexpr size_t kCount = 4096;

void CUDART_CB sleepOnTheLegacyStream(void *) {
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
}

/// A device output of kCount floats, a non-blocking stream, the values a
/// correct candidate writes (on the device) and its gate.
struct CheckSetup {
  float *output = nullptr, *right = nullptr;
  cudaStream_t stream = nullptr;
  std::vector<float> values;
  std::vector<CandidateGate> gate;
  std::vector<std::string> log;

  CheckSetup() {
    EXPECT_EQ(cudaMalloc(&output, kCount * sizeof(float)), cudaSuccess);
    EXPECT_EQ(cudaMalloc(&right, kCount * sizeof(float)), cudaSuccess);
    EXPECT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking),
              cudaSuccess);
    std::vector<size_t> positions;
    std::vector<double> reference;
    for (size_t i = 0; i < kCount; ++i) {
      values.push_back(float(i % 97) * 0.25f - 3.0f);
      positions.push_back(i);
      reference.push_back(values.back());
    }
    gate.emplace_back(kCount, std::move(positions), std::move(reference),
                      toleranceFor(kiln::artifact::DType_F32,
                                   kiln::artifact::DType_F32, false));
    EXPECT_EQ(cudaMemcpy(right, values.data(), kCount * sizeof(float),
                         cudaMemcpyHostToDevice),
              cudaSuccess);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  }
  ~CheckSetup() {
    cudaStreamSynchronize(stream);
    cudaStreamDestroy(stream);
    cudaFree(output);
    cudaFree(right);
  }
  ChoiceContext context() {
    ChoiceContext context;
    context.step = "step 0 'test'";
    context.gate = &gate.front();
    context.output = output;
    context.outputCount = kCount;
    context.outputType = kiln::artifact::DType_F32;
    context.stream = stream;
    context.log = &log;
    return context;
  }
  /// Writes the right values on |stream| (a device-to-device copy, which
  /// waits for nothing else), as a library call would.
  LibraryCandidate candidate(const std::string &name) {
    LibraryCandidate candidate;
    candidate.name = candidate.cacheChoice = name;
    candidate.enqueue = [this]() -> kiln_status_t {
      return cudaStatus(cudaMemcpyAsync(output, right, kCount * sizeof(float),
                                        cudaMemcpyDeviceToDevice, stream),
                        "the candidate's copy");
    };
    return candidate;
  }
};

std::string joined(const std::vector<std::string> &lines) {
  std::string text;
  for (const std::string &line : lines)
    text += line + "\n";
  return text;
}

/// Each test holds the legacy default stream with a host function that
/// sleeps while the check or the choice runs (|setup|'s non-blocking stream
/// must not wait for it, and nothing of the check may be queued behind it).
class AlgorithmChoiceGpuTest : public ::testing::Test {
protected:
  void SetUp() override {
    if (!hasCudaDevice())
      GTEST_SKIP() << "no CUDA device";
    setup = std::make_unique<CheckSetup>();
    ASSERT_EQ(
        cudaLaunchHostFunc(cudaStreamLegacy, sleepOnTheLegacyStream, nullptr),
        cudaSuccess);
  }
  void TearDown() override {
    if (setup)
      EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  }
  std::unique_ptr<CheckSetup> setup;
};

// Deterministic against the old ordering: its poison waited behind the
// sleep, then was read back instead of the candidate's output.
TEST_F(AlgorithmChoiceGpuTest, CheckIsNotDisturbedByTheLegacyStream) {
  bool passed = false;
  ASSERT_TRUE(isOk(
      checkCandidate(setup->candidate("right"), setup->context(), &passed)));
  EXPECT_TRUE(passed) << joined(setup->log);
}

// Every candidate passes (the old ordering failed the first, whose
// download then drained the legacy stream for the second, where host
// functions run concurrently).
TEST_F(AlgorithmChoiceGpuTest, ChoiceIsNotDisturbedByTheLegacyStream) {
  int winner = -1;
  ASSERT_TRUE(isOk(
      chooseCandidate({setup->candidate("first"), setup->candidate("second")},
                      setup->context(), &winner)));
  EXPECT_GE(winner, 0) << joined(setup->log);
  for (const std::string &line : setup->log)
    EXPECT_EQ(line.find("REJECTED"), std::string::npos) << line;
}

} // namespace
