// A Conv step prepared for cuDNN: descriptors and the algorithm chosen once
// per session.
#ifndef KILN_RUNTIME_CONV_H
#define KILN_RUNTIME_CONV_H

#include "artifact_reader.h"

#include <cudnn.h>

#include <string>

namespace kiln::runtime {

/// Pointers of one Conv execution (bias and residual may be NULL).
struct ConvPointers {
  const void *x, *w, *bias;
  void *out;
  const void *residual = nullptr;
};

/// out = act(conv2d(x, w) (+ bias per output channel) (+ residual)) on NCHW
/// or NHWC tensors (the step's layout), accumulating in fp32, by whichever
/// measures faster at session creation: one
/// cudnnConvolutionBiasActivationForward (needs a bias; IDENTITY activation
/// when there is no relu, which only the precomputed implicit GEMM takes),
/// or the unfused sequence (cudnnConvolutionForward, cudnnAddTensor for the
/// bias and the residual, cudnnActivationForward). f16/bf16 use tensor
/// cores; f32 uses FMA only (no TF32) unless the step allows TF32.
class ConvPlan {
public:
  ConvPlan() = default;
  ConvPlan(const ConvPlan &) = delete;
  ConvPlan &operator=(const ConvPlan &) = delete;
  ~ConvPlan();

  /// Builds the descriptors (|dtype| is every operand's). Does not choose an
  /// algorithm yet.
  kiln_status_t create(const kiln::artifact::Conv &conv,
                       kiln::artifact::DType dtype);

  /// Chooses the algorithm on |scratch| (buffers of the operands' sizes whose
  /// contents do not matter): cuDNN's own timing ranks the algorithms that
  /// need at most |workspaceBytes|, then the best few run as the step will
  /// (epilogue included), replayed from a CUDA graph and timed on the GPU
  /// (gpu_timing.h) three times, and the lowest median wins (ties: cuDNN's
  /// order). The chosen call ran last, so nothing loads
  /// lazily during graph capture. Synchronises |stream|.
  kiln_status_t chooseAlgorithm(cudnnHandle_t handle,
                                const ConvPointers &scratch, void *workspace,
                                size_t workspaceBytes, cudaStream_t stream);

  /// Enqueues the convolution (and bias) on |stream|. Capturable (a fixed
  /// workspace, no allocation, no sync).
  kiln_status_t enqueue(cudnnHandle_t handle, const ConvPointers &pointers,
                        void *workspace, size_t workspaceBytes,
                        cudaStream_t stream) const;

  /// Bytes of x, w, bias (0 without), out and the residual (0 without): the
  /// scratch buffers of chooseAlgorithm.
  size_t operandBytes[5] = {0, 0, 0, 0, 0};

  /// "implicit_precomp_gemm", "winograd", ... after chooseAlgorithm, with
  /// "+fused" when the epilogue runs in the same cuDNN call; for profiles.
  std::string algorithmName() const;

private:
  /// One execution with |algo| (its workspace need |algoWorkspace|).
  kiln_status_t run(cudnnHandle_t handle, const ConvPointers &pointers,
                    cudnnConvolutionFwdAlgo_t algo, size_t algoWorkspace,
                    bool fusedCall, void *workspace) const;

  cudnnTensorDescriptor_t xDesc = nullptr, yDesc = nullptr, biasDesc = nullptr;
  cudnnFilterDescriptor_t wDesc = nullptr;
  cudnnConvolutionDescriptor_t convDesc = nullptr;
  cudnnActivationDescriptor_t activationDesc = nullptr;
  cudnnConvolutionFwdAlgo_t algorithm =
      CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  size_t algorithmWorkspace = 0;
  bool keepFmaMath = false;
  /// The step's epilogue (a residual, relu), and whether the chosen call is
  /// cudnnConvolutionBiasActivationForward (else: the unfused sequence).
  bool hasResidual = false, relu = false, fused = false;
};

} // namespace kiln::runtime

#endif // KILN_RUNTIME_CONV_H
