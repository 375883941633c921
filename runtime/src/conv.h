// A Conv step prepared for cuDNN: descriptors and the algorithm chosen once
// per session.
#ifndef KILN_RUNTIME_CONV_H
#define KILN_RUNTIME_CONV_H

#include "algorithm_cache.h"
#include "algorithm_choice.h"
#include "artifact_reader.h"
#include "conv_graph.h"

#include <cudnn.h>

#include <memory>
#include <string>
#include <vector>

namespace kiln::runtime {

/// Which of cuDNN's APIs may run Conv steps: both (the faster per step),
/// only the legacy convolution API, or only the graph (backend) API.
/// KILN_CONV_PATH=auto|legacy|graph chooses (tests use it to force a path).
/// The default is the legacy API: graph plans run behind a fence (a memset
/// before each, against the race cuDNN's programmatic launches caused, see
/// docs/architecture.md, "The graph-plan race and its fence"), which costs
/// more than they gained on the H200 (ResNet-50 bs32: 1.40 ms against the
/// legacy API's 1.02 ms).
enum class ConvPath { Any, Legacy, Graph };

/// Parses KILN_CONV_PATH's value: NULL or "" is the default (Legacy);
/// "auto" is Any; "legacy", "graph"; anything else is INVALID_ARGUMENT
/// naming the variable.
kiln_status_t parseConvPath(const char *text, ConvPath *path);

/// out = act(conv2d(x, w) (+ bias per output channel) (+ residual)) on NCHW
/// or NHWC tensors (the step's layout), accumulating in fp32, by whichever
/// candidate that computes it correctly measures fastest at session
/// creation (algorithm_choice.h):
///  - legacy API: one cudnnConvolutionBiasActivationForward (needs a bias;
///    IDENTITY activation when there is no relu, which only the
///    precomputed implicit GEMM takes), or the unfused sequence
///    (cudnnConvolutionForward, cudnnAddTensor for the bias and the
///    residual, cudnnActivationForward), for each deterministic algorithm;
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
  /// algorithm yet. |conv| must outlive the plan (the model's manifest).
  kiln_status_t create(const kiln::artifact::Conv &conv,
                       kiln::artifact::DType dtype);

  /// Chooses the algorithm on |scratch| (buffers of the operands' sizes
  /// holding the random operands of |context|'s gate) among the candidates
  /// |path| allows, in a fixed order: the legacy algorithms cuDNN runs
  /// within |workspaceBytes| (by algorithm, unfused then fused), then the
  /// graph plans that fit it. Each runs as the step will (epilogue
  /// included), replayed from a CUDA graph; only those whose output passes
  /// the gate compete on time. A choice in |cache| (if any) is checked and
  /// taken without timing; the choice made is stored there. Graph-building
  /// failures only remove the graph candidates, except with
  /// ConvPath::Graph. A graph plan that wins is built anew for the step:
  /// the plan a step runs is never one that was captured and replayed for
  /// timing, nor one another step runs (on the H200, cuDNN 9 plans reused so
  /// gave wrong outputs in the model's CUDA graph). Synchronises the
  /// context's stream.
  kiln_status_t chooseAlgorithm(cudnnHandle_t handle,
                                const ConvPointers &scratch, void *workspace,
                                size_t workspaceBytes,
                                const ChoiceContext &context, ConvPath path,
                                AlgorithmCache *cache);

  /// Identifies the convolution (shape, layout, dtype, epilogue, TF32):
  /// steps with equal keys can share one choice.
  const std::string &key() const { return identity; }
  /// Takes |other|'s choice (same key) instead of choosing; a graph plan is
  /// built anew on |handle| from the same engine and knobs (every step owns
  /// a plan of its own, see chooseAlgorithm).
  kiln_status_t useChoiceOf(const ConvPlan &other, cudnnHandle_t handle,
                            size_t workspaceBytes);

  /// Enqueues the convolution (and bias) on |stream|. Capturable (a fixed
  /// workspace, no allocation, no sync).
  kiln_status_t enqueue(cudnnHandle_t handle, const ConvPointers &pointers,
                        void *workspace, size_t workspaceBytes,
                        cudaStream_t stream) const;

  /// Bytes of x, w, bias (0 without), out and the residual (0 without): the
  /// scratch buffers of chooseAlgorithm.
  size_t operandBytes[5] = {0, 0, 0, 0, 0};
  /// The step's table and dtype (for the accuracy gate's reference).
  const kiln::artifact::Conv *table() const { return convTable; }
  kiln::artifact::DType dtype() const { return operandType; }

  /// "implicit_precomp_gemm", "winograd", ... after chooseAlgorithm, with
  /// "+fused" when the epilogue runs in the same cuDNN call, or the graph
  /// plan's "graph:eng<N>:k<knob>=<value>,..."; for profiles.
  std::string algorithmName() const;

private:
  /// One way to run the step (a legacy algorithm or a graph plan).
  struct Choice;
  /// One execution with |algo| (its workspace need |algoWorkspace|).
  kiln_status_t run(cudnnHandle_t handle, const ConvPointers &pointers,
                    cudnnConvolutionFwdAlgo_t algo, size_t algoWorkspace,
                    bool fusedCall, void *workspace) const;
  /// Enqueues |choice| (setting its math type first).
  kiln_status_t runChoice(cudnnHandle_t handle, const Choice &choice,
                          const ConvPointers &pointers, void *workspace);
  /// The legacy candidates in a fixed order; an error when cuDNN has none.
  kiln_status_t legacyChoices(cudnnHandle_t handle, const ConvPointers &scratch,
                              void *workspace, size_t workspaceBytes,
                              std::vector<Choice> *choices);
  /// The graph plans' candidates; an error when none builds.
  kiln_status_t graphChoices(cudnnHandle_t handle, size_t workspaceBytes,
                             std::vector<Choice> *choices);
  /// |choice| rebuilt from the algorithm cache's text; false if the text is
  /// not one of ours or cuDNN no longer builds it.
  bool parseCachedChoice(cudnnHandle_t handle, const std::string &text,
                         size_t workspaceBytes, Choice *choice);
  /// Makes |choice| the step's algorithm (a graph plan built anew on
  /// |handle|).
  kiln_status_t apply(const Choice &choice, cudnnHandle_t handle,
                      size_t workspaceBytes);
  static std::string nameOf(const Choice &choice);
  static std::string cacheTextOf(const Choice &choice);

  const kiln::artifact::Conv *convTable = nullptr;
  kiln::artifact::DType operandType = kiln::artifact::DType_F32;
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
