// Accuracy-gated, reproducible choice among library candidates
// (algorithm_choice.h).
#include "algorithm_choice.h"
#include "gpu_timing.h"
#include "status.h"

#include <cstdio>

namespace kiln::runtime {

namespace {
/// Candidates within this fraction of the fastest are timed again.
constexpr float kCloseTimes = 0.08f;
/// After the second timing, a later candidate must be faster by more than
/// this fraction to win over an earlier one.
constexpr float kTie = 0.03f;

std::string milliseconds(float time) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.4f ms", double(time));
  return text;
}

/// Runs |candidate| (once uncaptured, then replayed from a CUDA graph when
/// |timings| > 0) on a poisoned output and checks what it wrote.
kiln_status_t runAndCheck(const LibraryCandidate &candidate,
                          const ChoiceContext &context, int timings,
                          float *time, bool *passed, std::string *outcome) {
  *passed = false;
  *time = -1;
  size_t element = context.outputType == kiln::artifact::DType_F32 ? 4 : 2;
  KILN_RETURN_IF_ERROR(
      poison(context.output, context.outputCount * element, context.stream));
  if (timings > 0) {
    KILN_RETURN_IF_ERROR(
        timeCandidate(context.stream, candidate.enqueue, time, timings));
    if (*time < 0) {
      *outcome = "refused (it does not run or capture)";
      return nullptr;
    }
  } else {
    kiln_status_t status = candidate.enqueue();
    if (status) {
      *outcome = "refused: " + takeMessage(status);
      return cudaStatus(cudaGetLastError(), "after a refused candidate");
    }
  }
  KILN_RETURN_IF_ERROR(cudaStatus(cudaStreamSynchronize(context.stream),
                                  "running an algorithm candidate"));
  HostOutput output;
  KILN_RETURN_IF_ERROR(downloadOutput(context.output, context.outputCount,
                                      context.outputType, &output,
                                      context.stream));
  Agreement agreement;
  *passed = context.gate->check(output, &agreement);
  *outcome = (*passed ? "ok " : "REJECTED: does not match the reference, ") +
             agreement.describe();
  if (*time >= 0)
    *outcome += ", " + milliseconds(*time);
  return nullptr;
}

void note(const ChoiceContext &context, const std::string &line) {
  if (context.log)
    context.log->push_back(context.step + ": " + line);
}
} // namespace

kiln_status_t chooseCandidate(const std::vector<LibraryCandidate> &candidates,
                              const ChoiceContext &context, int *winner) {
  *winner = -1;
  std::vector<float> times(candidates.size(), -1);
  for (size_t i = 0; i < candidates.size(); ++i) {
    bool passed = false;
    std::string outcome;
    KILN_RETURN_IF_ERROR(runAndCheck(candidates[i], context, 3, &times[i],
                                     &passed, &outcome));
    note(context, "candidate " + candidates[i].name + ": " + outcome);
    if (!passed)
      times[i] = -1;
  }
  float best = -1;
  for (float time : times)
    if (time >= 0 && (best < 0 || time < best))
      best = time;
  if (best < 0)
    return nullptr;
  // Close times are measured again, longer; the earliest candidate within
  // kTie of the fastest wins, so that the order of the list, not noise,
  // decides between equals.
  std::vector<size_t> close;
  for (size_t i = 0; i < candidates.size(); ++i)
    if (times[i] >= 0 && times[i] <= best * (1 + kCloseTimes))
      close.push_back(i);
  if (close.size() > 1) {
    best = -1;
    for (size_t i : close) {
      float time = -1;
      KILN_RETURN_IF_ERROR(timeCandidate(context.stream, candidates[i].enqueue,
                                         &time, /*timings=*/7,
                                         /*replays=*/10));
      times[i] = time;
      if (time >= 0 && (best < 0 || time < best))
        best = time;
    }
    if (best < 0)
      return nullptr;
  }
  for (size_t i : close)
    if (times[i] >= 0 && times[i] <= best * (1 + kTie)) {
      *winner = int(i);
      break;
    }
  if (*winner < 0)
    return nullptr;
  note(context, "chose " + candidates[size_t(*winner)].name + " (" +
                    milliseconds(times[size_t(*winner)]) + ")");
  return nullptr;
}

kiln_status_t checkCandidate(const LibraryCandidate &candidate,
                             const ChoiceContext &context, bool *passed) {
  float time = -1;
  std::string outcome;
  KILN_RETURN_IF_ERROR(
      runAndCheck(candidate, context, 0, &time, passed, &outcome));
  note(context, "cached choice " + candidate.name + ": " + outcome);
  return nullptr;
}

} // namespace kiln::runtime
