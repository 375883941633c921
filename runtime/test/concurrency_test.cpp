// GPU test: one loaded model, several threads each creating and running
// several sessions at once; every run's outputs must be byte-identical to
// that session's run alone, and sessions sharing an algorithm cache must
// choose the same library algorithms and give the same bytes. Every model of
// testModels().
#include "model_io.h"
#include "test_util.h"

#include "kiln/runtime.h"

#include <cuda_runtime_api.h>

#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace kiln::testing;

namespace {

constexpr int kThreads = 4, kSessionsPerThread = 2, kRuns = 8;

/// One session with its own stream and buffers, and its lone run's outputs.
struct Worker {
  kiln_session_t *session = nullptr;
  cudaStream_t stream = nullptr;
  DeviceIO io;
  std::vector<std::vector<uint8_t>> alone;
  /// The library algorithms its Conv and Gemm steps chose at creation.
  std::string algorithms;
  ~Worker() {
    kiln_session_release(session);
    if (stream)
      cudaStreamDestroy(stream);
  }
};

TEST(ConcurrencyTest, ThreadsTimesSessionsGiveIdenticalOutputs) {
  if (!hasCudaDevice())
    GTEST_SKIP() << "no CUDA device";
  for (const TestModel &test : testModels()) {
    SCOPED_TRACE("model " + test.name);
    kiln_model_t *model = nullptr;
    ASSERT_TRUE(isOk(test.load(&model)));
    std::vector<std::unique_ptr<Worker>> workers(kThreads * kSessionsPerThread);
    std::mutex failuresMutex;
    std::vector<std::string> failures;
    auto fail = [&](const std::string &what) {
      std::lock_guard<std::mutex> lock(failuresMutex);
      failures.push_back(what);
    };
    // Phase 0: one session alone writes the algorithm cache. Sessions that
    // time candidates concurrently on one GPU cannot be expected to agree
    // (their timings disturb each other); the cache is how a deployment
    // gets identical sessions, and it must hold under concurrency.
    std::string cache = ::testing::TempDir() + "kiln_concurrency_" +
                        std::to_string(getpid()) + "_" + test.name + ".cache";
    std::remove(cache.c_str());
    kiln_session_options_t options;
    kiln_session_options_init(&options);
    options.algorithm_cache_path = cache.c_str();
    {
      kiln_session_t *first = nullptr;
      ASSERT_TRUE(isOk(kiln_session_create(model, &options, &first)));
      kiln_session_release(first);
    }
    // Phase 1: every thread creates its sessions at once (the model is
    // shared; sessions are created concurrently, reading the cache) and
    // runs each alone.
    auto create = [&](int thread) {
      for (int s = 0; s < kSessionsPerThread; ++s) {
        auto worker = std::make_unique<Worker>();
        std::string error, name = "session " + std::to_string(thread) + "." +
                                  std::to_string(s) + ": ";
        kiln_status_t status = nullptr;
        if (cudaStreamCreateWithFlags(&worker->stream,
                                      cudaStreamNonBlocking) != cudaSuccess)
          return fail(name + "cudaStreamCreate");
        if ((status = kiln_session_create(model, &options, &worker->session)))
          return fail(name + kiln_status_message(status)),
                 kiln_status_free(status);
        if (!worker->io.create(model, test.dataDir, &error))
          return fail(name + error);
        if ((status = worker->io.bind(worker->session)) ||
            (status = kiln_session_run(worker->session, worker->stream)))
          return fail(name + kiln_status_message(status)),
                 kiln_status_free(status);
        if (!worker->io.downloadOutputs(worker->stream, &worker->alone))
          return fail(name + "downloading the outputs");
        for (size_t i = 0; i < kiln_session_step_count(worker->session); ++i) {
          kiln_step_profile_t step;
          if (!(status = kiln_session_step_profile(worker->session, i, &step)))
            worker->algorithms += std::string(step.algorithm) + ";";
          kiln_status_free(status);
        }
        workers[thread * kSessionsPerThread + s] = std::move(worker);
      }
    };
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back(create, t);
    for (std::thread &thread : threads)
      thread.join();
    threads.clear();
    ASSERT_TRUE(failures.empty()) << failures.front();

    // Phase 2: all sessions run kRuns times at once, each thread its own.
    auto run = [&](int thread) {
      for (int r = 0; r < kRuns; ++r)
        for (int s = 0; s < kSessionsPerThread; ++s) {
          Worker &worker = *workers[thread * kSessionsPerThread + s];
          std::string name = "session " + std::to_string(thread) + "." +
                             std::to_string(s) + " run " + std::to_string(r) +
                             ": ";
          std::vector<std::vector<uint8_t>> outputs;
          if (!worker.io.poisonOutputs(worker.stream))
            return fail(name + "poisoning the outputs");
          if (kiln_status_t status =
                  kiln_session_run(worker.session, worker.stream))
            return fail(name + kiln_status_message(status)),
                   kiln_status_free(status);
          if (!worker.io.downloadOutputs(worker.stream, &outputs))
            return fail(name + "downloading the outputs");
          std::string differs =
              compareBytes(outputs, worker.alone, worker.io.outputNames());
          if (!differs.empty())
            return fail(name + "differs from its run alone: " + differs);
        }
    };
    for (int t = 0; t < kThreads; ++t)
      threads.emplace_back(run, t);
    for (std::thread &thread : threads)
      thread.join();
    EXPECT_TRUE(failures.empty()) << failures.size() << " failures, first: "
                                  << failures.front();
    // Across sessions: with one cache, sessions choose their library
    // algorithms alike, and then give the same bytes.
    // A session that disagrees says why: its algorithm log (a cached
    // choice re-checked and rejected, then timed again) against session 0's.
    auto algorithmLog = [](const kiln_session_t *session) {
      const char *log = nullptr;
      kiln_status_t status = kiln_session_algorithm_log(session, &log);
      std::string text =
          status ? std::string("(no log: ") + kiln_status_message(status) + ")"
                 : std::string(log ? log : "");
      kiln_status_free(status);
      return text;
    };
    for (size_t w = 1; w < workers.size(); ++w) {
      EXPECT_EQ(workers[w]->algorithms, workers[0]->algorithms)
          << "session " << w << " chose other library algorithms; its "
          << "algorithm log:\n"
          << algorithmLog(workers[w]->session) << "session 0's:\n"
          << algorithmLog(workers[0]->session);
      if (workers[w]->algorithms != workers[0]->algorithms)
        continue;
      EXPECT_EQ(compareBytes(workers[w]->alone, workers[0]->alone,
                             workers[0]->io.outputNames()),
                "")
          << "session " << w << " against session 0";
    }
    workers.clear();
    std::remove(cache.c_str());
    kiln_model_release(model);
  }
}

} // namespace
