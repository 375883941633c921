// GPU-side timing: held streams, graph capture and timed replays.
#include "gpu_timing.h"
#include "status.h"

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

namespace kiln::runtime {

namespace {
void CUDART_CB sleepCallback(void *data) {
  auto microseconds = static_cast<unsigned>(reinterpret_cast<uintptr_t>(data));
  std::this_thread::sleep_for(std::chrono::microseconds(microseconds));
}

/// Two timing events, destroyed with the object.
struct EventPair {
  cudaEvent_t start = nullptr, stop = nullptr;
  ~EventPair() {
    if (start)
      cudaEventDestroy(start);
    if (stop)
      cudaEventDestroy(stop);
  }
};
} // namespace

kiln_status_t holdStream(cudaStream_t stream, unsigned microseconds) {
  return cudaStatus(
      cudaLaunchHostFunc(stream, sleepCallback,
                         reinterpret_cast<void *>(uintptr_t(microseconds))),
      "holding the stream for timing");
}

kiln_status_t captureGraph(cudaStream_t stream,
                           const std::function<kiln_status_t()> &enqueue,
                           cudaGraphExec_t *exec) {
  *exec = nullptr;
  KILN_RETURN_IF_ERROR(cudaStatus(
      cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal),
      "cudaStreamBeginCapture"));
  kiln_status_t status = enqueue();
  cudaGraph_t graph = nullptr;
  cudaError_t ended = cudaStreamEndCapture(stream, &graph);
  if (!status)
    status = cudaStatus(ended, "cudaStreamEndCapture");
  if (!status)
    status = cudaStatus(cudaGraphInstantiate(exec, graph, 0),
                        "cudaGraphInstantiate");
  if (graph)
    cudaGraphDestroy(graph);
  return status;
}

kiln_status_t timeGraph(cudaGraphExec_t exec, cudaStream_t stream, int repeats,
                        float *milliseconds) {
  EventPair events;
  KILN_RETURN_IF_ERROR(
      cudaStatus(cudaEventCreate(&events.start), "cudaEventCreate"));
  KILN_RETURN_IF_ERROR(
      cudaStatus(cudaEventCreate(&events.stop), "cudaEventCreate"));
  // A graph launch takes a few microseconds of host time: hold the stream
  // long enough for all of them to queue.
  KILN_RETURN_IF_ERROR(holdStream(stream, 200 + 20 * unsigned(repeats)));
  KILN_RETURN_IF_ERROR(
      cudaStatus(cudaEventRecord(events.start, stream), "timing"));
  for (int i = 0; i < repeats; ++i)
    KILN_RETURN_IF_ERROR(
        cudaStatus(cudaGraphLaunch(exec, stream), "cudaGraphLaunch"));
  KILN_RETURN_IF_ERROR(
      cudaStatus(cudaEventRecord(events.stop, stream), "timing"));
  KILN_RETURN_IF_ERROR(
      cudaStatus(cudaEventSynchronize(events.stop), "timing a graph"));
  float total = 0;
  KILN_RETURN_IF_ERROR(cudaStatus(
      cudaEventElapsedTime(&total, events.start, events.stop), "timing"));
  *milliseconds = total / float(repeats);
  return nullptr;
}

kiln_status_t timeCandidate(cudaStream_t stream,
                            const std::function<kiln_status_t()> &enqueue,
                            float *median, int timings, int replays) {
  *median = -1;
  // One uncaptured run first: a library loads a kernel lazily on its first
  // use (cuBLASLt, cuDNN, CUDA's lazy module loading), which is not allowed
  // during capture and would drop a good candidate. A call the library
  // refuses is a candidate that does not apply, not an error.
  if (kiln_status_t refused = enqueue()) {
    kiln_status_free(refused);
    cudaGetLastError();
    // Unless the refusal came from a fault earlier work left on the GPU.
    KILN_RETURN_IF_ERROR(cudaStatus(cudaStreamSynchronize(stream),
                                    "before a timing candidate"));
    return nullptr;
  }
  // An error the run left on the GPU is real (and sticky): report it.
  KILN_RETURN_IF_ERROR(cudaStatus(cudaStreamSynchronize(stream),
                                  "running a timing candidate uncaptured"));
  cudaGraphExec_t exec = nullptr;
  if (kiln_status_t refused = captureGraph(stream, enqueue, &exec)) {
    kiln_status_free(refused);
    cudaGetLastError();
    return nullptr;
  }
  std::vector<float> times(timings);
  kiln_status_t status = cudaStatus(cudaGraphLaunch(exec, stream), "warm-up");
  for (int i = 0; i < timings && !status; ++i)
    status = timeGraph(exec, stream, replays, &times[i]);
  cudaGraphExecDestroy(exec);
  KILN_RETURN_IF_ERROR(status);
  std::sort(times.begin(), times.end());
  *median = times[timings / 2];
  return nullptr;
}

} // namespace kiln::runtime
