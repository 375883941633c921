// Session creation (and, for steps with a run-time extent, the first run at
// each value of it): every Conv step's cuDNN algorithm or graph plan and
// every Gemm step's cuBLASLt algorithm not chosen yet is chosen among
// candidates that compute the step correctly: for each distinct
// configuration, the scratch
// operands (one allocation sized for the largest of each operand, freed
// after) get seeded random values, a host reference of sampled outputs is
// computed, and the candidates are checked against it before they are timed
// (algorithm_choice.h). Identical steps share one choice; the algorithm
// cache, when the session has one, makes the choice once per machine.
#include "algorithm_cache.h"
#include "candidate_check.h"
#include "session.h"
#include "status.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>

namespace kiln::runtime {

using namespace kiln::artifact;

namespace {
/// One device allocation cut into 256-byte-aligned slots.
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
  return nullptr;
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

size_t elementsOf(size_t bytes, DType dtype) {
  return bytes / (dtype == DType_F32 ? 4 : 2);
}

/// Seeds differ per operand so that no two operands hold the same values.
constexpr uint64_t kSeed = 0x6b696c6e; // "kiln"

/// Random operands of one Conv configuration in |scratch|, and the gate
/// with its host reference at sampled outputs.
kiln_status_t prepareConvCheck(const ConvPlan &plan,
                               const ConvPointers &scratch, cudaStream_t stream,
                               std::vector<CandidateGate> *gates) {
  const Conv &conv = *plan.table();
  DType dtype = plan.dtype();
  std::vector<float> x, w, bias, residual;
  double fanIn = double(conv.c() / conv.groups()) * conv.r() * conv.s();
  KILN_RETURN_IF_ERROR(uploadRandom(const_cast<void *>(scratch.x),
                                    elementsOf(plan.operandBytes[0], dtype),
                                    dtype, kSeed + 1, 1.0, &x, stream));
  KILN_RETURN_IF_ERROR(uploadRandom(
      const_cast<void *>(scratch.w), elementsOf(plan.operandBytes[1], dtype),
      dtype, kSeed + 2, 1.0 / std::sqrt(std::max(fanIn, 1.0)), &w, stream));
  if (plan.operandBytes[2])
    KILN_RETURN_IF_ERROR(uploadRandom(const_cast<void *>(scratch.bias),
                                      elementsOf(plan.operandBytes[2], dtype),
                                      dtype, kSeed + 3, 0.5, &bias, stream));
  if (plan.operandBytes[4])
    KILN_RETURN_IF_ERROR(uploadRandom(const_cast<void *>(scratch.residual),
                                      elementsOf(plan.operandBytes[4], dtype),
                                      dtype, kSeed + 4, 1.0, &residual,
                                      stream));
  size_t outputs = elementsOf(plan.operandBytes[3], dtype);
  std::vector<size_t> positions =
      samplePositions(outputs, kCheckedSamples, kSeed + 5);
  ConvOperandValues values{x.data(), w.data(),
                           bias.empty() ? nullptr : bias.data(),
                           residual.empty() ? nullptr : residual.data()};
  std::vector<double> reference;
  for (size_t position : positions)
    reference.push_back(convReferenceAt(conv, values, position));
  gates->emplace_back(outputs, std::move(positions), std::move(reference),
                      toleranceFor(dtype, dtype, conv.allow_tf32()));
  return nullptr;
}

/// The same for one Gemm configuration. Sampled positions are elements of
/// the batches' m x n results (which lie stride_out apart).
kiln_status_t prepareGemmCheck(const GemmPlan &plan,
                               const GemmPointers &scratch, cudaStream_t stream,
                               std::vector<CandidateGate> *gates) {
  const Gemm &gemm = *plan.table();
  std::vector<float> a, b, c, bias;
  KILN_RETURN_IF_ERROR(
      uploadRandom(const_cast<void *>(scratch.a),
                   elementsOf(plan.operandBytes[0], plan.inputType()),
                   plan.inputType(), kSeed + 11, 1.0, &a, stream));
  KILN_RETURN_IF_ERROR(uploadRandom(
      const_cast<void *>(scratch.b),
      elementsOf(plan.operandBytes[1], plan.inputType()), plan.inputType(),
      kSeed + 12, 1.0 / std::sqrt(double(std::max<int64_t>(gemm.k(), 1))), &b,
      stream));
  if (plan.operandBytes[2])
    KILN_RETURN_IF_ERROR(
        uploadRandom(const_cast<void *>(scratch.c),
                     elementsOf(plan.operandBytes[2], plan.outType()),
                     plan.outType(), kSeed + 13, 1.0, &c, stream));
  if (plan.operandBytes[3])
    KILN_RETURN_IF_ERROR(
        uploadRandom(const_cast<void *>(scratch.bias),
                     elementsOf(plan.operandBytes[3], plan.biasType()),
                     plan.biasType(), kSeed + 14, 0.5, &bias, stream));
  size_t outputs = elementsOf(plan.operandBytes[4], plan.outType());
  size_t results = size_t(gemm.batch() * gemm.m() * gemm.n());
  size_t perBatch = size_t(gemm.m() * gemm.n());
  std::vector<size_t> positions;
  for (size_t logical : samplePositions(results, kCheckedSamples, kSeed + 15))
    positions.push_back(gemm.batch() > 1
                            ? (logical / perBatch) * size_t(gemm.stride_out()) +
                                  logical % perBatch
                            : logical);
  GemmOperandValues values{a.data(), b.data(), c.empty() ? nullptr : c.data(),
                           bias.empty() ? nullptr : bias.data()};
  std::vector<double> reference;
  for (size_t position : positions)
    reference.push_back(gemmReferenceAt(gemm, values, position));
  gates->emplace_back(outputs, std::move(positions), std::move(reference),
                      toleranceFor(plan.inputType(), plan.outType(),
                                   gemm.allow_tf32()));
  return nullptr;
}

ChoiceContext contextOf(kiln_session_s *session, size_t index,
                        CandidateGate *gate, void *output, size_t outputBytes,
                        DType outputType) {
  ChoiceContext context;
  context.step = session->steps[index].describe(index);
  context.gate = gate;
  context.output = output;
  context.outputCount = elementsOf(outputBytes, outputType);
  context.outputType = outputType;
  context.stream = session->streams[0];
  context.log = &session->algorithmLog;
  return context;
}

kiln_status_t chooseConvAlgorithms(kiln_session_s *session,
                                   AlgorithmCache *cache) {
  std::vector<size_t> largest =
      largestOperands(*session, 5, [](const PreparedStep &step) {
        return step.conv && !step.algorithmChosen ? step.conv->operandBytes
                                                  : nullptr;
      }); // x, w, bias, out, residual.
  if (largest[0] == 0)
    return nullptr;
  // KILN_CONV_PATH=legacy|graph restricts the candidates (conv.h).
  ConvPath path = ConvPath::Any;
  KILN_RETURN_IF_ERROR(parseConvPath(std::getenv("KILN_CONV_PATH"), &path));
  // One handle per stream that has Conv steps (session.h), created at the
  // first choice.
  if (session->cudnnHandles.empty())
    session->cudnnHandles.assign(session->streams.size(), nullptr);
  for (const PreparedStep &step : session->steps)
    if (step.conv && !session->cudnnHandles[step.stream])
      KILN_RETURN_IF_ERROR(cudnnStatus(
          cudnnCreate(&session->cudnnHandles[step.stream]), "cudnnCreate"));
  Scratch scratch;
  KILN_RETURN_IF_ERROR(
      makeScratch(largest, "choose convolution algorithms", &scratch));
  ConvPointers pointers{scratch.slots[0], scratch.slots[1], scratch.slots[2],
                        scratch.slots[3], scratch.slots[4]};
  // Identical convolutions (a ResNet's repeated blocks) share one choice;
  // each builds its own graph plan of it (conv.h).
  std::map<std::string, const ConvPlan *> chosen;
  for (size_t i = 0; i < session->steps.size(); ++i) {
    PreparedStep &step = session->steps[i];
    if (!step.conv || step.algorithmChosen)
      continue;
    step.algorithmChosen = true;
    cudnnHandle_t handle = session->cudnnHandles[step.stream];
    auto [it, inserted] = chosen.try_emplace(step.conv->key(), step.conv.get());
    if (!inserted) {
      KILN_RETURN_IF_ERROR(annotate(
          step.conv->useChoiceOf(*it->second, handle, session->workspaceBytes),
          step.describe(i)));
      step.algorithm = step.conv->algorithmName();
      continue;
    }
    std::vector<CandidateGate> gate;
    KILN_RETURN_IF_ERROR(annotate(
        prepareConvCheck(*step.conv, pointers, session->streams[0], &gate),
        step.describe(i)));
    ChoiceContext context =
        contextOf(session, i, &gate.front(), scratch.slots[3],
                  step.conv->operandBytes[3], step.conv->dtype());
    KILN_RETURN_IF_ERROR(annotate(
        step.conv->chooseAlgorithm(handle, pointers,
                                   session->workspaces[step.stream],
                                   session->workspaceBytes, context, path,
                                   cache),
        step.describe(i)));
    step.algorithm = step.conv->algorithmName();
  }
  return nullptr;
}

kiln_status_t chooseGemmAlgorithms(kiln_session_s *session,
                                   AlgorithmCache *cache) {
  std::vector<size_t> largest =
      largestOperands(*session, 5, [](const PreparedStep &step) {
        return step.gemm && !step.algorithmChosen ? step.gemm->operandBytes
                                                  : nullptr;
      }); // a, b, c, bias, out.
  if (largest[0] == 0)
    return nullptr;
  Scratch scratch;
  KILN_RETURN_IF_ERROR(makeScratch(largest, "choose GEMM algorithms", &scratch));
  GemmPointers pointers{scratch.slots[0], scratch.slots[1], scratch.slots[2],
                        scratch.slots[3], scratch.slots[4]};
  // Identical GEMMs (a transformer's layers) share one choice.
  std::map<std::string, const GemmPlan *> chosen;
  for (size_t i = 0; i < session->steps.size(); ++i) {
    PreparedStep &step = session->steps[i];
    if (!step.gemm || step.algorithmChosen)
      continue;
    step.algorithmChosen = true;
    auto [it, inserted] = chosen.try_emplace(step.gemm->key(), step.gemm.get());
    if (!inserted) {
      step.gemm->useAlgorithmOf(*it->second);
      step.algorithm = step.gemm->algorithmName();
      continue;
    }
    std::vector<CandidateGate> gate;
    KILN_RETURN_IF_ERROR(annotate(
        prepareGemmCheck(*step.gemm, pointers, session->streams[0], &gate),
        step.describe(i)));
    ChoiceContext context =
        contextOf(session, i, &gate.front(), scratch.slots[4],
                  step.gemm->operandBytes[4], step.gemm->outType());
    KILN_RETURN_IF_ERROR(annotate(
        step.gemm->chooseAlgorithm(session->cublas, pointers,
                                   session->workspaces[step.stream],
                                   session->workspaceBytes, context, cache),
        step.describe(i)));
    step.algorithm = step.gemm->algorithmName();
  }
  return nullptr;
}
} // namespace

kiln_status_t chooseLibraryAlgorithms(kiln_session_s *session) {
  AlgorithmCache cache;
  AlgorithmCache *usedCache = nullptr;
  if (!session->algorithmCachePath.empty()) {
    KILN_RETURN_IF_ERROR(
        cache.load(session->algorithmCachePath,
                   AlgorithmCache::machineKeyOf(session->model->device)));
    usedCache = &cache;
  }
  kiln_status_t status = chooseConvAlgorithms(session, usedCache);
  if (!status)
    status = chooseGemmAlgorithms(session, usedCache);
  // The log is what a failed choice is explained by: debug mode prints it.
  if (session->debug)
    for (const std::string &line : session->algorithmLog)
      std::fprintf(stderr, "kiln: %s\n", line.c_str());
  session->algorithmLogText.clear();
  for (const std::string &line : session->algorithmLog)
    session->algorithmLogText += line + "\n";
  if (status && !session->algorithmLogText.empty()) {
    kiln_status_code_t code = kiln_status_code(status);
    return Error(code) << takeMessage(status) << "\nalgorithm log:\n"
                       << session->algorithmLogText;
  }
  if (status)
    return status;
  if (usedCache && cache.changed())
    return cache.save(session->algorithmCachePath);
  return nullptr;
}

} // namespace kiln::runtime
