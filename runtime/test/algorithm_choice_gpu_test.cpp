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

TEST(AlgorithmChoiceGpuTest, CheckIsNotDisturbedByTheLegacyStream) {
  if (!hasCudaDevice())
    GTEST_SKIP() << "no CUDA device";
  CheckSetup setup;
  // The host function holds the legacy stream while the check runs.
  ASSERT_EQ(cudaLaunchHostFunc(cudaStreamLegacy, sleepOnTheLegacyStream,
                               nullptr),
            cudaSuccess);
  bool passed = false;
  ASSERT_TRUE(isOk(checkCandidate(setup.candidate("right"), setup.context(),
                                  &passed)));
  EXPECT_TRUE(passed) << joined(setup.log);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

TEST(AlgorithmChoiceGpuTest, ChoiceIsNotDisturbedByTheLegacyStream) {
  if (!hasCudaDevice())
    GTEST_SKIP() << "no CUDA device";
  CheckSetup setup;
  ASSERT_EQ(cudaLaunchHostFunc(cudaStreamLegacy, sleepOnTheLegacyStream,
                               nullptr),
            cudaSuccess);
  int winner = -1;
  ASSERT_TRUE(isOk(chooseCandidate({setup.candidate("first"),
                                    setup.candidate("second")},
                                   setup.context(), &winner)));
  EXPECT_GE(winner, 0) << joined(setup.log);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

} // namespace
