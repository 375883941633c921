// kiln-run's timing: --bench (CUDA-event latencies) and --profile (Chrome trace
// of each step).
#ifndef KILN_RUN_BENCH_PROFILE_H
#define KILN_RUN_BENCH_PROFILE_H

#include "kiln/runtime.h"

#include <string>
#include <vector>

namespace kiln::run {

/// Prints |status| with |what| to stderr and frees it; true if it was an error.
bool failed(kiln_status_t status, const char *what);
/// Prints a CUDA error with |what|; true if it was an error.
bool cudaFailed(cudaError_t error, const char *what);

/// Runs |session| a few times to warm up, then |runs| times between CUDA
/// events on |stream|; prints median, p90 and min latency.
bool benchmark(kiln_session_t *session, cudaStream_t stream, int runs);

/// Creates a profile-mode session (|options|.profile set) on the same
/// device buffers (inputs in signature order, then |outputs|), runs it twice
/// and writes the second run's steps to |path| as Chrome trace JSON.
bool profile(kiln_model_t *model, const kiln_session_options_t &options,
             const std::vector<void *> &inputs,
             const std::vector<void *> &outputs, cudaStream_t stream,
             const std::string &path);

} // namespace kiln::run

#endif // KILN_RUN_BENCH_PROFILE_H
