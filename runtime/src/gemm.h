// A Gemm step prepared for cuBLASLt: descriptors and the algorithm chosen once
// per session.
#ifndef KILN_RUNTIME_GEMM_H
#define KILN_RUNTIME_GEMM_H

#include "artifact_reader.h"

#include <cublasLt.h>

namespace kiln::runtime {

/// Pointers of one Gemm execution (c and bias may be NULL).
struct GemmPointers {
  const void *a, *b, *c, *bias;
  void *out;
};

/// Row-major out[b] = alpha * op(a[b]) x op(b[b]) (+ beta * c[b]) (+ bias,
/// relu), computed in column-major cuBLASLt as out^T = op(b)^T x op(a)^T. fp32
/// uses CUBLAS_COMPUTE_32F (no TF32); f16/bf16 accumulate in fp32.
class GemmPlan {
public:
  GemmPlan() = default;
  GemmPlan(const GemmPlan &) = delete;
  GemmPlan &operator=(const GemmPlan &) = delete;
  ~GemmPlan();

  /// Builds the descriptors and asks cuBLASLt's heuristic for an algorithm
  /// that fits |workspaceBytes| and operands aligned to |alignments| (bytes,
  /// for a, b, c, out).
  kiln_status_t create(cublasLtHandle_t handle,
                       const kiln::artifact::Gemm &gemm,
                       kiln::artifact::DType dtype,
                       kiln::artifact::DType biasDType,
                       const uint32_t alignments[4], size_t workspaceBytes);

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
  float alpha = 1, beta = 0;
  bool hasBias = false, hasC = false;
};

} // namespace kiln::runtime

#endif // KILN_RUNTIME_GEMM_H
