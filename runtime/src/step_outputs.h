// The buffers a plan step writes, for debug mode's NaN/Inf check and the step
// callback's kiln_session_step_output.
#ifndef KILN_RUNTIME_STEP_OUTPUTS_H
#define KILN_RUNTIME_STEP_OUTPUTS_H

#include "kiln_artifact_generated.h"

#include <cstdint>
#include <vector>

namespace kiln::runtime {

/// The buffer ids |step| writes, in order: a launch's last Step.outputs
/// arguments (every argument when the artifact predates that field), a
/// Gemm's or Conv's out, a Copy's destination; none for events.
std::vector<uint32_t> stepOutputBuffers(const kiln::artifact::Step &step);

} // namespace kiln::runtime

#endif // KILN_RUNTIME_STEP_OUTPUTS_H
