// A Conv step prepared for cuDNN: descriptors and the algorithm chosen once
// per session.
#ifndef KILN_RUNTIME_CONV_H
#define KILN_RUNTIME_CONV_H

#include "artifact_reader.h"

#include <cudnn.h>

namespace kiln::runtime {

/// Pointers of one Conv execution (bias may be NULL).
struct ConvPointers {
  const void *x, *w, *bias;
  void *out;
};

/// out = conv2d(x, w) (+ bias per output channel) on NCHW or NHWC tensors
/// (the step's layout), computed
/// by cudnnConvolutionForward then cudnnAddTensor, accumulating in fp32.
/// f16/bf16 use tensor cores; f32 uses FMA only (no TF32) unless the step
/// allows TF32.
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

  /// Times cuDNN's algorithms on |scratch| (buffers of the operands' sizes
  /// whose contents do not matter) and keeps the fastest that needs at most
  /// |workspaceBytes|; then runs the chosen one once so nothing loads lazily
  /// during graph capture. Synchronises |stream|.
  kiln_status_t chooseAlgorithm(cudnnHandle_t handle,
                                const ConvPointers &scratch, void *workspace,
                                size_t workspaceBytes, cudaStream_t stream);

  /// Enqueues the convolution (and bias) on |stream|. Capturable (a fixed
  /// workspace, no allocation, no sync).
  kiln_status_t enqueue(cudnnHandle_t handle, const ConvPointers &pointers,
                        void *workspace, size_t workspaceBytes,
                        cudaStream_t stream) const;

  /// Bytes of x, w, bias (0 without) and out: the scratch buffers of
  /// chooseAlgorithm.
  size_t operandBytes[4] = {0, 0, 0, 0};

private:
  cudnnTensorDescriptor_t xDesc = nullptr, yDesc = nullptr, biasDesc = nullptr;
  cudnnFilterDescriptor_t wDesc = nullptr;
  cudnnConvolutionDescriptor_t convDesc = nullptr;
  cudnnConvolutionFwdAlgo_t algorithm =
      CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  size_t algorithmWorkspace = 0;
  bool keepFmaMath = false;
};

} // namespace kiln::runtime

#endif // KILN_RUNTIME_CONV_H
