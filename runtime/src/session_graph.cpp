// kiln_session_run's work: host staging, CUDA graph capture/update/replay, and
// step-by-step debug and profile runs.
#include "bindings.h"
#include "bounds_checks.h"
#include "gpu_timing.h"
#include "session.h"
#include "status.h"

#include "kiln/escaped_text.h"

#include <algorithm>
#include <cstring>
#include <iterator>
#include <memory>

namespace kiln::runtime {

using namespace kiln::artifact;

namespace {

/// Host callbacks (cudaLaunchHostFunc) that move host-bound data through
/// the pinned staging buffers in stream order: no host synchronisation.
void CUDART_CB copyInputToPinned(void *data) {
  auto *binding = static_cast<Binding *>(data);
  std::memcpy(binding->pinnedStaging, binding->user, binding->bytes);
}
void CUDART_CB copyPinnedToOutput(void *data) {
  auto *binding = static_cast<Binding *>(data);
  std::memcpy(binding->user, binding->pinnedStaging, binding->bytes);
}

kiln_status_t checkBound(const kiln_session_s &session) {
  const EntryPointSignature &signature =
      session.model->signatures[session.entryIndex];
  for (size_t i = 0; i < session.inputs.size(); ++i)
    if (!session.inputs[i].bound)
      return Error(KILN_STATUS_FAILED_PRECONDITION)
             << "input '" << text::escapeName(signature.inputs[i].name)
             << "' is not bound";
  for (size_t i = 0; i < session.outputs.size(); ++i)
    if (!session.outputs[i].bound)
      return Error(KILN_STATUS_FAILED_PRECONDITION)
             << "output '" << text::escapeName(signature.outputs[i].name)
             << "' is not bound";
  // Ranged dims: a bound buffer has the bytes of this run's shape.
  if (session.shapes.ranged())
    for (bool input : {true, false}) {
      const auto &bindings = input ? session.inputs : session.outputs;
      const auto &infos = input ? signature.inputs : signature.outputs;
      auto *tensors = input ? session.entry->inputs() : session.entry->outputs();
      for (size_t i = 0; i < bindings.size(); ++i) {
        uint64_t bytes = session.shapes.bufferBytes(
            tensors->Get(static_cast<uint32_t>(i))->buffer());
        if (bindings[i].bytes != bytes)
          return Error(KILN_STATUS_INVALID_ARGUMENT)
                 << (input ? "input '" : "output '")
                 << text::escapeName(infos[i].name) << "' is bound with "
                 << bindings[i].bytes << " bytes but this run ("
                 << session.shapes.describeValues() << ") needs " << bytes
                 << "; bind a buffer of the run's shape";
      }
    }
  return nullptr;
}

/// Finds (or makes, evicting the least recently used beyond the bound) the
/// graph of the session's current shape, captures the plan into it when it
/// has none or other addresses (updating the executable graph in place when
/// CUDA allows it), then launches it on |stream|.
kiln_status_t runGraph(kiln_session_s *session,
                       const std::vector<void *> &addresses,
                       cudaStream_t stream) {
  GraphStatistics &statistics = session->graphStatistics;
  auto &graphs = session->graphs;
  const std::vector<int64_t> &dims = session->shapes.values();
  auto found = std::find_if(graphs.begin(), graphs.end(),
                            [&](const auto &graph) { return graph.dims == dims; });
  if (found != graphs.end()) {
    graphs.splice(graphs.begin(), graphs, found);
  } else {
    if (graphs.size() >= kiln_session_s::kGraphCacheShapes)
      graphs.splice(graphs.begin(), graphs, std::prev(graphs.end()));
    else
      graphs.emplace_front();
    graphs.front().dims = dims;
    graphs.front().captured = false; // Its graph, if any, is another shape's.
  }
  kiln_session_s::CapturedGraph &current = graphs.front();
  if (!current.captured || addresses != current.addresses) {
    cudaStream_t origin = session->streams[0];
    KILN_RETURN_IF_ERROR(cudaStatus(
        cudaStreamBeginCapture(origin, cudaStreamCaptureModeThreadLocal),
        "capturing the plan"));
    kiln_status_t status = enqueuePlan(session, addresses, origin);
    cudaGraph_t graph = nullptr;
    cudaError_t ended = cudaStreamEndCapture(origin, &graph);
    if (!status)
      status = cudaStatus(ended, "cudaStreamEndCapture");
    if (status) {
      if (graph)
        cudaGraphDestroy(graph);
      return annotate(
          status,
          "capturing the plan as a CUDA graph (set KILN_DEBUG=1 to run it "
          "step by step)");
    }
    ++statistics.captures;
    if (current.exec) {
      cudaGraphExecUpdateResultInfo info;
      if (cudaGraphExecUpdate(current.exec, graph, &info) == cudaSuccess) {
        ++statistics.updates;
      } else {
        cudaGetLastError();
        cudaGraphExecDestroy(current.exec);
        current.exec = nullptr;
      }
    }
    if (!current.exec) {
      status = cudaStatus(cudaGraphInstantiate(&current.exec, graph, 0),
                          "cudaGraphInstantiate");
      if (status)
        current.exec = nullptr;
      else
        ++statistics.instantiations;
    }
    cudaGraphDestroy(graph);
    if (status) {
      graphs.pop_front();
      return status;
    }
    current.addresses = addresses;
    current.captured = true;
  }
  ++statistics.launches;
  return cudaStatus(
      cudaGraphLaunch(current.exec, stream),
      "cudaGraphLaunch (set KILN_DEBUG=1 to find the failing step)");
}

/// Profile mode: captures each step (but the event steps) as a graph of its
/// own, once per set of addresses. Launching a step's graph between two
/// events times the GPU work alone: a library call enqueued directly spends
/// tens of microseconds on the host (cuDNN, cuBLASLt) after the start event
/// has already fired on an idle GPU.
kiln_status_t captureStepGraphs(kiln_session_s *session,
                                const std::vector<void *> &addresses) {
  if (!session->stepGraphs.empty() &&
      addresses == session->stepGraphAddresses &&
      session->shapes.values() == session->stepGraphDims)
    return nullptr;
  for (cudaGraphExec_t &exec : session->stepGraphs)
    if (exec)
      cudaGraphExecDestroy(exec);
  session->stepGraphs.assign(session->steps.size(), nullptr);
  session->stepGraphAddresses.clear();
  // Capture on the session's own stream: a caller's legacy default stream
  // cannot be captured.
  cudaStream_t origin = session->streams[0];
  for (size_t i = 0; i < session->steps.size(); ++i) {
    StepKind kind = session->steps[i].kind;
    if (kind == StepKind_RecordEvent || kind == StepKind_WaitEvent)
      continue;
    KILN_RETURN_IF_ERROR(annotate(
        captureGraph(
            origin,
            [&] { return enqueueStep(*session, i, addresses, origin); },
            &session->stepGraphs[i]),
        "capturing " + session->steps[i].describe(i) + " to profile it"));
  }
  session->stepGraphAddresses = addresses;
  session->stepGraphDims = session->shapes.values();
  return nullptr;
}

/// Profile mode: waits for the run's steps to complete and keeps CUPTI's
/// per-step device times (or, in |profileSource|, why there are none).
kiln_status_t finishCollection(kiln_session_s *session,
                               StepActivityCollection *collection,
                               cudaStream_t stream) {
  if (collection->active())
    KILN_RETURN_IF_ERROR(cudaStatus(cudaStreamSynchronize(stream),
                                    "waiting for the profiled run"));
  if (collection->finish(&session->stepActivity))
    session->profileSource = "cupti";
  else
    session->profileSource = "events: " + collection->reason();
  return nullptr;
}

/// Debug and profile mode: every step in order on |stream|; debug mode
/// synchronises after each and names the step that failed. Profile mode
/// launches the steps' graphs between their events (debug mode enqueues the
/// steps themselves), marks each launch for CUPTI and synchronises at the
/// end to read CUPTI's records.
kiln_status_t runStepByStep(kiln_session_s *session,
                            const std::vector<void *> &addresses,
                            cudaStream_t stream) {
  bool graphs = session->profile && !session->debug;
  std::unique_ptr<StepActivityCollection> collection;
  if (session->profile) {
    session->stepActivity.clear();
    // Enabled before the steps' graphs are instantiated, so that CUPTI
    // traces their kernels.
    collection =
        std::make_unique<StepActivityCollection>(session->steps.size());
    session->profileSource =
        collection->active()
            ? "events: the last run failed before CUPTI's records were read"
            : "events: " + collection->reason();
  }
  if (graphs) {
    KILN_RETURN_IF_ERROR(captureStepGraphs(session, addresses));
    // Let every launch below queue up before the GPU starts (a step's
    // events then time it alone, not its launch latency): a few
    // microseconds of host time a step, more while CUPTI records each call.
    unsigned perStep = collection->active() ? 40 : 10;
    KILN_RETURN_IF_ERROR(holdStream(
        stream, 1000 + perStep * static_cast<unsigned>(session->steps.size())));
  }
  if (session->profile)
    KILN_RETURN_IF_ERROR(
        cudaStatus(cudaEventRecord(session->runStart, stream), "profiling"));
  // Debug mode blames a fault on the step after which it shows: first make
  // sure it is not in work enqueued before the run.
  if (session->debug)
    KILN_RETURN_IF_ERROR(cudaStatus(
        cudaStreamSynchronize(stream),
        "before the first step (work enqueued earlier on the stream: host "
        "input staging or the caller's own)"));
  for (size_t i = 0; i < session->steps.size(); ++i) {
    const PreparedStep &step = session->steps[i];
    if (session->profile)
      KILN_RETURN_IF_ERROR(cudaStatus(
          cudaEventRecord(session->stepStart[i], stream), "profiling"));
    // On one stream the plan's order already implies its events.
    bool launches = graphs ? session->stepGraphs[i] != nullptr
                           : step.kind != StepKind_RecordEvent &&
                                 step.kind != StepKind_WaitEvent;
    if (launches && collection)
      collection->beginStep(i);
    if (launches && graphs)
      KILN_RETURN_IF_ERROR(cudaStatus(
          cudaGraphLaunch(session->stepGraphs[i], stream), step.describe(i)));
    else if (launches)
      KILN_RETURN_IF_ERROR(enqueueStep(*session, i, addresses, stream));
    if (launches && collection)
      collection->endStep();
    if (session->profile)
      KILN_RETURN_IF_ERROR(cudaStatus(
          cudaEventRecord(session->stepEnd[i], stream), "profiling"));
    if (!session->debug)
      continue;
    // A device fault shows here, in the step that caused it: name the
    // step, its ONNX nodes and the CUDA kernel.
    std::string where = step.describe(i);
    if (!step.symbol.empty())
      where += " in CUDA kernel " + step.symbol;
    KILN_RETURN_IF_ERROR(cudaStatus(cudaStreamSynchronize(stream), where));
    KILN_RETURN_IF_ERROR(cudaStatus(cudaGetLastError(), where));
    // A bounds-checked kernel's out-of-range index (the record names the
    // step itself).
    KILN_RETURN_IF_ERROR(takeBoundsFault(session, stream));
    if (session->checkNanInf)
      KILN_RETURN_IF_ERROR(checkStepOutputs(*session, i, addresses, stream));
    if (session->stepCallback)
      if (int stop = session->stepCallback(session->stepCallbackData, session,
                                           i, stream))
        return Error(KILN_STATUS_CANCELLED)
               << "the step callback stopped the run after " << step.describe(i)
               << " (it returned " << stop << ")";
  }
  if (collection)
    return finishCollection(session, collection.get(), stream);
  return nullptr;
}

/// Enqueues host input staging, the plan and host output staging on
/// |stream|. Sets |*enqueued| once anything may have been enqueued, so that
/// the caller records runDone even when a later part fails.
kiln_status_t enqueueRun(kiln_session_s *session,
                         const std::vector<void *> &addresses,
                         cudaStream_t stream, bool captured, bool *enqueued) {
  for (Binding &binding : session->inputs) {
    if (binding.memory != KILN_MEMORY_HOST)
      continue;
    KILN_RETURN_IF_ERROR(
        cudaStatus(cudaLaunchHostFunc(stream, copyInputToPinned, &binding),
                   "staging a host input"));
    *enqueued = true;
    KILN_RETURN_IF_ERROR(cudaStatus(
        cudaMemcpyAsync(binding.deviceStaging, binding.pinnedStaging,
                        binding.bytes, cudaMemcpyHostToDevice, stream),
        "staging a host input"));
  }
  *enqueued = true; // Step by step or a graph launch: possibly partial.
  if (session->poisonArena && session->arena && !captured)
    KILN_RETURN_IF_ERROR(cudaStatus(
        cudaMemsetAsync(session->arena, 0xff, session->arenaBytes, stream),
        "poisoning the activation arena"));
  if (captured) // The caller's graph gets the plan's nodes themselves.
    KILN_RETURN_IF_ERROR(annotate(enqueuePlan(session, addresses, stream),
                                  "enqueueing the plan into the caller's "
                                  "stream capture"));
  else if (session->debug || session->profile)
    KILN_RETURN_IF_ERROR(runStepByStep(session, addresses, stream));
  else if (!session->cudaGraph)
    KILN_RETURN_IF_ERROR(enqueuePlan(session, addresses, stream));
  else
    KILN_RETURN_IF_ERROR(runGraph(session, addresses, stream));
  for (Binding &binding : session->outputs) {
    if (binding.memory != KILN_MEMORY_HOST)
      continue;
    KILN_RETURN_IF_ERROR(cudaStatus(
        cudaMemcpyAsync(binding.pinnedStaging, binding.deviceStaging,
                        binding.bytes, cudaMemcpyDeviceToHost, stream),
        "staging a host output"));
    KILN_RETURN_IF_ERROR(
        cudaStatus(cudaLaunchHostFunc(stream, copyPinnedToOutput, &binding),
                   "staging a host output"));
  }
  // Bounds-checked artifacts: every uncaptured run reads the fault record
  // at its end, synchronously (a captured run cannot wait: its replays'
  // faults show at the session's next uncaptured run).
  if (captured)
    session->replayedSinceBoundsCheck = session->boundsRecord != nullptr;
  else
    KILN_RETURN_IF_ERROR(takeBoundsFault(session, stream));
  return nullptr;
}

} // namespace

/// Whether |stream| is being captured into a graph (the caller's capture):
/// then the run's work becomes nodes of that graph. Debug and profile mode
/// synchronise, so they cannot be captured.
kiln_status_t captureStatus(const kiln_session_s &session, cudaStream_t stream,
                            bool *captured) {
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  KILN_RETURN_IF_ERROR(cudaStatus(cudaStreamIsCapturing(stream, &capture),
                                  "asking whether the stream is captured"));
  if (capture == cudaStreamCaptureStatusInvalidated)
    return Error(KILN_STATUS_FAILED_PRECONDITION)
           << "the stream's capture was invalidated before kiln_session_run";
  *captured = capture == cudaStreamCaptureStatusActive;
  if (*captured && (session.debug || session.profile))
    return Error(KILN_STATUS_FAILED_PRECONDITION)
           << "a session in " << (session.debug ? "debug" : "profile")
           << " mode synchronises with the device, so its runs cannot be "
              "captured into a CUDA graph";
  return nullptr;
}

namespace {

/// kiln_session_run's checks and work; runSession below records a device
/// fault from any of them.
kiln_status_t checkAndEnqueueRun(kiln_session_s *session, cudaStream_t stream) {
  if (!session->deviceFault.empty())
    return Error(KILN_STATUS_DEVICE_FAULT)
           << "the session cannot run: an earlier run hit a device fault and "
              "the CUDA context is unusable ("
           << session->deviceFault << ")";
  KILN_RETURN_IF_ERROR(checkBound(*session));
  const EntryPointSignature &signature =
      session->model->signatures[session->entryIndex];
  KILN_RETURN_IF_ERROR(checkDisjointBindings(
      session->inputs, session->outputs, signature.inputs, signature.outputs));
  bool captured = false;
  KILN_RETURN_IF_ERROR(captureStatus(*session, stream, &captured));
  // Library steps with a run-time extent: their plans at these shapes.
  KILN_RETURN_IF_ERROR(useLibraryPlansAtShape(session, captured));
  std::vector<void *> addresses;
  resolveAddresses(*session, &addresses);
  // Runs of one session share its arena: order this one after the last. In
  // a capture, as an external event node: each replay of the caller's graph
  // waits for the session's last run, and records runDone at its end.
  if (session->hasRun)
    KILN_RETURN_IF_ERROR(cudaStatus(
        cudaStreamWaitEvent(stream, session->runDone,
                            captured ? cudaEventWaitExternal
                                     : cudaEventWaitDefault),
        "ordering after the previous run"));
  bool enqueued = false;
  kiln_status_t status =
      enqueueRun(session, addresses, stream, captured, &enqueued);
  // The one cleanup path: whatever was enqueued (host callbacks that read or
  // write the caller's buffers included) is covered by runDone, which the
  // next bind, run and release wait for, even when the run failed.
  if (enqueued) {
    kiln_status_t recorded = cudaStatus(
        cudaEventRecordWithFlags(session->runDone, stream,
                                 captured ? cudaEventRecordExternal
                                          : cudaEventRecordDefault),
        "recording the run");
    if (!recorded)
      session->hasRun = true;
    else if (!captured)
      cudaStreamSynchronize(stream); // No event: wait here instead.
    if (!status)
      status = recorded;
    else
      kiln_status_free(recorded);
  }
  return status;
}

} // namespace

kiln_status_t runSession(kiln_session_s *session, cudaStream_t stream) {
  kiln_status_t status = checkAndEnqueueRun(session, stream);
  // A fault is sticky: it shows at whichever CUDA call comes first (the
  // capture check, the graph launch, the run's event), often in a later
  // run than the one whose kernel faulted.
  if (kiln_status_code(status) == KILN_STATUS_DEVICE_FAULT &&
      session->deviceFault.empty()) {
    // Only debug mode knows the step.
    if (!session->debug)
      status->message += "; to find the kernel, run again with KILN_DEBUG=1 "
                         "in a new process";
    session->deviceFault = status->message;
  }
  return status;
}

} // namespace kiln::runtime
