// kiln-run's status printing and --profile (a table and a Chrome trace of each
// step); the benchmark is benchmark.h.
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

/// Tensor |info|'s shape at |session|'s current shapes (an artifact with
/// ranged dims runs at its input files' shapes) and its bytes; false (the
/// error printed) on failure.
bool currentShape(kiln_session_t *session, const kiln_tensor_info_t &info,
                  std::vector<int64_t> *dims, size_t *bytes);

/// The --profile table of |steps| (kiln_session_step_profile of every step)
/// whose kernel times came from |source| (kiln_session_profile_source): a
/// header line, then the kernel steps slowest first (25 at most) with their
/// time (CUPTI's kernel time when |source| is "cupti", else the event-timed
/// replay), replay time, kernel count, share, GB/s and TFLOP/s from that
/// time. benchmarks/kernels.py and compare_torch.py parse it: the header
/// line's first number is that time's sum.
std::string profileTable(const std::vector<kiln_step_profile_t> &steps,
                         const std::string &source);

/// Creates a profile-mode session (|options|.profile set) on the same
/// device buffers (inputs in signature order, then |outputs|) at |run|'s
/// current input shapes (an artifact with ranged dims: the shapes the run
/// was measured at), runs it twice, prints the second run's profileTable and
/// writes its steps to |path| as Chrome trace JSON.
bool profile(kiln_model_t *model, const kiln_session_options_t &options,
             kiln_session_t *run, const std::vector<void *> &inputs,
             const std::vector<void *> &outputs, cudaStream_t stream,
             const std::string &path);

} // namespace kiln::run

#endif // KILN_RUN_BENCH_PROFILE_H
