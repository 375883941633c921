// Choosing how a Conv step runs, at session creation: the legacy API's
// algorithms (fused and unfused) and the graph API's execution plans, each
// timed on the GPU as the step will run (gpu_timing.h); the lowest median
// wins.
#include "conv.h"
#include "gpu_timing.h"
#include "status.h"

#include <string>
#include <vector>

namespace kiln::runtime {

/// The fastest candidate so far (time < 0: none yet): a legacy algorithm
/// or a graph plan.
struct ConvPlan::Choice {
  float time = -1;
  cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  size_t memory = 0;
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;
  bool fused = false;
  std::shared_ptr<ConvGraph> graph; // Set when a graph plan is fastest.
  size_t plan = 0;

  /// Strictly faster only, so that ties keep the earlier candidate.
  bool beatenBy(float candidate) const {
    return candidate >= 0 && (time < 0 || candidate < time);
  }
};

namespace {
/// How many of cuDNN's ranked legacy algorithms are timed as the step runs.
constexpr int kTimedAlgorithms = 4;
} // namespace

kiln_status_t ConvPlan::timeLegacy(cudnnHandle_t handle,
                                   const ConvPointers &scratch, void *workspace,
                                   size_t workspaceBytes, cudaStream_t stream,
                                   Choice *choice) {
  constexpr int kMaxAlgorithms = CUDNN_CONVOLUTION_FWD_ALGO_COUNT;
  cudnnConvolutionFwdAlgoPerf_t results[kMaxAlgorithms];
  int found = 0;
  // Only algorithms that fit the workspace are tried; results come fastest
  // first.
  KILN_RETURN_IF_ERROR(
      cudnnStatus(cudnnFindConvolutionForwardAlgorithmEx(
                      handle, xDesc, scratch.x, wDesc, scratch.w, convDesc,
                      yDesc, scratch.out, kMaxAlgorithms, &found, results,
                      workspaceBytes ? workspace : nullptr, workspaceBytes),
                  "cudnnFindConvolutionForwardAlgorithmEx"));
  std::vector<const cudnnConvolutionFwdAlgoPerf_t *> ranked;
  for (int i = 0; i < found && int(ranked.size()) < kTimedAlgorithms; ++i)
    if (results[i].status == CUDNN_STATUS_SUCCESS &&
        results[i].memory <= workspaceBytes)
      ranked.push_back(&results[i]);
  if (ranked.empty())
    return Error(KILN_STATUS_INCOMPATIBLE)
           << "cuDNN has no algorithm for this convolution within a "
           << workspaceBytes << "-byte workspace";

  // Every candidate fused (when there is a bias) and unfused, fused first
  // on ties. Replayed from a graph (timeCandidate): enqueued directly, a
  // call spends tens of microseconds on the host, which events around it
  // would count (and did: the choice fell on algorithms several times
  // slower on the GPU).
  bool anyRan = false;
  for (bool fusedCall : {true, false}) {
    if (fusedCall && !activationDesc)
      continue;
    for (const cudnnConvolutionFwdAlgoPerf_t *perf : ranked) {
      // IDENTITY (no relu: the bias, and the residual if any) fuses only
      // in the precomputed implicit GEMM.
      if (fusedCall && !relu &&
          perf->algo != CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM)
        continue;
      if (!keepFmaMath)
        KILN_RETURN_IF_ERROR(
            cudnnStatus(cudnnSetConvolutionMathType(convDesc, perf->mathType),
                        "setting the math type"));
      float time = -1;
      // A refused call (a fused pattern cuDNN does not take) times -1.
      KILN_RETURN_IF_ERROR(timeCandidate(
          stream,
          [&] {
            return run(handle, scratch, perf->algo, perf->memory, fusedCall,
                       workspace);
          },
          &time));
      anyRan |= time >= 0;
      if (choice->beatenBy(time)) {
        *choice = Choice();
        choice->time = time;
        choice->algo = perf->algo;
        choice->memory = perf->memory;
        choice->math = keepFmaMath ? mathType : perf->mathType;
        choice->fused = fusedCall;
      }
    }
  }
  if (!anyRan)
    return Error(KILN_STATUS_INCOMPATIBLE)
           << "no cuDNN algorithm runs this convolution";
  return nullptr;
}

kiln_status_t ConvPlan::timeGraph(cudnnHandle_t handle,
                                  const ConvPointers &scratch, void *workspace,
                                  size_t workspaceBytes, cudaStream_t stream,
                                  Choice *choice) {
  auto built = std::make_shared<ConvGraph>();
  KILN_RETURN_IF_ERROR(
      built->build(handle, graphShape, !keepFmaMath, workspaceBytes));
  bool anyRan = false;
  std::string names;
  for (size_t i = 0; i < built->plans().size(); ++i) {
    names += (i ? ", " : "") + built->plans()[i].name;
    float time = -1;
    KILN_RETURN_IF_ERROR(timeCandidate(
        stream, [&] { return built->execute(handle, i, scratch, workspace); },
        &time));
    anyRan |= time >= 0;
    if (choice->beatenBy(time)) {
      *choice = Choice();
      choice->time = time;
      choice->graph = built;
      choice->plan = i;
      choice->memory = size_t(built->plans()[i].workspaceBytes);
    }
  }
  if (!anyRan)
    return Error(KILN_STATUS_INCOMPATIBLE)
           << "none of cuDNN's graph plans (" << names
           << ") runs and captures this convolution";
  return nullptr;
}

kiln_status_t ConvPlan::chooseAlgorithm(cudnnHandle_t handle,
                                        const ConvPointers &scratch,
                                        void *workspace, size_t workspaceBytes,
                                        cudaStream_t stream, ConvPath path) {
  KILN_RETURN_IF_ERROR(
      cudnnStatus(cudnnSetStream(handle, stream), "cudnnSetStream"));
  Choice choice;
  // Either path failing only removes its candidates, unless nothing is left.
  kiln_status_t legacyProblem = nullptr, graphProblem = nullptr;
  if (path != ConvPath::Graph)
    legacyProblem =
        timeLegacy(handle, scratch, workspace, workspaceBytes, stream, &choice);
  if (path != ConvPath::Legacy)
    graphProblem =
        timeGraph(handle, scratch, workspace, workspaceBytes, stream, &choice);
  if (choice.time < 0) {
    if (path == ConvPath::Graph)
      return annotate(graphProblem, "KILN_CONV_PATH=graph");
    if (path == ConvPath::Legacy)
      return annotate(legacyProblem, "KILN_CONV_PATH=legacy");
    kiln_status_code_t code =
        legacyProblem ? kiln_status_code(legacyProblem) : KILN_STATUS_INTERNAL;
    std::string legacy = takeMessage(legacyProblem);
    return Error(code) << legacy << "; graph API: " << takeMessage(graphProblem);
  }
  kiln_status_free(legacyProblem);
  kiln_status_free(graphProblem);

  algorithmWorkspace = choice.memory;
  fused = choice.fused;
  if (choice.graph) {
    choice.graph->keepOnly(choice.plan); // The others' memory goes now.
    graph = std::move(choice.graph);
    return nullptr;
  }
  graph.reset();
  algorithm = choice.algo;
  mathType = choice.math;
  // The math type the timing used (tensor cores or not); f32 without TF32
  // stays on FMA.
  return cudnnStatus(cudnnSetConvolutionMathType(convDesc, mathType),
                     "setting the chosen math type");
}

kiln_status_t ConvPlan::useChoiceOf(const ConvPlan &other) {
  graph = other.graph;
  algorithm = other.algorithm;
  algorithmWorkspace = other.algorithmWorkspace;
  mathType = other.mathType;
  fused = other.fused;
  return cudnnStatus(cudnnSetConvolutionMathType(convDesc, mathType),
                     "setting the chosen math type");
}

} // namespace kiln::runtime
