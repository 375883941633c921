// Host-side thread-safety tests (run under ThreadSanitizer by scripts/tsan.sh):
// several threads loading, checking and rejecting artifacts at once, sharing
// one set of bytes. The sessions themselves are covered on the GPU
// (ConcurrencyTest).
#include "artifact_builder.h"
#include "artifact_reader.h"
#include "test_util.h"

#include <atomic>
#include <string>
#include <thread>
#include <vector>

using namespace kiln::runtime;
using namespace kiln::testing;

namespace {

constexpr int kThreads = 8, kIterations = 40;

/// Runs |body(thread)| on kThreads threads at once.
template <typename Body> void onThreads(Body body) {
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back(body, t);
  for (std::thread &thread : threads)
    thread.join();
}

TEST(ThreadSafetyTest, ConcurrentReadsOfOneArtifact) {
  const std::vector<uint8_t> bytes = sampleArtifact();
  std::vector<uint8_t> damaged = bytes;
  damaged[damaged.size() / 2] ^= 1;
  std::atomic<int> good{0}, rejected{0};
  onThreads([&](int thread) {
    for (int i = 0; i < kIterations; ++i) {
      Artifact artifact;
      const std::vector<uint8_t> &input = (thread + i) % 2 ? damaged : bytes;
      kiln_status_t status =
          readArtifact(input.data(), input.size(), "shared.kiln", &artifact);
      if (!status && artifact.manifest &&
          validateManifest(*artifact.manifest) == nullptr)
        ++good;
      else if (kiln_status_code(status) == KILN_STATUS_DATA_LOSS)
        ++rejected;
      kiln_status_free(status);
    }
  });
  EXPECT_EQ(good + rejected, kThreads * kIterations);
  EXPECT_EQ(good, kThreads * kIterations / 2);
}

TEST(ThreadSafetyTest, ConcurrentPublicLoads) {
  // Without a device every load stops at the device check, with one it
  // fails at the fake cubin: either way all threads agree, and nothing leaks
  // or races (the status objects, the CUDA runtime's initialisation).
  const std::vector<uint8_t> bytes = sampleArtifact();
  std::vector<std::string> messages(kThreads);
  onThreads([&](int thread) {
    for (int i = 0; i < kIterations / 4; ++i) {
      kiln_model_t *model = nullptr;
      kiln_status_t status = kiln_model_load_from_memory(
          bytes.data(), bytes.size(), nullptr, &model);
      messages[thread] = std::string(
                             kiln_status_code_name(kiln_status_code(status))) +
                         ": " + kiln_status_message(status);
      kiln_status_free(status);
      kiln_model_release(model);
    }
  });
  for (int t = 1; t < kThreads; ++t)
    EXPECT_EQ(messages[t], messages[0]);
  EXPECT_NE(messages[0].rfind("OK", 0), 0u) << messages[0];
}

} // namespace
