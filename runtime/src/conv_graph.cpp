// cuDNN graph API plans of a Conv step: operation graph, engine heuristics,
// numerics filters, finalised execution plans and their execution.
//
// 1. Build and finalise the operations (conv_graph_operations.cpp), then
//    the operation graph on the session's handle.
// 2. Ask heuristics mode A for ranked engine configs; if none of them gives
//    a plan, mode FALLBACK.
// 3. For each config in rank order: skip it when its engine's notes break
//    the step's numerics or say it is nondeterministic, finalise an execution plan (runtime-compiled
//    engines compile here), skip it when its workspace does not fit; stop
//    at kMaxPlans.
#include "conv_graph.h"
#include "options.h"
#include "status.h"

#include <algorithm>
#include <utility>

namespace kiln::runtime {

namespace {
/// KILN_CONV_GRAPH_FENCE=0 leaves out the fence before each graph plan (see
/// ConvGraph::execute): only to show the race it prevents.
bool fenceEnabled() {
  static const bool enabled = environmentFlag("KILN_CONV_GRAPH_FENCE", true);
  return enabled;
}

/// Configs looked at per heuristics mode: each finalisation may compile a
/// kernel, so the list is cut where the heuristics' ranking stops mattering.
constexpr int64_t kMaxConfigs = 10;

/// The knob choices (type, value) of |config|; empty if cuDNN will not
/// tell.
std::vector<std::pair<int64_t, int64_t>>
knobChoices(const BackendDescriptor &config) {
  std::vector<std::pair<int64_t, int64_t>> choices;
  std::vector<BackendDescriptor> knobs;
  std::vector<cudnnBackendDescriptor_t> raw;
  int64_t count = 0;
  kiln_status_t status =
      createDescriptors(CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR,
                        CUDNN_KNOB_TYPE_COUNTS, "a knob choice", &knobs, &raw);
  if (!status)
    status = config.getAttribute(CUDNN_ATTR_ENGINECFG_KNOB_CHOICES,
                                 CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                 CUDNN_KNOB_TYPE_COUNTS, &count, raw.data());
  for (int64_t i = 0; !status && i < count && i < CUDNN_KNOB_TYPE_COUNTS; ++i) {
    cudnnBackendKnobType_t type = CUDNN_KNOB_TYPE_COUNTS;
    int64_t value = 0, read = 0;
    status =
        knobs[size_t(i)].getAttribute(CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE,
                                      CUDNN_TYPE_KNOB_TYPE, 1, &read, &type);
    if (!status)
      status =
          knobs[size_t(i)].getAttribute(CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE,
                                        CUDNN_TYPE_INT64, 1, &read, &value);
    if (!status)
      choices.emplace_back(int64_t(type), value);
  }
  if (status) {
    kiln_status_free(status);
    choices.clear();
  }
  return choices;
}

/// "graph:eng<N>" and ":k<type>=<value>,..." for the knob choices, for
/// profiles and logs.
std::string planName(int64_t engineIndex,
                     const std::vector<std::pair<int64_t, int64_t>> &knobs) {
  std::string name = "graph:eng" + std::to_string(engineIndex);
  for (size_t i = 0; i < knobs.size(); ++i)
    name += (i ? ",k" : ":k") + std::to_string(knobs[i].first) + "=" +
            std::to_string(knobs[i].second);
  return name;
}
} // namespace

kiln_status_t finalizeOperationGraph(cudnnHandle_t handle,
                                     const ConvOperations &operations,
                                     BackendDescriptor *graph) {
  KILN_RETURN_IF_ERROR(graph->create(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR,
                                     "the operation graph"));
  // The handle attribute is deprecated from cuDNN 9.x's device properties
  // on, but every 9.x release still takes it, and it is what binds the
  // graph (and its plans) to the session's device.
  KILN_RETURN_IF_ERROR(graph->set(CUDNN_ATTR_OPERATIONGRAPH_HANDLE,
                                  CUDNN_TYPE_HANDLE, 1, &handle));
  std::vector<cudnnBackendDescriptor_t> ops;
  for (const BackendDescriptor &operation : operations.operations)
    ops.push_back(operation.get());
  KILN_RETURN_IF_ERROR(graph->set(CUDNN_ATTR_OPERATIONGRAPH_OPS,
                                  CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                  int64_t(ops.size()), ops.data()));
  return graph->finalize();
}

kiln_status_t engineConfigs(const BackendDescriptor &graph,
                            cudnnBackendHeurMode_t mode,
                            std::vector<BackendDescriptor> *configs) {
  configs->clear();
  BackendDescriptor heuristics;
  KILN_RETURN_IF_ERROR(heuristics.create(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR,
                                         mode == CUDNN_HEUR_MODE_A
                                             ? "the heuristics (mode A)"
                                             : "the heuristics (fallback)"));
  KILN_RETURN_IF_ERROR(
      heuristics.setDescriptor(CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, graph));
  KILN_RETURN_IF_ERROR(heuristics.set(CUDNN_ATTR_ENGINEHEUR_MODE,
                                      CUDNN_TYPE_HEUR_MODE, 1, &mode));
  KILN_RETURN_IF_ERROR(heuristics.finalize());
  int64_t available = 0;
  KILN_RETURN_IF_ERROR(heuristics.getAttribute(CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                               CUDNN_TYPE_BACKEND_DESCRIPTOR, 0,
                                               &available, nullptr));
  int64_t wanted = std::min(available, kMaxConfigs);
  if (wanted <= 0)
    return nullptr;
  std::vector<cudnnBackendDescriptor_t> raw;
  KILN_RETURN_IF_ERROR(createDescriptors(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR,
                                         wanted, "an engine config", configs,
                                         &raw));
  int64_t returned = 0;
  KILN_RETURN_IF_ERROR(heuristics.getAttribute(CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                               CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                               wanted, &returned, raw.data()));
  configs->resize(size_t(std::min(returned, wanted)));
  return nullptr;
}

kiln_status_t engineFacts(const BackendDescriptor &config, EngineFacts *facts) {
  BackendDescriptor engine;
  KILN_RETURN_IF_ERROR(
      engine.create(CUDNN_BACKEND_ENGINE_DESCRIPTOR, "an engine"));
  cudnnBackendDescriptor_t raw = engine.get();
  int64_t count = 0;
  KILN_RETURN_IF_ERROR(config.getAttribute(CUDNN_ATTR_ENGINECFG_ENGINE,
                                           CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                                           &count, &raw));
  KILN_RETURN_IF_ERROR(engine.getAttribute(CUDNN_ATTR_ENGINE_GLOBAL_INDEX,
                                           CUDNN_TYPE_INT64, 1, &count,
                                           &facts->index));
  cudnnBackendNumericalNote_t notes[CUDNN_NUMERICAL_NOTE_TYPE_COUNT];
  KILN_RETURN_IF_ERROR(engine.getAttribute(
      CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE,
      CUDNN_NUMERICAL_NOTE_TYPE_COUNT, &count, notes));
  for (int64_t i = 0; i < count && i < CUDNN_NUMERICAL_NOTE_TYPE_COUNT; ++i) {
    facts->tensorCores |= notes[i] == CUDNN_NUMERICAL_NOTE_TENSOR_CORE;
    facts->downConverts |= notes[i] == CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS;
    facts->reducedReduction |=
        notes[i] == CUDNN_NUMERICAL_NOTE_REDUCED_PRECISION_REDUCTION;
    facts->nondeterministic |=
        notes[i] == CUDNN_NUMERICAL_NOTE_NONDETERMINISTIC;
  }
  cudnnBackendBehaviorNote_t behaviours[CUDNN_BEHAVIOR_NOTE_TYPE_COUNT];
  KILN_RETURN_IF_ERROR(engine.getAttribute(
      CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE, CUDNN_TYPE_BEHAVIOR_NOTE,
      CUDNN_BEHAVIOR_NOTE_TYPE_COUNT, &count, behaviours));
  for (int64_t i = 0; i < count && i < CUDNN_BEHAVIOR_NOTE_TYPE_COUNT; ++i)
    facts->needsReorder |=
        behaviours[i] == CUDNN_BEHAVIOR_NOTE_REQUIRES_FILTER_INT8x32_REORDER ||
        behaviours[i] == CUDNN_BEHAVIOR_NOTE_REQUIRES_BIAS_INT8x32_REORDER;
  return nullptr;
}

kiln_status_t ConvGraph::buildOperationGraph(cudnnHandle_t handle,
                                             const ConvGraphShape &graphShape) {
  shape = graphShape;
  executionPlans.clear();
  KILN_RETURN_IF_ERROR(buildConvOperations(shape, &operations));
  return finalizeOperationGraph(handle, operations, &operationGraph);
}

kiln_status_t ConvGraph::finalizePlan(cudnnHandle_t handle,
                                      const BackendDescriptor &config,
                                      int64_t engineIndex, Plan *plan) {
  std::string engineName = "engine " + std::to_string(engineIndex);
  KILN_RETURN_IF_ERROR(plan->plan.create(
      CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, "the plan of " + engineName));
  KILN_RETURN_IF_ERROR(plan->plan.set(CUDNN_ATTR_EXECUTION_PLAN_HANDLE,
                                      CUDNN_TYPE_HANDLE, 1, &handle));
  KILN_RETURN_IF_ERROR(
      plan->plan.setDescriptor(CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, config));
  KILN_RETURN_IF_ERROR(plan->plan.finalize());
  int64_t read = 0;
  KILN_RETURN_IF_ERROR(plan->plan.getAttribute(
      CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1, &read,
      &plan->workspaceBytes));
  plan->engine = engineIndex;
  plan->knobs = knobChoices(config);
  plan->name = planName(engineIndex, plan->knobs);
  return nullptr;
}

kiln_status_t ConvGraph::buildConfigured(
    cudnnHandle_t handle, const ConvGraphShape &graphShape, int64_t engineIndex,
    const std::vector<std::pair<int64_t, int64_t>> &knobs,
    size_t workspaceLimit) {
  KILN_RETURN_IF_ERROR(buildOperationGraph(handle, graphShape));
  BackendDescriptor engine;
  KILN_RETURN_IF_ERROR(
      engine.create(CUDNN_BACKEND_ENGINE_DESCRIPTOR, "the cached engine"));
  KILN_RETURN_IF_ERROR(
      engine.setDescriptor(CUDNN_ATTR_ENGINE_OPERATION_GRAPH, operationGraph));
  KILN_RETURN_IF_ERROR(
      engine.setInt64(CUDNN_ATTR_ENGINE_GLOBAL_INDEX, engineIndex));
  KILN_RETURN_IF_ERROR(engine.finalize());
  std::vector<BackendDescriptor> choices;
  std::vector<cudnnBackendDescriptor_t> raw;
  for (auto [type, value] : knobs) {
    BackendDescriptor choice;
    KILN_RETURN_IF_ERROR(choice.create(CUDNN_BACKEND_KNOB_CHOICE_DESCRIPTOR,
                                       "a cached knob choice"));
    cudnnBackendKnobType_t knobType = cudnnBackendKnobType_t(type);
    KILN_RETURN_IF_ERROR(choice.set(CUDNN_ATTR_KNOB_CHOICE_KNOB_TYPE,
                                    CUDNN_TYPE_KNOB_TYPE, 1, &knobType));
    KILN_RETURN_IF_ERROR(
        choice.setInt64(CUDNN_ATTR_KNOB_CHOICE_KNOB_VALUE, value));
    KILN_RETURN_IF_ERROR(choice.finalize());
    raw.push_back(choice.get());
    choices.push_back(std::move(choice));
  }
  BackendDescriptor config;
  KILN_RETURN_IF_ERROR(config.create(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR,
                                     "the cached engine config"));
  KILN_RETURN_IF_ERROR(config.setDescriptor(CUDNN_ATTR_ENGINECFG_ENGINE, engine));
  if (!raw.empty())
    KILN_RETURN_IF_ERROR(config.set(CUDNN_ATTR_ENGINECFG_KNOB_CHOICES,
                                    CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                    int64_t(raw.size()), raw.data()));
  KILN_RETURN_IF_ERROR(config.finalize());
  Plan plan;
  KILN_RETURN_IF_ERROR(finalizePlan(handle, config, engineIndex, &plan));
  if (plan.workspaceBytes < 0 || size_t(plan.workspaceBytes) > workspaceLimit)
    return Error(KILN_STATUS_INCOMPATIBLE)
           << plan.name << " needs " << plan.workspaceBytes
           << " bytes of workspace, the session has " << workspaceLimit;
  executionPlans.push_back(std::move(plan));
  return nullptr;
}

kiln_status_t ConvGraph::build(cudnnHandle_t handle,
                               const ConvGraphShape &graphShape, bool allowTf32,
                               size_t workspaceLimit) {
  KILN_RETURN_IF_ERROR(buildOperationGraph(handle, graphShape));
  std::string skipped;
  kiln_status_t modeA =
      addPlans(handle, CUDNN_HEUR_MODE_A, allowTf32, workspaceLimit, &skipped);
  if (!executionPlans.empty()) {
    kiln_status_free(modeA);
    return nullptr;
  }
  std::string modeAProblem = takeMessage(modeA);
  kiln_status_t fallback = addPlans(handle, CUDNN_HEUR_MODE_FALLBACK, allowTf32,
                                    workspaceLimit, &skipped);
  if (!executionPlans.empty()) {
    kiln_status_free(fallback);
    return nullptr;
  }
  std::string fallbackProblem = takeMessage(fallback);
  Error error(KILN_STATUS_INCOMPATIBLE);
  error << "cuDNN's graph API has no execution plan for this convolution";
  if (!modeAProblem.empty())
    error << "; heuristics mode A: " << modeAProblem;
  if (!fallbackProblem.empty())
    error << "; fallback heuristics: " << fallbackProblem;
  if (!skipped.empty())
    error << "; " << skipped;
  return error;
}

kiln_status_t ConvGraph::addPlans(cudnnHandle_t handle,
                                  cudnnBackendHeurMode_t mode, bool allowTf32,
                                  size_t workspaceLimit, std::string *skipped) {
  std::vector<BackendDescriptor> configs;
  KILN_RETURN_IF_ERROR(engineConfigs(operationGraph, mode, &configs));
  int numerics = 0, tooLarge = 0, refused = 0;
  std::string lastRefusal;
  bool fmaOnly = shape.type == CUDNN_DATA_FLOAT && !allowTf32;
  for (const BackendDescriptor &config : configs) {
    if (executionPlans.size() >= kMaxPlans)
      break;
    EngineFacts facts;
    if (kiln_status_t status = engineFacts(config, &facts)) {
      lastRefusal = takeMessage(status);
      ++refused;
      continue;
    }
    // fp32 accumulation always; f32 data: never converted down, and on
    // tensor cores (TF32) only when the step allows TF32.
    if (facts.reducedReduction || facts.needsReorder || facts.nondeterministic ||
        (shape.type == CUDNN_DATA_FLOAT && facts.downConverts) ||
        (fmaOnly && facts.tensorCores)) {
      ++numerics;
      continue;
    }
    Plan plan;
    if (kiln_status_t status =
            finalizePlan(handle, config, facts.index, &plan)) {
      lastRefusal = takeMessage(status);
      ++refused;
      continue;
    }
    if (plan.workspaceBytes < 0 ||
        size_t(plan.workspaceBytes) > workspaceLimit) {
      ++tooLarge;
      continue;
    }
    executionPlans.push_back(std::move(plan));
  }
  std::string heuristic = mode == CUDNN_HEUR_MODE_A ? "mode A" : "fallback";
  if (configs.empty())
    *skipped += (skipped->empty() ? "" : "; ") + heuristic +
                " proposed no engine config";
  if (numerics || tooLarge || refused)
    *skipped += (skipped->empty() ? "" : "; ") + heuristic + ": " +
                std::to_string(numerics) +
                " config(s) skipped for their numerics, " +
                std::to_string(tooLarge) + " for a workspace above " +
                std::to_string(workspaceLimit) + " bytes, " +
                std::to_string(refused) + " refused" +
                (lastRefusal.empty() ? "" : " (last: " + lastRefusal + ")");
  return nullptr;
}

kiln_status_t ConvGraph::execute(cudnnHandle_t handle, size_t index,
                                 const ConvPointers &pointers,
                                 void *workspace) const {
  if (index >= executionPlans.size())
    return Error(KILN_STATUS_INTERNAL)
           << "graph plan " << index << " of " << executionPlans.size();
  std::vector<int64_t> ids = {kGraphX, kGraphW, kGraphY};
  std::vector<void *> addresses = {const_cast<void *>(pointers.x),
                                   const_cast<void *>(pointers.w),
                                   pointers.out};
  if (shape.bias) {
    ids.push_back(kGraphBias);
    addresses.push_back(const_cast<void *>(pointers.bias));
  }
  if (shape.residual) {
    ids.push_back(kGraphResidual);
    addresses.push_back(const_cast<void *>(pointers.residual));
  }
  BackendDescriptor pack;
  KILN_RETURN_IF_ERROR(
      pack.create(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, "the variant pack"));
  KILN_RETURN_IF_ERROR(pack.set(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS,
                                CUDNN_TYPE_INT64, int64_t(ids.size()),
                                ids.data()));
  KILN_RETURN_IF_ERROR(pack.set(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS,
                                CUDNN_TYPE_VOID_PTR, int64_t(addresses.size()),
                                addresses.data()));
  KILN_RETURN_IF_ERROR(pack.set(CUDNN_ATTR_VARIANT_PACK_WORKSPACE,
                                CUDNN_TYPE_VOID_PTR, 1, &workspace));
  KILN_RETURN_IF_ERROR(pack.finalize());
  const Plan &plan = executionPlans[index];
  if (fenceEnabled()) {
    // The fence (issue 13): a graph plan's first kernel may start before
    // the stream's previous kernels have finished (cuDNN launches it as a
    // programmatic dependent launch), and then reads what they have not yet
    // written. A memset is not a kernel, so it waits for everything before
    // it, and the plan's kernels cannot start before the memset ends. It
    // writes 4 bytes of the scratch the plan is about to use (or of its own
    // output, which it then overwrites).
    cudaStream_t stream = nullptr;
    KILN_RETURN_IF_ERROR(
        cudnnStatus(cudnnGetStream(handle, &stream), "cudnnGetStream"));
    KILN_RETURN_IF_ERROR(cudaStatus(
        cudaMemsetAsync(workspace ? workspace : pointers.out, 0, 4, stream),
        "the fence before a cuDNN graph plan"));
  }
  return backendStatus(cudnnBackendExecute(handle, plan.plan.get(), pack.get()),
                       "cudnnBackendExecute (" + plan.name + ")");
}

} // namespace kiln::runtime
