// Gemm steps through cuBLASLt: row-major via the transpose trick, epilogues,
// strided batches.
#include "gemm.h"
#include "gpu_timing.h"
#include "status.h"

#include <cstdio>
#include <cstdlib>
#include <iterator>
#include <sstream>

namespace kiln::runtime {

using namespace kiln::artifact;

GemmPlan::~GemmPlan() {
  if (preference)
    cublasLtMatmulPreferenceDestroy(preference);
  for (cublasLtMatrixLayout_t layout : {layoutA, layoutB, layoutC, layoutD})
    if (layout)
      cublasLtMatrixLayoutDestroy(layout);
  if (operation)
    cublasLtMatmulDescDestroy(operation);
}

static cudaDataType_t cudaType(DType dtype) {
  switch (dtype) {
  case DType_F16:
    return CUDA_R_16F;
  case DType_BF16:
    return CUDA_R_16BF;
  default:
    return CUDA_R_32F;
  }
}

/// A column-major rows x cols layout with leading dimension |ld|, batched.
static kiln_status_t makeLayout(cublasLtMatrixLayout_t *layout,
                                cudaDataType_t type, int64_t rows, int64_t cols,
                                int64_t ld, int64_t batch, int64_t stride,
                                const char *what) {
  KILN_RETURN_IF_ERROR(cublasStatus(
      cublasLtMatrixLayoutCreate(layout, type, static_cast<uint64_t>(rows),
                                 static_cast<uint64_t>(cols), ld),
      std::string("cublasLtMatrixLayoutCreate (") + what + ")"));
  if (batch == 1)
    return nullptr;
  int32_t count = static_cast<int32_t>(batch);
  KILN_RETURN_IF_ERROR(cublasStatus(
      cublasLtMatrixLayoutSetAttribute(
          *layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof(count)),
      "setting the batch count"));
  return cublasStatus(cublasLtMatrixLayoutSetAttribute(
                          *layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                          &stride, sizeof(stride)),
                      "setting the batch stride");
}

kiln_status_t GemmPlan::create(cublasLtHandle_t handle, const Gemm &gemm,
                               DType inputDType, DType outDType,
                               DType biasDType, const uint32_t alignments[4],
                               size_t workspaceBytes) {
  // A/B in the input type; C/D in the output type, which is f32 for a
  // fused cast of an f16/bf16 product (the scale type stays 32F).
  gemmTable = &gemm;
  this->inputDType = inputDType;
  this->outDType = outDType;
  this->biasDType = biasDType;
  cudaDataType_t inputType = cudaType(inputDType);
  cudaDataType_t outType = cudaType(outDType);
  alpha = gemm.alpha();
  beta = gemm.beta();
  hasC = gemm.c() >= 0;
  KILN_RETURN_IF_ERROR(cublasStatus(
      cublasLtMatmulDescCreate(&operation,
                               gemm.allow_tf32() && inputDType == DType_F32
                                   ? CUBLAS_COMPUTE_32F_FAST_TF32
                                   : CUBLAS_COMPUTE_32F,
                               CUDA_R_32F),
      "cublasLtMatmulDescCreate"));
  // Column-major view: cuBLASLt's A is our b, its B our a (see the header).
  cublasOperation_t transA = gemm.trans_b() ? CUBLAS_OP_T : CUBLAS_OP_N;
  cublasOperation_t transB = gemm.trans_a() ? CUBLAS_OP_T : CUBLAS_OP_N;
  KILN_RETURN_IF_ERROR(cublasStatus(
      cublasLtMatmulDescSetAttribute(operation, CUBLASLT_MATMUL_DESC_TRANSA,
                                     &transA, sizeof(transA)),
      "setting TRANSA"));
  KILN_RETURN_IF_ERROR(cublasStatus(
      cublasLtMatmulDescSetAttribute(operation, CUBLASLT_MATMUL_DESC_TRANSB,
                                     &transB, sizeof(transB)),
      "setting TRANSB"));
  cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_DEFAULT;
  switch (gemm.epilogue()) {
  case GemmEpilogue_Bias:
    epilogue = CUBLASLT_EPILOGUE_BIAS;
    break;
  case GemmEpilogue_Relu:
    epilogue = CUBLASLT_EPILOGUE_RELU;
    break;
  case GemmEpilogue_BiasRelu:
    epilogue = CUBLASLT_EPILOGUE_RELU_BIAS;
    break;
  case GemmEpilogue_Gelu:
    epilogue = CUBLASLT_EPILOGUE_GELU;
    break;
  case GemmEpilogue_BiasGelu:
    epilogue = CUBLASLT_EPILOGUE_GELU_BIAS;
    break;
  default:
    break;
  }
  hasBias = epilogue == CUBLASLT_EPILOGUE_BIAS ||
            epilogue == CUBLASLT_EPILOGUE_RELU_BIAS ||
            epilogue == CUBLASLT_EPILOGUE_GELU_BIAS;
  KILN_RETURN_IF_ERROR(cublasStatus(
      cublasLtMatmulDescSetAttribute(operation, CUBLASLT_MATMUL_DESC_EPILOGUE,
                                     &epilogue, sizeof(epilogue)),
      "setting the epilogue"));
  if (hasBias && biasDType != outDType) {
    cudaDataType_t biasType = cudaType(biasDType);
    KILN_RETURN_IF_ERROR(cublasStatus(
        cublasLtMatmulDescSetAttribute(operation,
                                       CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE,
                                       &biasType, sizeof(biasType)),
        "setting the bias type"));
  }
  int64_t m = gemm.m(), n = gemm.n(), k = gemm.k(), batch = gemm.batch();
  KILN_RETURN_IF_ERROR(makeLayout(
      &layoutA, inputType, gemm.trans_b() ? k : n, gemm.trans_b() ? n : k,
      gemm.trans_b() ? k : n, batch, gemm.stride_b(), "b"));
  KILN_RETURN_IF_ERROR(makeLayout(
      &layoutB, inputType, gemm.trans_a() ? m : k, gemm.trans_a() ? k : m,
      gemm.trans_a() ? m : k, batch, gemm.stride_a(), "a"));
  KILN_RETURN_IF_ERROR(makeLayout(&layoutC, outType, n, m, n, batch,
                                  hasC ? gemm.stride_c() : gemm.stride_out(),
                                  "c"));
  KILN_RETURN_IF_ERROR(
      makeLayout(&layoutD, outType, n, m, n, batch, gemm.stride_out(), "out"));

  KILN_RETURN_IF_ERROR(cublasStatus(cublasLtMatmulPreferenceCreate(&preference),
                                    "cublasLtMatmulPreferenceCreate"));
  uint64_t workspace = workspaceBytes;
  KILN_RETURN_IF_ERROR(
      cublasStatus(cublasLtMatmulPreferenceSetAttribute(
                       preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                       &workspace, sizeof(workspace)),
                   "setting the workspace size"));
  // Our cuBLASLt A/B are a/b swapped; alignments are given as a, b, c, out.
  const cublasLtMatmulPreferenceAttributes_t alignmentAttributes[4] = {
      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES,
      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES,
      CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES};
  for (int i = 0; i < 4; ++i) {
    uint32_t alignment = alignments[i];
    KILN_RETURN_IF_ERROR(cublasStatus(
        cublasLtMatmulPreferenceSetAttribute(preference, alignmentAttributes[i],
                                             &alignment, sizeof(alignment)),
        "setting operand alignment"));
  }
  // The heuristic's candidates: the first is used unless chooseAlgorithm
  // times a faster one.
  constexpr int kGemmCandidates = 8;
  cublasLtMatmulHeuristicResult_t results[kGemmCandidates] = {};
  int found = 0;
  KILN_RETURN_IF_ERROR(cublasStatus(
      cublasLtMatmulAlgoGetHeuristic(handle, operation, layoutA, layoutB,
                                     layoutC, layoutD, preference,
                                     kGemmCandidates, results, &found),
      "cublasLtMatmulAlgoGetHeuristic"));
  for (int i = 0; i < found; ++i)
    if (results[i].state == CUBLAS_STATUS_SUCCESS &&
        results[i].workspaceSize <= workspaceBytes)
      candidates.push_back(results[i].algo);
  found = int(candidates.size());
  if (found == 0)
    return Error(KILN_STATUS_INCOMPATIBLE)
           << "cuBLASLt has no algorithm for this gemm (m=" << m << " n=" << n
           << " k=" << k << " batch=" << batch << ", " << workspaceBytes
           << "-byte workspace)";
  algorithm = candidates.front();
  configuration = std::to_string(int(inputDType)) + "/" +
                  std::to_string(int(outDType)) + "/" +
                  std::to_string(int(biasDType));
  for (int64_t value :
       {m, n, k, batch, gemm.stride_a(), gemm.stride_b(), gemm.stride_c(),
        gemm.stride_out(), int64_t(gemm.trans_a()), int64_t(gemm.trans_b()),
        int64_t(gemm.epilogue()), int64_t(hasC), int64_t(gemm.allow_tf32()),
        int64_t(alignments[0]), int64_t(alignments[1]), int64_t(alignments[2]),
        int64_t(alignments[3]), int64_t(workspaceBytes)})
    configuration += "/" + std::to_string(value);
  configuration += "/" + std::to_string(alpha) + "/" + std::to_string(beta);
  return nullptr;
}

std::string GemmPlan::nameOf(const cublasLtMatmulAlgo_t &algo) {
  std::string name = "lt";
  const struct {
    cublasLtMatmulAlgoConfigAttributes_t attribute;
    const char *label;
  } fields[] = {{CUBLASLT_ALGO_CONFIG_ID, "id"},
                {CUBLASLT_ALGO_CONFIG_TILE_ID, "tile"},
                {CUBLASLT_ALGO_CONFIG_STAGES_ID, "stages"},
                {CUBLASLT_ALGO_CONFIG_SPLITK_NUM, "splitk"},
                {CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME, "reduction"},
                {CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING, "swizzle"}};
  for (const auto &field : fields) {
    uint32_t value = 0; // Each of these is 32 bits or less (zero-extended).
    size_t written = 0;
    if (cublasLtMatmulAlgoConfigGetAttribute(&algo, field.attribute, &value,
                                             sizeof(value), &written) ==
        CUBLAS_STATUS_SUCCESS)
      name += std::string(":") + field.label + std::to_string(value);
  }
  return name;
}

std::string GemmPlan::cacheTextOf(const cublasLtMatmulAlgo_t &algo) {
  std::string text = "algo=";
  char word[17];
  for (size_t i = 0; i < std::size(algo.data); ++i) {
    std::snprintf(word, sizeof(word), "%016llx",
                  static_cast<unsigned long long>(algo.data[i]));
    text += (i ? "," : "") + std::string(word);
  }
  return text;
}

bool GemmPlan::parseCachedAlgorithm(cublasLtHandle_t handle,
                                    const std::string &text,
                                    size_t workspaceBytes,
                                    cublasLtMatmulAlgo_t *algo) const {
  if (text.compare(0, 5, "algo=") != 0)
    return false;
  std::istringstream words(text.substr(5));
  size_t count = 0;
  for (std::string word; std::getline(words, word, ',');) {
    char *end = nullptr;
    if (count >= std::size(algo->data) || word.size() != 16)
      return false;
    algo->data[count++] = std::strtoull(word.c_str(), &end, 16);
    if (*end != '\0')
      return false;
  }
  if (count != std::size(algo->data))
    return false;
  cublasLtMatmulHeuristicResult_t result{};
  return cublasLtMatmulAlgoCheck(handle, operation, layoutA, layoutB, layoutC,
                                 layoutD, algo, &result) ==
             CUBLAS_STATUS_SUCCESS &&
         result.workspaceSize <= workspaceBytes;
}

kiln_status_t GemmPlan::chooseAlgorithm(cublasLtHandle_t handle,
                                        const GemmPointers &scratch,
                                        void *workspace, size_t workspaceBytes,
                                        const ChoiceContext &context,
                                        AlgorithmCache *cache) {
  auto candidateOf = [&](const cublasLtMatmulAlgo_t &algo) {
    LibraryCandidate candidate;
    candidate.name = nameOf(algo);
    candidate.cacheChoice = cacheTextOf(algo);
    candidate.enqueue = [this, handle, algo, &scratch, workspace,
                         workspaceBytes, &context] {
      algorithm = algo;
      return enqueue(handle, scratch, workspace, workspaceBytes,
                     context.stream);
    };
    return candidate;
  };
  if (const std::string *cached =
          cache ? cache->find("gemm", configuration) : nullptr) {
    cublasLtMatmulAlgo_t algo{};
    bool passed = false;
    if (parseCachedAlgorithm(handle, *cached, workspaceBytes, &algo)) {
      KILN_RETURN_IF_ERROR(checkCandidate(candidateOf(algo), context, &passed));
      if (passed) {
        algorithm = algo;
        return nullptr;
      }
    } else if (context.log) {
      context.log->push_back(context.step + ": cached choice '" + *cached +
                             "' is not accepted by this cuBLASLt");
    }
    cache->forget("gemm", configuration);
  }
  std::vector<LibraryCandidate> list;
  for (const cublasLtMatmulAlgo_t &candidate : candidates)
    list.push_back(candidateOf(candidate));
  int winner = -1;
  KILN_RETURN_IF_ERROR(chooseCandidate(list, context, &winner));
  if (winner < 0)
    return Error(KILN_STATUS_INTERNAL)
           << "none of cuBLASLt's " << list.size()
           << " candidates for this GEMM computes it within the precision's "
              "tolerance (the algorithm log below names each and its error)";
  algorithm = candidates[size_t(winner)];
  if (cache)
    cache->store("gemm", configuration, list[size_t(winner)].cacheChoice);
  return nullptr;
}

kiln_status_t GemmPlan::enqueue(cublasLtHandle_t handle,
                                const GemmPointers &pointers, void *workspace,
                                size_t workspaceBytes,
                                cudaStream_t stream) const {
  if (hasBias)
    KILN_RETURN_IF_ERROR(cublasStatus(
        cublasLtMatmulDescSetAttribute(operation,
                                       CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                                       &pointers.bias, sizeof(pointers.bias)),
        "setting the bias pointer"));
  const void *c = hasC ? pointers.c : pointers.out;
  float betaValue = hasC ? beta : 0.0f;
  return cublasStatus(
      cublasLtMatmul(handle, operation, &alpha, pointers.b, layoutA, pointers.a,
                     layoutB, &betaValue, c, layoutC, pointers.out, layoutD,
                     &algorithm, workspace, workspaceBytes, stream),
      "cublasLtMatmul");
}

} // namespace kiln::runtime
