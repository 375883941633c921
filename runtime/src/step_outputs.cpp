// The buffers each plan step writes, and the C API over them: the debug-mode
// step callback and kiln_session_step_output.
#include "step_outputs.h"
#include "artifact_reader.h"
#include "session.h"
#include "status.h"

#include <cstring>

using namespace kiln::artifact;

namespace kiln::runtime {

std::vector<uint32_t> stepOutputBuffers(const Step &step) {
  std::vector<uint32_t> ids;
  uint32_t args = step.args() ? step.args()->size() : 0;
  switch (step.kind()) {
  case StepKind_Launch: {
    uint32_t outputs = step.outputs() && step.outputs() <= args
                           ? step.outputs()
                           : args; // Unknown: every argument.
    for (uint32_t i = args - outputs; i < args; ++i)
      ids.push_back(step.args()->Get(i));
    break;
  }
  case StepKind_Gemm:
    if (step.gemm())
      ids.push_back(step.gemm()->out());
    break;
  case StepKind_Conv:
    if (step.conv())
      ids.push_back(step.conv()->out());
    break;
  case StepKind_Copy:
    if (args == 2)
      ids.push_back(step.args()->Get(1));
    break;
  case StepKind_RecordEvent:
  case StepKind_WaitEvent:
    break;
  }
  return ids;
}

} // namespace kiln::runtime

using namespace kiln::runtime;

extern "C" {

kiln_status_t kiln_session_set_step_callback(kiln_session_t *session,
                                             kiln_step_callback_t callback,
                                             void *user_data) {
  if (!session)
    return Error(KILN_STATUS_INVALID_ARGUMENT)
           << "kiln_session_set_step_callback: session is NULL";
  if (callback && !session->debug)
    return Error(KILN_STATUS_FAILED_PRECONDITION)
           << "kiln_session_set_step_callback: the session is not in debug "
              "mode (kiln_session_options_t.debug or KILN_DEBUG=1), whose "
              "runs stop after each step";
  session->stepCallback = callback;
  session->stepCallbackData = callback ? user_data : nullptr;
  return nullptr;
}

size_t kiln_session_step_output_count(const kiln_session_t *session,
                                      size_t step_index) {
  if (!session || step_index >= session->steps.size())
    return 0;
  return session->steps[step_index].outputs.size();
}

kiln_status_t kiln_session_step_output(const kiln_session_t *session,
                                       size_t step_index, size_t output_index,
                                       kiln_step_output_t *out_output) {
  if (!session || !out_output)
    return Error(KILN_STATUS_INVALID_ARGUMENT)
           << "kiln_session_step_output: NULL argument";
  std::memset(out_output, 0, sizeof(*out_output));
  if (step_index >= session->steps.size())
    return Error(KILN_STATUS_NOT_FOUND)
           << "step " << step_index << " does not exist (there are "
           << session->steps.size() << ")";
  const PreparedStep &step = session->steps[step_index];
  if (output_index >= step.outputs.size())
    return Error(KILN_STATUS_NOT_FOUND)
           << step.describe(step_index) << " has no output " << output_index
           << " (it writes " << step.outputs.size() << ")";
  uint32_t id = step.outputs[output_index];
  const Buffer &buffer = *session->entry->buffers()->Get(id);
  out_output->buffer = id;
  out_output->dtype = toApiDType(buffer.dtype());
  out_output->rank = buffer.shape() ? buffer.shape()->size() : 0;
  // FlatBuffers stores the dims as little-endian int64s in place.
  out_output->dims =
      buffer.shape() ? reinterpret_cast<const int64_t *>(buffer.shape()->data())
                     : nullptr;
  out_output->bytes = buffer.bytes();
  std::vector<void *> addresses;
  resolveAddresses(*session, &addresses);
  out_output->device_data = addresses[id];
  return nullptr;
}

} // extern "C"
