// The cuDNN graph-API (backend) path of a Conv step: its operation graph
// (conv -> + bias -> + residual -> relu, conv_graph_operations.h), the
// execution plans of the engines cuDNN's heuristics propose, and their
// execution. ConvPlan times these plans against the legacy API's calls.
#ifndef KILN_RUNTIME_CONV_GRAPH_H
#define KILN_RUNTIME_CONV_GRAPH_H

#include "conv_graph_operations.h"

#include <cuda_runtime_api.h>

#include <string>
#include <utility>
#include <vector>

namespace kiln::runtime {

/// The operation graph of |operations| (finalised, in order) on |handle|,
/// finalised into |*graph|.
kiln_status_t finalizeOperationGraph(cudnnHandle_t handle,
                                     const ConvOperations &operations,
                                     BackendDescriptor *graph);

/// The engine configs cuDNN's heuristics |mode| proposes for |graph| (a
/// finalised operation graph), best first, at most 10: each finalisation
/// may compile a kernel, so the list is cut where the ranking stops
/// mattering.
kiln_status_t engineConfigs(const BackendDescriptor &graph,
                            cudnnBackendHeurMode_t mode,
                            std::vector<BackendDescriptor> *configs);

/// What the heuristics tell of one config's engine.
struct EngineFacts {
  int64_t index = -1;
  bool tensorCores = false, downConverts = false, reducedReduction = false,
       needsReorder = false, nondeterministic = false;
};
kiln_status_t engineFacts(const BackendDescriptor &config, EngineFacts *facts);

/// Pointers of one Conv execution (bias and residual may be NULL).
struct ConvPointers {
  const void *x, *w, *bias;
  void *out;
  const void *residual = nullptr;
};

/// One Conv step's operation graph and finalised execution plans, built on
/// the cuDNN handle of the step's stream (plans are bound to it); immutable
/// after build. The timed candidates of a step share one; the plan a step
/// runs is one of its own, built from the winner's engine and knobs
/// (ConvPlan::chooseAlgorithm).
class ConvGraph {
public:
  /// One finalised execution plan: its engine config's workspace need and
  /// a name for profiles ("graph:eng<global index>" and its knob choices,
  /// e.g. "graph:eng12:k3=2,k5=0").
  struct Plan {
    BackendDescriptor plan;
    int64_t workspaceBytes = 0;
    std::string name;
    /// What rebuilds it (buildConfigured): the engine's global index and
    /// the config's knob choices (type, value).
    int64_t engine = -1;
    std::vector<std::pair<int64_t, int64_t>> knobs;
  };

  /// Builds the operation graph of |shape| on |handle|, asks cuDNN's
  /// heuristics (mode A, then FALLBACK when A yields no plan) for engine
  /// configs and finalises plans of the first kMaxPlans that finalise,
  /// keep |shape|'s numerics (fp32 accumulation; f32 without |allowTf32|:
  /// no tensor cores), are deterministic and need at most |workspaceLimit|
  /// bytes. When none
  /// does: INCOMPATIBLE with the reason (the pattern cuDNN refused, the
  /// counts of configs skipped and why).
  kiln_status_t build(cudnnHandle_t handle, const ConvGraphShape &shape,
                      bool allowTf32, size_t workspaceLimit);

  /// Builds the operation graph of |shape| and one plan of engine |engine|
  /// with |knobs| (a choice read from the algorithm cache). INCOMPATIBLE
  /// when cuDNN does not finalise it or its workspace exceeds
  /// |workspaceLimit|.
  kiln_status_t
  buildConfigured(cudnnHandle_t handle, const ConvGraphShape &shape,
                  int64_t engine,
                  const std::vector<std::pair<int64_t, int64_t>> &knobs,
                  size_t workspaceLimit);

  static constexpr size_t kMaxPlans = 3;
  const std::vector<Plan> &plans() const { return executionPlans; }

  /// Runs plan |index| with |pointers| on the stream set on |handle|
  /// (capturable: a variant pack built on the host, a fixed workspace),
  /// after a fence: a 4-byte memset on the stream, so that none of the
  /// plan's kernels starts before the stream's earlier work has finished
  /// (cuDNN may launch them as programmatic dependent launches; without
  /// the fence ResNet-50 at batch 32 gave wrong images in 2-9% of runs).
  kiln_status_t execute(cudnnHandle_t handle, size_t index,
                        const ConvPointers &pointers, void *workspace) const;


private:
  kiln_status_t buildOperationGraph(cudnnHandle_t handle,
                                    const ConvGraphShape &shape);
  /// Finalises the plan of |config| on |handle| into |*plan| (its name and
  /// workspace too).
  kiln_status_t finalizePlan(cudnnHandle_t handle,
                             const BackendDescriptor &config,
                             int64_t engineIndex, Plan *plan);
  kiln_status_t addPlans(cudnnHandle_t handle, cudnnBackendHeurMode_t mode,
                         bool allowTf32, size_t workspaceLimit,
                         std::string *skipped);

  ConvGraphShape shape;
  ConvOperations operations;
  BackendDescriptor operationGraph;
  std::vector<Plan> executionPlans;
};

} // namespace kiln::runtime

#endif // KILN_RUNTIME_CONV_GRAPH_H
