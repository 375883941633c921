// Choosing how a Conv step runs, at session creation: the legacy API's
// deterministic algorithms (unfused and fused) and the graph API's
// execution plans, in a fixed order, each run as the step will and checked
// against the step's reference before it competes on GPU time
// (algorithm_choice.h); or the choice the algorithm cache holds, checked.
#include "conv.h"
#include "status.h"

#include <algorithm>
#include <iterator>
#include <cstdio>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace kiln::runtime {

/// One way to run the step: a legacy algorithm (with its math type and
/// workspace, fused or not) or plan |plan| of |graph|.
struct ConvPlan::Choice {
  cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;
  size_t memory = 0;
  bool fused = false;
  std::shared_ptr<ConvGraph> graph; // Set for a graph plan.
  size_t plan = 0;
};

std::string ConvPlan::nameOf(const Choice &choice) {
  if (choice.graph)
    return choice.graph->plans()[choice.plan].name;
  static const char *const names[] = {
      "implicit_gemm", "implicit_precomp_gemm", "gemm", "direct",
      "fft", "fft_tiling", "winograd", "winograd_nonfused"};
  std::string name = size_t(choice.algo) < std::size(names)
                         ? names[choice.algo]
                         : "algo" + std::to_string(int(choice.algo));
  if (choice.math == CUDNN_FMA_MATH)
    name += "+fma";
  return name + (choice.fused ? "+fused" : "");
}

std::string ConvPlan::algorithmName() const {
  if (graph)
    return graph->plans().front().name;
  Choice choice;
  choice.algo = algorithm;
  choice.math = mathType;
  choice.fused = fused;
  return nameOf(choice);
}

std::string ConvPlan::cacheTextOf(const Choice &choice) {
  std::ostringstream text;
  if (choice.graph) {
    const ConvGraph::Plan &plan = choice.graph->plans()[choice.plan];
    text << "graph engine=" << plan.engine << " knobs=";
    for (size_t i = 0; i < plan.knobs.size(); ++i)
      text << (i ? "," : "") << plan.knobs[i].first << ':'
           << plan.knobs[i].second;
  } else {
    text << "legacy algo=" << int(choice.algo) << " math=" << int(choice.math)
         << " fused=" << int(choice.fused);
  }
  return text.str();
}

bool ConvPlan::parseCachedChoice(cudnnHandle_t handle, const std::string &text,
                                 size_t workspaceBytes, Choice *choice) {
  int algo = 0, math = 0, fusedCall = 0;
  if (std::sscanf(text.c_str(), "legacy algo=%d math=%d fused=%d", &algo,
                  &math, &fusedCall) == 3) {
    if (algo < 0 || algo >= CUDNN_CONVOLUTION_FWD_ALGO_COUNT ||
        (fusedCall && !activationDesc))
      return false;
    choice->algo = cudnnConvolutionFwdAlgo_t(algo);
    choice->math = cudnnMathType_t(math);
    choice->fused = fusedCall != 0;
    size_t memory = 0;
    if (cudnnSetConvolutionMathType(convDesc, choice->math) !=
            CUDNN_STATUS_SUCCESS ||
        cudnnGetConvolutionForwardWorkspaceSize(handle, xDesc, wDesc, convDesc,
                                                yDesc, choice->algo,
                                                &memory) !=
            CUDNN_STATUS_SUCCESS ||
        memory > workspaceBytes)
      return false;
    choice->memory = memory;
    return true;
  }
  long long engine = -1;
  char knobText[512] = "";
  if (std::sscanf(text.c_str(), "graph engine=%lld knobs=%511s", &engine,
                  knobText) < 1)
    return false;
  std::vector<std::pair<int64_t, int64_t>> knobs;
  std::istringstream list(knobText);
  for (std::string item; std::getline(list, item, ',');) {
    long long type = 0, value = 0;
    if (std::sscanf(item.c_str(), "%lld:%lld", &type, &value) != 2)
      return false;
    knobs.emplace_back(type, value);
  }
  auto built = std::make_shared<ConvGraph>();
  kiln_status_t status = built->buildConfigured(handle, graphShape, engine,
                                                knobs, workspaceBytes);
  if (status) {
    kiln_status_free(status);
    return false;
  }
  choice->graph = std::move(built);
  choice->plan = 0;
  choice->memory = size_t(choice->graph->plans()[0].workspaceBytes);
  return true;
}

kiln_status_t ConvPlan::runChoice(cudnnHandle_t handle, const Choice &choice,
                                  const ConvPointers &pointers,
                                  void *workspace) {
  if (choice.graph)
    return choice.graph->execute(handle, choice.plan, pointers, workspace);
  KILN_RETURN_IF_ERROR(
      cudnnStatus(cudnnSetConvolutionMathType(convDesc, choice.math),
                  "setting the math type"));
  return run(handle, pointers, choice.algo, choice.memory, choice.fused,
             workspace);
}

kiln_status_t ConvPlan::legacyChoices(cudnnHandle_t handle,
                                      const ConvPointers &scratch,
                                      void *workspace, size_t workspaceBytes,
                                      std::vector<Choice> *choices) {
  constexpr int kMaxAlgorithms = CUDNN_CONVOLUTION_FWD_ALGO_COUNT;
  cudnnConvolutionFwdAlgoPerf_t results[kMaxAlgorithms];
  int found = 0;
  // Find tells which algorithms run (and their workspace and math type);
  // its ranking is a timing, so it is not used: the order is fixed.
  KILN_RETURN_IF_ERROR(
      cudnnStatus(cudnnFindConvolutionForwardAlgorithmEx(
                      handle, xDesc, scratch.x, wDesc, scratch.w, convDesc,
                      yDesc, scratch.out, kMaxAlgorithms, &found, results,
                      workspaceBytes ? workspace : nullptr, workspaceBytes),
                  "cudnnFindConvolutionForwardAlgorithmEx"));
  std::vector<Choice> algorithms;
  for (int i = 0; i < found; ++i) {
    const cudnnConvolutionFwdAlgoPerf_t &perf = results[i];
    if (perf.status != CUDNN_STATUS_SUCCESS || perf.memory > workspaceBytes ||
        perf.determinism != CUDNN_DETERMINISTIC)
      continue;
    Choice choice;
    choice.algo = perf.algo;
    choice.math = keepFmaMath ? mathType : perf.mathType;
    choice.memory = perf.memory;
    algorithms.push_back(choice);
  }
  std::sort(algorithms.begin(), algorithms.end(),
            [](const Choice &a, const Choice &b) {
              return std::make_pair(int(a.algo), int(a.math)) <
                     std::make_pair(int(b.algo), int(b.math));
            });
  algorithms.erase(std::unique(algorithms.begin(), algorithms.end(),
                               [](const Choice &a, const Choice &b) {
                                 return a.algo == b.algo && a.math == b.math;
                               }),
                   algorithms.end());
  if (algorithms.empty())
    return Error(KILN_STATUS_INCOMPATIBLE)
           << "cuDNN has no deterministic algorithm for this convolution "
              "within a "
           << workspaceBytes << "-byte workspace";
  for (const Choice &algorithm : algorithms) {
    choices->push_back(algorithm);
    // IDENTITY (no relu: the bias, and the residual if any) fuses only in
    // the precomputed implicit GEMM.
    if (activationDesc &&
        (relu ||
         algorithm.algo == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM)) {
      choices->push_back(algorithm);
      choices->back().fused = true;
    }
  }
  return nullptr;
}

kiln_status_t ConvPlan::graphChoices(cudnnHandle_t handle,
                                     size_t workspaceBytes,
                                     std::vector<Choice> *choices) {
  auto built = std::make_shared<ConvGraph>();
  KILN_RETURN_IF_ERROR(
      built->build(handle, graphShape, !keepFmaMath, workspaceBytes));
  for (size_t i = 0; i < built->plans().size(); ++i) {
    Choice choice;
    choice.graph = built;
    choice.plan = i;
    choice.memory = size_t(built->plans()[i].workspaceBytes);
    choices->push_back(choice);
  }
  return nullptr;
}

kiln_status_t ConvPlan::apply(const Choice &choice, cudnnHandle_t handle,
                              size_t workspaceBytes) {
  algorithmWorkspace = choice.memory;
  fused = choice.fused;
  if (choice.graph) {
    const ConvGraph::Plan &plan = choice.graph->plans()[choice.plan];
    auto fresh = std::make_shared<ConvGraph>();
    KILN_RETURN_IF_ERROR(fresh->buildConfigured(
        handle, graphShape, plan.engine, plan.knobs, workspaceBytes));
    graph = std::move(fresh);
    return nullptr;
  }
  graph.reset();
  algorithm = choice.algo;
  mathType = choice.math;
  return cudnnStatus(cudnnSetConvolutionMathType(convDesc, mathType),
                     "setting the chosen math type");
}

kiln_status_t ConvPlan::chooseAlgorithm(cudnnHandle_t handle,
                                        const ConvPointers &scratch,
                                        void *workspace, size_t workspaceBytes,
                                        const ChoiceContext &context,
                                        ConvPath path, AlgorithmCache *cache) {
  KILN_RETURN_IF_ERROR(
      cudnnStatus(cudnnSetStream(handle, context.stream), "cudnnSetStream"));
  auto candidateOf = [&](const Choice &choice) {
    LibraryCandidate candidate;
    candidate.name = nameOf(choice);
    candidate.cacheChoice = cacheTextOf(choice);
    candidate.enqueue = [this, handle, choice, &scratch, workspace] {
      return runChoice(handle, choice, scratch, workspace);
    };
    return candidate;
  };

  // The cached choice, when it still builds, fits the path and passes.
  if (const std::string *cached = cache ? cache->find("conv", identity)
                                        : nullptr) {
    Choice choice;
    bool passed = false;
    if (parseCachedChoice(handle, *cached, workspaceBytes, &choice) &&
        !(path == ConvPath::Legacy && choice.graph) &&
        !(path == ConvPath::Graph && !choice.graph)) {
      KILN_RETURN_IF_ERROR(
          checkCandidate(candidateOf(choice), context, &passed));
      if (passed)
        return apply(choice, handle, workspaceBytes);
    } else if (context.log) {
      context.log->push_back(context.step + ": cached choice '" + *cached +
                             "' does not build here or fit KILN_CONV_PATH");
    }
    cache->forget("conv", identity);
  }

  // Either path failing only removes its candidates, unless nothing is left.
  std::vector<Choice> choices;
  kiln_status_t legacyProblem = nullptr, graphProblem = nullptr;
  if (path != ConvPath::Graph)
    legacyProblem =
        legacyChoices(handle, scratch, workspace, workspaceBytes, &choices);
  if (path != ConvPath::Legacy)
    graphProblem = graphChoices(handle, workspaceBytes, &choices);
  if (choices.empty()) {
    if (path == ConvPath::Graph)
      return annotate(graphProblem, "KILN_CONV_PATH=graph");
    if (path == ConvPath::Legacy)
      return annotate(legacyProblem, "KILN_CONV_PATH=legacy");
    kiln_status_code_t code =
        legacyProblem ? kiln_status_code(legacyProblem) : KILN_STATUS_INTERNAL;
    std::string legacy = takeMessage(legacyProblem);
    return Error(code) << legacy << "; graph API: " << takeMessage(graphProblem);
  }
  // takeMessage frees the status.
  std::string graphReason = takeMessage(graphProblem);
  if (!graphReason.empty() && context.log)
    context.log->push_back(context.step +
                           ": no graph-API candidates: " + graphReason);
  kiln_status_free(legacyProblem);

  std::vector<LibraryCandidate> candidates;
  for (const Choice &choice : choices)
    candidates.push_back(candidateOf(choice));
  int winner = -1;
  KILN_RETURN_IF_ERROR(chooseCandidate(candidates, context, &winner));
  if (winner < 0)
    return Error(KILN_STATUS_INTERNAL)
           << "none of the " << candidates.size()
           << " cuDNN candidates for this convolution computes it within "
              "the precision's tolerance (the algorithm log "
              "below names each and its error)";
  if (cache)
    cache->store("conv", identity, candidates[size_t(winner)].cacheChoice);
  return apply(choices[size_t(winner)], handle, workspaceBytes);
}

kiln_status_t ConvPlan::useChoiceOf(const ConvPlan &other,
                                    cudnnHandle_t handle,
                                    size_t workspaceBytes) {
  graph = other.graph;
  if (graph) {
    const ConvGraph::Plan &plan = other.graph->plans().front();
    auto rebuilt = std::make_shared<ConvGraph>();
    KILN_RETURN_IF_ERROR(rebuilt->buildConfigured(
        handle, graphShape, plan.engine, plan.knobs, workspaceBytes));
    graph = std::move(rebuilt);
  }
  algorithm = other.algorithm;
  algorithmWorkspace = other.algorithmWorkspace;
  mathType = other.mathType;
  fused = other.fused;
  return cudnnStatus(cudnnSetConvolutionMathType(convDesc, mathType),
                     "setting the chosen math type");
}

} // namespace kiln::runtime
