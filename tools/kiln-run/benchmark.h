// kiln-run's benchmark: warm-up, timed runs by count and duration, latency
// percentiles and throughput.
#ifndef KILN_RUN_BENCHMARK_H
#define KILN_RUN_BENCHMARK_H

#include "kiln/runtime.h"

#include <string>
#include <vector>

namespace kiln::run {

struct BenchmarkSettings {
  int warmup = 10;            // Untimed runs first.
  int iterations = 100;       // Timed runs, at least.
  double durationSeconds = 0; // And for at least this long.
};

/// What a benchmark measured. Latencies in milliseconds.
struct LatencyStats {
  size_t runs = 0;
  int warmup = 0;
  double minMs = 0, maxMs = 0, meanMs = 0, stddevMs = 0;
  double medianMs = 0, p90Ms = 0, p95Ms = 0, p99Ms = 0;
  /// GPU time from the first timed run's start to the last one's end; the
  /// runs are enqueued back to back, so this includes any gap between them.
  double gpuSeconds = 0;
  /// Host time of the timed loop, enqueueing to the last run's completion.
  double wallSeconds = 0;
  /// runs / gpuSeconds.
  double inferencesPerSecond = 0;
};

/// Statistics of |latenciesMs| (any order; at least one) over |gpuSeconds|:
/// percentiles by the nearest-rank method, the median the middle value (the
/// mean of the two middle ones for an even count).
LatencyStats summarizeLatencies(std::vector<float> latenciesMs,
                                double gpuSeconds);

/// The lines kiln-run prints: "bench: N runs after W warm-up, median X ms,
/// p90 Y ms, min Z ms, ..." (benchmarks/*.py and scripts parse "median X ms,
/// p90 Y ms") and "throughput: T inferences/s ...".
std::string benchmarkText(const LatencyStats &stats);

/// Runs |session| |settings|.warmup times, then at least
/// |settings|.iterations times and for at least |settings|.durationSeconds,
/// each run between two CUDA events on |stream|. False (the error printed)
/// when a run or CUDA call fails.
bool benchmark(kiln_session_t *session, cudaStream_t stream,
               const BenchmarkSettings &settings, LatencyStats *out);

} // namespace kiln::run

#endif // KILN_RUN_BENCHMARK_H
