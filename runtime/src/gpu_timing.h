// GPU-side timing for session creation (algorithm choice) and profile mode:
// work replayed from CUDA graphs behind a host-held stream, so that CUDA
// events time the GPU's work and not the host's enqueueing.
#ifndef KILN_RUNTIME_GPU_TIMING_H
#define KILN_RUNTIME_GPU_TIMING_H

#include "kiln/runtime.h"

#include <cuda_runtime.h>

#include <functional>

namespace kiln::runtime {

/// Enqueues a host callback that keeps |stream| waiting for |microseconds|,
/// so that the launches enqueued right after it queue up on the GPU instead
/// of reaching an idle GPU one at a time (each would then be timed with its
/// launch latency). The callback only sleeps (no CUDA calls).
kiln_status_t holdStream(cudaStream_t stream, unsigned microseconds);

/// Captures what |enqueue| puts on |stream| (the enqueue must be capturable)
/// into an executable graph |*exec| (the caller destroys it).
kiln_status_t captureGraph(cudaStream_t stream,
                           const std::function<kiln_status_t()> &enqueue,
                           cudaGraphExec_t *exec);

/// The GPU time of one replay of |exec| on |stream|: |repeats| replays
/// queued behind a held stream between two events, divided by |repeats|.
/// Synchronises |stream|.
kiln_status_t timeGraph(cudaGraphExec_t exec, cudaStream_t stream,
                        int repeats, float *milliseconds);

/// The median over |timings| timeGraph calls (|replays| each) of what
/// |enqueue| captures, in |*median|. |enqueue| first runs once uncaptured
/// (then |stream| is synchronised), so that kernels a library loads lazily
/// are loaded before capture. -1 when that run or the capture fails (a
/// library candidate that refuses: its error is dropped); an error the
/// uncaptured run leaves on the GPU is returned. The candidates of the
/// Conv and Gemm algorithm choices (conv_choice.cpp, gemm.cpp) are compared
/// with this.
kiln_status_t timeCandidate(cudaStream_t stream,
                            const std::function<kiln_status_t()> &enqueue,
                            float *median, int timings = 3, int replays = 5);

} // namespace kiln::runtime

#endif // KILN_RUNTIME_GPU_TIMING_H
