// A Gemm step prepared for cuBLASLt: descriptors and the algorithm chosen once
// per session.
#ifndef KILN_RUNTIME_GEMM_H
#define KILN_RUNTIME_GEMM_H

#include "algorithm_cache.h"
#include "algorithm_choice.h"
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

  /// Chooses among cuBLASLt's heuristic candidates (up to kGemmCandidates,
  /// in the heuristic's order) on |scratch| (buffers of the operands' sizes
  /// holding the random operands of |context|'s gate): each runs replayed
  /// from a CUDA graph, and only those whose output passes the gate compete
  /// on GPU time (algorithm_choice.h). A choice in |cache| (if any) is
  /// checked and taken without timing; the choice made is stored there.
  /// Synchronises the context's stream.
  kiln_status_t chooseAlgorithm(cublasLtHandle_t handle,
                                const GemmPointers &scratch, void *workspace,
                                size_t workspaceBytes,
                                const ChoiceContext &context,
                                AlgorithmCache *cache);

  /// Equal for plans that run identically (dims, strides, transposes,
  /// epilogue, scalars, input/output/bias dtypes, alignments, workspace): one
  /// timing serves them all (useAlgorithmOf).
  const std::string &key() const { return configuration; }
  void useAlgorithmOf(const GemmPlan &timed) { algorithm = timed.algorithm; }
  /// The chosen algorithm's cuBLASLt configuration ("lt:id6:tile20:..."),
  /// for profiles and logs.
  std::string algorithmName() const { return nameOf(algorithm); }
  /// The step's table and dtypes (for the accuracy gate's reference);
  /// |gemm| of create must outlive the plan (the model's manifest).
  const kiln::artifact::Gemm *table() const { return gemmTable; }
  kiln::artifact::DType inputType() const { return inputDType; }
  kiln::artifact::DType outType() const { return outDType; }
  kiln::artifact::DType biasType() const { return biasDType; }
  /// Bytes of a, b, c, bias (0 without) and out, for scratch operands.
  size_t operandBytes[5] = {0, 0, 0, 0, 0};

  /// Enqueues the matmul on |stream|. Capturable (no allocation, no sync).
  kiln_status_t enqueue(cublasLtHandle_t handle, const GemmPointers &pointers,
                        void *workspace, size_t workspaceBytes,
                        cudaStream_t stream) const;

private:
  static std::string nameOf(const cublasLtMatmulAlgo_t &algo);
  static std::string cacheTextOf(const cublasLtMatmulAlgo_t &algo);
  /// |*algo| from the cache's text if cuBLASLt still accepts it here.
  bool parseCachedAlgorithm(cublasLtHandle_t handle, const std::string &text,
                            size_t workspaceBytes,
                            cublasLtMatmulAlgo_t *algo) const;

  const kiln::artifact::Gemm *gemmTable = nullptr;
  kiln::artifact::DType inputDType = kiln::artifact::DType_F32,
                        outDType = kiln::artifact::DType_F32,
                        biasDType = kiln::artifact::DType_F32;
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
