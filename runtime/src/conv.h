// A Conv step prepared for cuDNN: descriptors and the algorithm chosen once
// per session.
#ifndef KILN_RUNTIME_CONV_H
#define KILN_RUNTIME_CONV_H

#include "artifact_reader.h"
#include "conv_graph.h"

#include <cudnn.h>

#include <memory>
#include <string>

namespace kiln::runtime {

/// Which of cuDNN's APIs may run Conv steps: both (the faster per step),
/// only the legacy convolution API, or only the graph (backend) API.
/// KILN_CONV_PATH=legacy|graph restricts it (tests use it to force a path).
enum class ConvPath { Any, Legacy, Graph };

/// Parses KILN_CONV_PATH's value: NULL, "" or "auto" is Any; "legacy",
/// "graph"; anything else is INVALID_ARGUMENT naming the variable.
kiln_status_t parseConvPath(const char *text, ConvPath *path);

/// out = act(conv2d(x, w) (+ bias per output channel) (+ residual)) on NCHW
/// or NHWC tensors (the step's layout), accumulating in fp32, by whichever
/// candidate measures faster at session creation:
///  - legacy API: one cudnnConvolutionBiasActivationForward (needs a bias;
///    IDENTITY activation when there is no relu, which only the
///    precomputed implicit GEMM takes), or the unfused sequence
///    (cudnnConvolutionForward, cudnnAddTensor for the bias and the
///    residual, cudnnActivationForward);
///  - graph API (conv_graph.h): one execution plan of the operation graph
///    conv -> + bias -> + residual -> relu, for each of the first engines
///    cuDNN's heuristics propose.
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

  /// Chooses the algorithm on |scratch| (buffers of the operands' sizes whose
  /// contents do not matter) among the candidates |path| allows: cuDNN's own
  /// timing ranks the legacy algorithms that need at most |workspaceBytes|,
  /// each runs fused and unfused; the graph plans that fit it join them.
  /// Each is run as the step will (epilogue included), replayed from a
  /// CUDA graph and timed on the GPU (gpu_timing.h timeCandidate, which
  /// also runs it once uncaptured first), and the lowest median wins (ties:
  /// legacy first, then cuDNN's order). Graph-building failures only remove
  /// the graph candidates, except with ConvPath::Graph, where no graph plan
  /// is an error with cuDNN's reason. Synchronises |stream|.
  kiln_status_t chooseAlgorithm(cudnnHandle_t handle,
                                const ConvPointers &scratch, void *workspace,
                                size_t workspaceBytes, cudaStream_t stream,
                                ConvPath path = ConvPath::Any);

  /// Identifies the convolution (shape, layout, dtype, epilogue, TF32):
  /// steps with equal keys can share one choice.
  const std::string &key() const { return identity; }
  /// Takes |other|'s choice (same key, same handle) instead of timing.
  kiln_status_t useChoiceOf(const ConvPlan &other);

  /// Enqueues the convolution (and bias) on |stream|. Capturable (a fixed
  /// workspace, no allocation, no sync).
  kiln_status_t enqueue(cudnnHandle_t handle, const ConvPointers &pointers,
                        void *workspace, size_t workspaceBytes,
                        cudaStream_t stream) const;

  /// Bytes of x, w, bias (0 without), out and the residual (0 without): the
  /// scratch buffers of chooseAlgorithm.
  size_t operandBytes[5] = {0, 0, 0, 0, 0};

  /// "implicit_precomp_gemm", "winograd", ... after chooseAlgorithm, with
  /// "+fused" when the epilogue runs in the same cuDNN call, or the graph
  /// plan's "graph:eng<N>:k<knob>=<value>,..."; for profiles.
  std::string algorithmName() const;

private:
  /// One execution with |algo| (its workspace need |algoWorkspace|).
  kiln_status_t run(cudnnHandle_t handle, const ConvPointers &pointers,
                    cudnnConvolutionFwdAlgo_t algo, size_t algoWorkspace,
                    bool fusedCall, void *workspace) const;
  /// The fastest candidate so far (conv_choice.cpp).
  struct Choice;
  /// Times the legacy candidates into |*choice|; an error when none runs.
  kiln_status_t timeLegacy(cudnnHandle_t handle, const ConvPointers &scratch,
                           void *workspace, size_t workspaceBytes,
                           cudaStream_t stream, Choice *choice);
  /// The same for the graph plans (they replace |*choice| only when
  /// strictly faster); an error when none builds or runs.
  kiln_status_t timeGraph(cudnnHandle_t handle, const ConvPointers &scratch,
                          void *workspace, size_t workspaceBytes,
                          cudaStream_t stream, Choice *choice);

  cudnnTensorDescriptor_t xDesc = nullptr, yDesc = nullptr, biasDesc = nullptr;
  cudnnFilterDescriptor_t wDesc = nullptr;
  cudnnConvolutionDescriptor_t convDesc = nullptr;
  cudnnActivationDescriptor_t activationDesc = nullptr;
  cudnnConvolutionFwdAlgo_t algorithm =
      CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  cudnnMathType_t mathType = CUDNN_DEFAULT_MATH;
  size_t algorithmWorkspace = 0;
  bool keepFmaMath = false;
  /// The step's epilogue (a residual, relu), and whether the chosen call is
  /// cudnnConvolutionBiasActivationForward (else: the unfused sequence).
  bool hasResidual = false, relu = false, fused = false;
  /// The graph path: its shape, and after chooseAlgorithm, when a graph
  /// plan won, the graph holding only that plan (shared by steps with the
  /// same key).
  ConvGraphShape graphShape;
  std::shared_ptr<const ConvGraph> graph;
  std::string identity;
};

} // namespace kiln::runtime

#endif // KILN_RUNTIME_CONV_H
