// Choosing among a library step's algorithm candidates at session creation:
// each candidate runs on the step's random operands, its output is checked
// (candidate_check.h), and only the candidates that pass are compared on
// GPU time; close times are measured again and ties go to the earlier
// candidate, so the choice does not follow timing noise. Every candidate's
// outcome goes to the session's algorithm log.
#ifndef KILN_RUNTIME_ALGORITHM_CHOICE_H
#define KILN_RUNTIME_ALGORITHM_CHOICE_H

#include "candidate_check.h"

#include <cuda_runtime.h>

#include <functional>
#include <string>
#include <vector>

namespace kiln::runtime {

/// One way to run a library step: its name in logs and profiles ("winograd",
/// "graph:eng12:k3=2"), the text the algorithm cache keeps for it, and how
/// to enqueue it on the step's scratch operands.
struct LibraryCandidate {
  std::string name, cacheChoice;
  std::function<kiln_status_t()> enqueue;
};

/// Everything the choice of one library step needs besides its candidates.
struct ChoiceContext {
  std::string step;              // "step 3 'kernel_1' (ONNX nodes: ...)".
  CandidateGate *gate = nullptr; // The step's accuracy gate.
  void *output = nullptr;        // The scratch output the candidates write,
  size_t outputCount = 0;        // its element count
  kiln::artifact::DType outputType = kiln::artifact::DType_F32; // and dtype.
  cudaStream_t stream = nullptr;
  std::vector<std::string> *log = nullptr; // The session's algorithm log.
};

/// Runs, checks and times |candidates| in order; |*winner| is the index of
/// the fastest that passed (-1: none did, and every candidate's outcome is
/// in the log). An error only for a CUDA failure outside the candidates.
kiln_status_t chooseCandidate(const std::vector<LibraryCandidate> &candidates,
                              const ChoiceContext &context, int *winner);

/// Whether the candidate passes the step's check (no timing): for a choice
/// read from the algorithm cache.
kiln_status_t checkCandidate(const LibraryCandidate &candidate,
                             const ChoiceContext &context, bool *passed);

} // namespace kiln::runtime

#endif // KILN_RUNTIME_ALGORITHM_CHOICE_H
