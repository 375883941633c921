// The device-side bounds checks of artifacts compiled with --bounds-checks:
// the session's fault record, reading it after a run or step, and the
// status that names the step, its ONNX nodes, the index, bound and axis.
#ifndef KILN_RUNTIME_BOUNDS_CHECKS_H
#define KILN_RUNTIME_BOUNDS_CHECKS_H

#include "kiln/artifact_format.h"
#include "kiln/runtime.h"

#include <string>
#include <vector>

struct kiln_session_s;

namespace kiln::runtime {

struct PreparedStep;

/// "step 12 'gather_3' (launch; ONNX nodes: /embeddings/Gather) in CUDA
/// kernel kiln_data_movement_...: Gather index 50321 out of range
/// [-30522, 30522) on axis 0": what |record| (flag set) says, with the step
/// it names looked up in |steps|.
std::string describeBoundsFault(const kiln::artifact::BoundsFaultRecord &record,
                                const std::vector<PreparedStep> &steps);

/// Allocates the session's fault record (zeroed) and its pinned host copy
/// when the model was compiled with bounds checks; nothing otherwise.
kiln_status_t allocateBoundsRecord(kiln_session_s *session);
/// Frees what allocateBoundsRecord allocated.
void freeBoundsRecord(kiln_session_s *session);

/// Copies the fault record to the host after the work enqueued on |stream|
/// and waits for it; a recorded fault becomes an INVALID_ARGUMENT status
/// (describeBoundsFault) and the record is cleared for the next run. NULL
/// when the session has no record or no fault was recorded.
kiln_status_t takeBoundsFault(kiln_session_s *session, cudaStream_t stream);

} // namespace kiln::runtime

#endif // KILN_RUNTIME_BOUNDS_CHECKS_H
