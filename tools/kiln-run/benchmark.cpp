// kiln-run's benchmark: runs between CUDA events in a ring (so a long
// --duration needs no event per run), then latency statistics.
#include "benchmark.h"
#include "bench_profile.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

namespace kiln::run {

LatencyStats summarizeLatencies(std::vector<float> latenciesMs,
                                double gpuSeconds) {
  LatencyStats stats;
  if (latenciesMs.empty())
    return stats;
  std::sort(latenciesMs.begin(), latenciesMs.end());
  size_t n = latenciesMs.size();
  stats.runs = n;
  stats.minMs = latenciesMs.front();
  stats.maxMs = latenciesMs.back();
  double sum = 0;
  for (float ms : latenciesMs)
    sum += ms;
  stats.meanMs = sum / n;
  double squares = 0;
  for (float ms : latenciesMs)
    squares += (ms - stats.meanMs) * (ms - stats.meanMs);
  stats.stddevMs = std::sqrt(squares / n);
  stats.medianMs =
      n % 2 ? latenciesMs[n / 2]
            : (double(latenciesMs[n / 2 - 1]) + latenciesMs[n / 2]) / 2;
  auto percentile = [&](double p) {
    size_t rank = static_cast<size_t>(std::ceil(p / 100.0 * n));
    return double(latenciesMs[std::clamp<size_t>(rank, 1, n) - 1]);
  };
  stats.p90Ms = percentile(90);
  stats.p95Ms = percentile(95);
  stats.p99Ms = percentile(99);
  stats.gpuSeconds = gpuSeconds;
  stats.inferencesPerSecond = gpuSeconds > 0 ? n / gpuSeconds : 0;
  return stats;
}

std::string benchmarkText(const LatencyStats &stats) {
  char text[512];
  std::snprintf(text, sizeof(text),
                "bench: %zu runs after %d warm-up, median %.4f ms, p90 %.4f "
                "ms, min %.4f ms, p95 %.4f ms, p99 %.4f ms, max %.4f ms, "
                "mean %.4f ms (stddev %.4f)\n"
                "throughput: %.1f inferences/s (%zu runs in %.4f s of GPU "
                "time, %.4f s wall)\n",
                stats.runs, stats.warmup, stats.medianMs, stats.p90Ms,
                stats.minMs, stats.p95Ms, stats.p99Ms, stats.maxMs,
                stats.meanMs, stats.stddevMs, stats.inferencesPerSecond,
                stats.runs, stats.gpuSeconds, stats.wallSeconds);
  return text;
}

bool benchmark(kiln_session_t *session, cudaStream_t stream,
               const BenchmarkSettings &settings, LatencyStats *out) {
  // Event pairs are reused once their run completed: the host waits for the
  // run |kRing| runs back, which also keeps the duration's clock near the
  // GPU's progress.
  constexpr size_t kRing = 256;
  std::vector<cudaEvent_t> starts(kRing, nullptr), ends(kRing, nullptr);
  cudaEvent_t spanStart = nullptr, spanEnd = nullptr;
  bool ok = true;
  for (size_t i = 0; i < kRing && ok; ++i)
    ok = !cudaFailed(cudaEventCreate(&starts[i]), "cudaEventCreate") &&
         !cudaFailed(cudaEventCreate(&ends[i]), "cudaEventCreate");
  ok = ok && !cudaFailed(cudaEventCreate(&spanStart), "cudaEventCreate") &&
       !cudaFailed(cudaEventCreate(&spanEnd), "cudaEventCreate");
  for (int i = 0; i < settings.warmup && ok; ++i)
    ok = !failed(kiln_session_run(session, stream), "bench warm-up");
  ok = ok && !cudaFailed(cudaStreamSynchronize(stream), "bench warm-up");

  std::vector<float> latencies;
  auto elapsed = [&](size_t slot) {
    float ms = 0;
    ok = ok && !cudaFailed(cudaEventSynchronize(ends[slot]), "bench") &&
         !cudaFailed(cudaEventElapsedTime(&ms, starts[slot], ends[slot]),
                     "cudaEventElapsedTime");
    latencies.push_back(ms);
  };
  auto begin = std::chrono::steady_clock::now();
  auto seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                         begin)
        .count();
  };
  size_t launched = 0;
  ok = ok && !cudaFailed(cudaEventRecord(spanStart, stream), "bench");
  while (ok && (launched < size_t(settings.iterations) ||
                seconds() < settings.durationSeconds)) {
    size_t slot = launched % kRing;
    if (launched >= kRing)
      elapsed(slot);
    ok = ok && !cudaFailed(cudaEventRecord(starts[slot], stream), "bench") &&
         !failed(kiln_session_run(session, stream), "bench") &&
         !cudaFailed(cudaEventRecord(ends[slot], stream), "bench");
    ++launched;
  }
  ok = ok && !cudaFailed(cudaEventRecord(spanEnd, stream), "bench") &&
       !cudaFailed(cudaStreamSynchronize(stream), "bench");
  for (size_t run = launched > kRing ? launched - kRing : 0;
       ok && run < launched; ++run)
    elapsed(run % kRing);
  float spanMs = 0;
  ok = ok && !cudaFailed(cudaEventElapsedTime(&spanMs, spanStart, spanEnd),
                         "cudaEventElapsedTime");
  double wall = seconds();
  for (cudaEvent_t event : starts)
    if (event)
      cudaEventDestroy(event);
  for (cudaEvent_t event : ends)
    if (event)
      cudaEventDestroy(event);
  for (cudaEvent_t event : {spanStart, spanEnd})
    if (event)
      cudaEventDestroy(event);
  if (!ok)
    return false;
  *out = summarizeLatencies(std::move(latencies), spanMs * 1e-3);
  out->warmup = settings.warmup;
  out->wallSeconds = wall;
  return true;
}

} // namespace kiln::run
