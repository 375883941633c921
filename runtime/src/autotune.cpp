// Session creation: every Conv step's cuDNN algorithm or graph plan and
// every Gemm step's cuBLASLt algorithm is chosen by timing candidates on the
// GPU (graph replays, gpu_timing.h) on scratch operands, one zeroed
// allocation sized for the largest of each operand and freed after.
// Identical steps share one choice.
#include "session.h"
#include "status.h"

#include <cstdlib>
#include <map>

namespace kiln::runtime {

namespace {
/// One zeroed device allocation cut into 256-byte-aligned slots.
struct Scratch {
  void *base = nullptr;
  std::vector<char *> slots;
  ~Scratch() {
    if (base)
      cudaFree(base);
  }
};

kiln_status_t makeScratch(const std::vector<size_t> &sizes, const char *what,
                          Scratch *scratch) {
  std::vector<size_t> offsets;
  size_t total = 0;
  for (size_t size : sizes) {
    offsets.push_back(total);
    total += (size + 255) / 256 * 256;
  }
  KILN_RETURN_IF_ERROR(cudaStatus(
      cudaMalloc(&scratch->base, total),
      "allocating " + std::to_string(total) + " bytes of scratch operands to " +
          what));
  for (size_t offset : offsets)
    scratch->slots.push_back(static_cast<char *>(scratch->base) + offset);
  return cudaStatus(cudaMemset(scratch->base, 0, total),
                    std::string("clearing the scratch operands to ") + what);
}

/// The largest of each of |count| operand sizes over the plans |sizesOf|
/// gives (nullptr: the step has no such plan).
template <typename SizesOf>
std::vector<size_t> largestOperands(const kiln_session_s &session, int count,
                                    SizesOf sizesOf) {
  std::vector<size_t> largest(count, 0);
  for (const PreparedStep &step : session.steps)
    if (const size_t *sizes = sizesOf(step))
      for (int i = 0; i < count; ++i)
        largest[i] = std::max(largest[i], sizes[i]);
  return largest;
}

kiln_status_t chooseConvAlgorithms(kiln_session_s *session) {
  std::vector<size_t> largest =
      largestOperands(*session, 5, [](const PreparedStep &step) {
        return step.conv ? step.conv->operandBytes : nullptr;
      }); // x, w, bias, out, residual.
  if (largest[0] == 0)
    return nullptr;
  // KILN_CONV_PATH=legacy|graph restricts the candidates (conv.h).
  ConvPath path = ConvPath::Any;
  KILN_RETURN_IF_ERROR(parseConvPath(std::getenv("KILN_CONV_PATH"), &path));
  KILN_RETURN_IF_ERROR(
      cudnnStatus(cudnnCreate(&session->cudnn), "cudnnCreate"));
  Scratch scratch;
  KILN_RETURN_IF_ERROR(
      makeScratch(largest, "time convolution algorithms", &scratch));
  ConvPointers pointers{scratch.slots[0], scratch.slots[1], scratch.slots[2],
                        scratch.slots[3], scratch.slots[4]};
  // Identical convolutions (a ResNet's repeated blocks) share one timing,
  // and one graph plan: each graph plan may compile a kernel.
  std::map<std::string, const ConvPlan *> timed;
  for (size_t i = 0; i < session->steps.size(); ++i) {
    PreparedStep &step = session->steps[i];
    if (!step.conv)
      continue;
    auto [it, inserted] = timed.try_emplace(step.conv->key(), step.conv.get());
    KILN_RETURN_IF_ERROR(annotate(
        inserted ? step.conv->chooseAlgorithm(session->cudnn, pointers,
                                              session->workspaces[step.stream],
                                              session->workspaceBytes,
                                              session->streams[0], path)
                 : step.conv->useChoiceOf(*it->second),
        step.describe(i)));
    step.algorithm = step.conv->algorithmName();
  }
  return nullptr;
}

kiln_status_t chooseGemmAlgorithms(kiln_session_s *session) {
  std::vector<size_t> largest =
      largestOperands(*session, 5, [](const PreparedStep &step) {
        return step.gemm ? step.gemm->operandBytes : nullptr;
      }); // a, b, c, bias, out.
  if (largest[0] == 0)
    return nullptr;
  Scratch scratch;
  KILN_RETURN_IF_ERROR(makeScratch(largest, "time GEMM algorithms", &scratch));
  GemmPointers pointers{scratch.slots[0], scratch.slots[1], scratch.slots[2],
                        scratch.slots[3], scratch.slots[4]};
  // Identical GEMMs (a transformer's layers) share one timing.
  std::map<std::string, const GemmPlan *> timed;
  for (size_t i = 0; i < session->steps.size(); ++i) {
    PreparedStep &step = session->steps[i];
    if (!step.gemm)
      continue;
    auto [it, inserted] = timed.try_emplace(step.gemm->key(), step.gemm.get());
    if (!inserted) {
      step.gemm->useAlgorithmOf(*it->second);
      continue;
    }
    KILN_RETURN_IF_ERROR(annotate(
        step.gemm->chooseAlgorithm(session->cublas, pointers,
                                   session->workspaces[step.stream],
                                   session->workspaceBytes,
                                   session->streams[0]),
        step.describe(i)));
  }
  return nullptr;
}
} // namespace

kiln_status_t chooseLibraryAlgorithms(kiln_session_s *session) {
  KILN_RETURN_IF_ERROR(chooseConvAlgorithms(session));
  return chooseGemmAlgorithms(session);
}

} // namespace kiln::runtime
