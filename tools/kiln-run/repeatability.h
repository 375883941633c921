// kiln-run --sessions N and --replays N: checks that N fresh sessions of a
// model, or N more runs of one session, give bit-identical outputs on the
// same inputs.
#ifndef KILN_RUN_REPEATABILITY_H
#define KILN_RUN_REPEATABILITY_H

#include "kiln/runtime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::run {

/// An input already on the device, bound by name in every session.
struct DeviceInput {
  std::string name;
  void *data = nullptr;
  size_t bytes = 0;
};

/// Where two runs' outputs first differ (|output| < 0: they do not).
struct OutputDifference {
  int64_t output = -1;
  int64_t element = -1;         // The first differing element (row-major).
  size_t differing = 0;         // How many elements differ.
  double first = 0, second = 0; // Its values in the two runs.
};

/// Compares two runs' outputs (|first|[i] and |second|[i] hold output i's
/// bytes) element by element, bitwise, for elements of |dtypes|[i].
OutputDifference
firstDifference(const std::vector<std::vector<uint8_t>> &first,
                const std::vector<std::vector<uint8_t>> &second,
                const std::vector<kiln_dtype_t> &dtypes);

/// Creates |sessions| sessions of |model| one after the other (each chooses
/// its library algorithms afresh), runs each once on |inputs| with freshly
/// poisoned outputs and compares every output bitwise with the first
/// session's. Prints a line saying so and returns true when all are
/// identical; otherwise prints which session, output and element first
/// differ (with its index and both values) and returns false. Runtime
/// failures are printed and return false too.
bool checkRepeatability(kiln_model_t *model,
                        const kiln_session_options_t &options,
                        size_t entryPoint,
                        const std::vector<DeviceInput> &inputs, int sessions,
                        cudaStream_t stream);

/// Runs |session| |replays| more times (its outputs, bound to
/// |outputBuffers|, poisoned before each) and compares every replay's outputs
/// bitwise with |first|, the outputs of the session's first run. Prints each
/// replay that differs (output, how many elements, the first) and a summary
/// line; returns false when any replay differs or fails. A CUDA graph
/// replayed, or a plan enqueued again, on the same addresses must give the
/// same bits: a difference is a race in the plan or in a library call.
bool checkReplays(kiln_model_t *model, size_t entryPoint,
                  kiln_session_t *session,
                  const std::vector<void *> &outputBuffers,
                  const std::vector<std::vector<uint8_t>> &first, int replays,
                  cudaStream_t stream);

} // namespace kiln::run

#endif // KILN_RUN_REPEATABILITY_H
