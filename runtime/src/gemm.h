// A Gemm step prepared for cuBLASLt: descriptors and the algorithm chosen once
// per session.
#ifndef KILN_RUNTIME_GEMM_H
#define KILN_RUNTIME_GEMM_H

#include "artifact_reader.h"

#include <cublasLt.h>

#include <string>
#include <vector>

namespace kiln::runtime {

/// Pointers of one Gemm execution (c and bias may be NULL).
struct GemmPointers {
  const void *a, *b, *c, *bias;
  void *out;
};

/// Row-major out[b] = alpha * op(a[b]) x op(b[b]) (+ beta * c[b]) (+ bias,
/// relu), computed in column-major cuBLASLt as out^T = op(b)^T x op(a)^T. fp32
/// uses CUBLAS_COMPUTE_32F (no TF32); f16/bf16 accumulate in fp32. a and b
/// have one dtype, c, bias and out another: the same, or f32 for f16/bf16 a
/// and b (a fused cast: C/D in 32F, which cuBLASLt supports at 32F compute).
class GemmPlan {
public:
  GemmPlan() = default;
  GemmPlan(const GemmPlan &) = delete;
  GemmPlan &operator=(const GemmPlan &) = delete;
  ~GemmPlan();

  /// Builds the descriptors (a and b in |inputDType|, c and out in
  /// |outDType|; validated by validateGemmStep) and asks cuBLASLt's heuristic
  /// for an algorithm that fits |workspaceBytes| and operands aligned to
  /// |alignments| (bytes, for a, b, c, out).
  kiln_status_t create(cublasLtHandle_t handle,
                       const kiln::artifact::Gemm &gemm,
                       kiln::artifact::DType inputDType,
                       kiln::artifact::DType outDType,
                       kiln::artifact::DType biasDType,
                       const uint32_t alignments[4], size_t workspaceBytes);

  /// Times cuBLASLt's heuristic candidates (up to kGemmCandidates) on
  /// |scratch| (buffers of the operands' sizes, contents irrelevant),
  /// replayed from a CUDA graph and timed on the GPU (gpu_timing.h), and
  /// keeps the fastest (ties: the heuristic's order). Synchronises |stream|.
  kiln_status_t chooseAlgorithm(cublasLtHandle_t handle,
                                const GemmPointers &scratch, void *workspace,
                                size_t workspaceBytes, cudaStream_t stream);

  /// Equal for plans that run identically (dims, strides, transposes,
  /// epilogue, scalars, input/output/bias dtypes, alignments, workspace): one
  /// timing serves them all (useAlgorithmOf).
  const std::string &key() const { return configuration; }
  void useAlgorithmOf(const GemmPlan &timed) { algorithm = timed.algorithm; }
  /// Bytes of a, b, c, bias (0 without) and out, for scratch operands.
  size_t operandBytes[5] = {0, 0, 0, 0, 0};

  /// Enqueues the matmul on |stream|. Capturable (no allocation, no sync).
  kiln_status_t enqueue(cublasLtHandle_t handle, const GemmPointers &pointers,
                        void *workspace, size_t workspaceBytes,
                        cudaStream_t stream) const;

private:
  cublasLtMatmulDesc_t operation = nullptr;
  cublasLtMatrixLayout_t layoutA = nullptr, layoutB = nullptr,
                         layoutC = nullptr, layoutD = nullptr;
  cublasLtMatmulPreference_t preference = nullptr;
  cublasLtMatmulAlgo_t algorithm{};
  std::vector<cublasLtMatmulAlgo_t> candidates; // The heuristic's, best first.
  std::string configuration;
  float alpha = 1, beta = 0;
  bool hasBias = false, hasC = false;
};

} // namespace kiln::runtime

#endif // KILN_RUNTIME_GEMM_H
