// Gemm steps through cuBLASLt: row-major via the transpose trick, epilogues,
// strided batches.
#include "gemm.h"
#include "gpu_timing.h"
#include "status.h"


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

kiln_status_t GemmPlan::chooseAlgorithm(cublasLtHandle_t handle,
                                        const GemmPointers &scratch,
                                        void *workspace, size_t workspaceBytes,
                                        cudaStream_t stream) {
  float bestTime = -1;
  cublasLtMatmulAlgo_t best = candidates.front();
  for (const cublasLtMatmulAlgo_t &candidate : candidates) {
    algorithm = candidate;
    float time = -1;
    KILN_RETURN_IF_ERROR(timeCandidate(stream, [&] {
      return enqueue(handle, scratch, workspace, workspaceBytes, stream);
    }, &time));
    if (time >= 0 && (bestTime < 0 || time < bestTime)) {
      bestTime = time;
      best = candidate;
    }
  }
  algorithm = best;
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
