// The session's bounds-check fault record (artifacts compiled with
// --bounds-checks): allocation, the synchronous read after a run or step,
// and the message naming the step, its ONNX nodes, the index and its range.
#include "bounds_checks.h"
#include "device_memory.h"
#include "session.h"
#include "status.h"

#include <sstream>

namespace kiln::runtime {

using kiln::artifact::BoundsFaultRecord;

std::string describeBoundsFault(const BoundsFaultRecord &record,
                                const std::vector<PreparedStep> &steps) {
  std::ostringstream out;
  if (record.step < steps.size()) {
    const PreparedStep &step = steps[record.step];
    out << step.describe(record.step);
    if (!step.symbol.empty())
      out << " in CUDA kernel " << step.symbol;
  } else {
    out << "step " << record.step << " (not a step of this entry point)";
  }
  out << ": " << kiln::artifact::boundsCheckSiteName(record.site) << " index "
      << record.index << " out of range [" << -record.bound << ", "
      << record.bound << ") on axis " << record.axis;
  return out.str();
}

kiln_status_t allocateBoundsRecord(kiln_session_s *session) {
  if (!session->model->manifest().bounds_checks())
    return nullptr;
  KILN_RETURN_IF_ERROR(allocateDeviceMemory(
      &session->boundsRecord, sizeof(BoundsFaultRecord),
      "allocating the bounds-check fault record", session->model->device));
  // Cleared before any of the session's (non-blocking) streams can run: a
  // memset on the default stream is not ordered with them.
  KILN_RETURN_IF_ERROR(cudaStatus(
      cudaMemset(session->boundsRecord, 0, sizeof(BoundsFaultRecord)),
      "clearing the bounds-check fault record"));
  KILN_RETURN_IF_ERROR(cudaStatus(cudaStreamSynchronize(nullptr),
                                  "clearing the bounds-check fault record"));
  void *host = nullptr;
  KILN_RETURN_IF_ERROR(
      cudaStatus(cudaMallocHost(&host, sizeof(BoundsFaultRecord)),
                 "allocating the pinned copy of the bounds-check record"));
  session->boundsRecordHost = static_cast<BoundsFaultRecord *>(host);
  return nullptr;
}

void freeBoundsRecord(kiln_session_s *session) {
  if (session->boundsRecord)
    cudaFree(session->boundsRecord);
  if (session->boundsRecordHost)
    cudaFreeHost(session->boundsRecordHost);
  session->boundsRecord = nullptr;
  session->boundsRecordHost = nullptr;
}

kiln_status_t takeBoundsFault(kiln_session_s *session, cudaStream_t stream) {
  if (!session->boundsRecord)
    return nullptr;
  const char *what = "reading the bounds-check fault record";
  KILN_RETURN_IF_ERROR(cudaStatus(
      cudaMemcpyAsync(session->boundsRecordHost, session->boundsRecord,
                      sizeof(BoundsFaultRecord), cudaMemcpyDeviceToHost,
                      stream),
      what));
  KILN_RETURN_IF_ERROR(cudaStatus(cudaStreamSynchronize(stream), what));
  BoundsFaultRecord record = *session->boundsRecordHost;
  if (record.flag == 0)
    return nullptr;
  KILN_RETURN_IF_ERROR(
      cudaStatus(cudaMemsetAsync(session->boundsRecord, 0,
                                 sizeof(BoundsFaultRecord), stream),
                 "clearing the bounds-check fault record"));
  std::string message = describeBoundsFault(record, session->steps);
  if (session->replayedSinceBoundsCheck)
    message += " (recorded by this run or by a replay of a CUDA graph that "
               "captured an earlier run of the session)";
  session->replayedSinceBoundsCheck = false;
  return Error(KILN_STATUS_INVALID_ARGUMENT)
         << message
         << "; the index came from the data (usually an input): the run's "
            "outputs are unspecified";
}

} // namespace kiln::runtime
