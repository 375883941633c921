// kiln_session_*: creating a session (arena, streams, events, gemm algorithms)
// and binding I/O.
#include "session.h"
#include "arena_layout.h"
#include "bindings.h"
#include "bounds_checks.h"
#include "device_memory.h"
#include "options.h"
#include "status.h"

#include "kiln/artifact_format.h"
#include "kiln/escaped_text.h"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

using namespace kiln::runtime;
using namespace kiln::artifact;

kiln_session_s::~kiln_session_s() {
  DeviceGuard guard(model->device);
  if (runDone)
    cudaEventSynchronize(runDone);
  for (const CapturedGraph &captured : graphs)
    if (captured.exec)
      cudaGraphExecDestroy(captured.exec);
  for (cudaGraphExec_t stepGraph : stepGraphs)
    if (stepGraph)
      cudaGraphExecDestroy(stepGraph);
  for (auto *list : {&planEvents, &joinEvents, &stepStart, &stepEnd})
    for (cudaEvent_t event : *list)
      if (event)
        cudaEventDestroy(event);
  for (cudaEvent_t event : {forkEvent, runDone, runStart})
    if (event)
      cudaEventDestroy(event);
  for (cudaStream_t stream : streams)
    if (stream)
      cudaStreamDestroy(stream);
  for (auto *list : {&inputs, &outputs})
    for (Binding &binding : *list) {
      if (binding.deviceStaging)
        cudaFree(binding.deviceStaging);
      if (binding.pinnedStaging)
        cudaFreeHost(binding.pinnedStaging);
    }
  steps.clear(); // Gemm and conv plans before the handles.
  if (cublas)
    cublasLtDestroy(cublas);
  for (cudnnHandle_t handle : cudnnHandles)
    if (handle)
      cudnnDestroy(handle);
  if (arena)
    cudaFree(arena);
  kiln::runtime::freeBoundsRecord(this);

  kiln_model_release(model);
}

namespace {

kiln_status_t createEvents(std::vector<cudaEvent_t> *events, size_t count,
                           unsigned flags) {
  events->assign(count, nullptr);
  for (cudaEvent_t &event : *events)
    KILN_RETURN_IF_ERROR(
        cudaStatus(cudaEventCreateWithFlags(&event, flags), "cudaEventCreate"));
  return nullptr;
}

/// Everything a session allocates, once.
kiln_status_t initialize(kiln_session_s *session, bool keepStepOutputs) {
  const EntryPoint &entry = *session->entry;
  uint32_t streams = std::max<uint32_t>(entry.num_streams(), 1);
  uint64_t activationBytes = entry.activation_arena_bytes();
  if (keepStepOutputs)
    KILN_RETURN_IF_ERROR(privateActivationOffsets(
        entry, &session->activationOffsets, &activationBytes));
  ArenaLayout layout;
  KILN_RETURN_IF_ERROR(computeArenaLayout(activationBytes,
                                          entry.workspace_bytes(), streams,
                                          &layout));
  if (layout.totalBytes > SIZE_MAX)
    return Error(KILN_STATUS_RESOURCE_EXHAUSTED)
           << "a " << layout.totalBytes
           << "-byte activation arena does not fit in memory";
  session->workspaceBytes = layout.workspaceBytes;
  session->workspaces.assign(streams, nullptr);
  if (layout.totalBytes > 0) {
    session->arenaBytes = size_t(layout.totalBytes);
    KILN_RETURN_IF_ERROR(allocateDeviceMemory(
        &session->arena, layout.totalBytes,
        "allocating the " + std::to_string(layout.totalBytes) +
            "-byte activation arena",
        session->model->device));
    for (size_t stream = 0; stream < layout.workspaceOffsets.size(); ++stream)
      session->workspaces[stream] =
          static_cast<char *>(session->arena) + layout.workspaceOffsets[stream];
  }
  KILN_RETURN_IF_ERROR(allocateBoundsRecord(session));
  KILN_RETURN_IF_ERROR(
      cublasStatus(cublasLtCreate(&session->cublas), "cublasLtCreate"));
  session->streams.assign(streams, nullptr);
  for (cudaStream_t &stream : session->streams)
    KILN_RETURN_IF_ERROR(
        cudaStatus(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking),
                   "cudaStreamCreate"));
  KILN_RETURN_IF_ERROR(createEvents(&session->planEvents, entry.num_events(),
                                    cudaEventDisableTiming));
  KILN_RETURN_IF_ERROR(
      createEvents(&session->joinEvents, streams, cudaEventDisableTiming));
  std::vector<cudaEvent_t> single;
  KILN_RETURN_IF_ERROR(createEvents(&single, 2, cudaEventDisableTiming));
  session->forkEvent = single[0];
  session->runDone = single[1];
  if (session->profile) {
    size_t steps = entry.steps() ? entry.steps()->size() : 0;
    KILN_RETURN_IF_ERROR(createEvents(&session->stepStart, steps, 0));
    KILN_RETURN_IF_ERROR(createEvents(&session->stepEnd, steps, 0));
    KILN_RETURN_IF_ERROR(
        cudaStatus(cudaEventCreate(&session->runStart), "cudaEventCreate"));
  }
  session->inputs.resize(entry.inputs() ? entry.inputs()->size() : 0);
  session->outputs.resize(entry.outputs() ? entry.outputs()->size() : 0);
  return prepareSteps(session);
}

std::string shapeText(const int64_t *dims, size_t rank) {
  std::string text = "[";
  for (size_t i = 0; i < rank; ++i)
    text += (i ? ", " : "") + std::to_string(dims[i]);
  return text + "]";
}

kiln_status_t bind(kiln_session_t *session, const char *name,
                   const kiln_tensor_t *tensor, bool input) {
  const char *what = input ? "input" : "output";
  if (!session || !name || !tensor)
    return Error(KILN_STATUS_INVALID_ARGUMENT)
           << "kiln_session_bind_" << what << ": NULL session, name or tensor";
  const auto &infos =
      input ? session->model->signatures[session->entryIndex].inputs
            : session->model->signatures[session->entryIndex].outputs;
  size_t index = 0;
  while (index < infos.size() && std::strcmp(infos[index].name, name) != 0)
    ++index;
  if (index == infos.size())
    return Error(KILN_STATUS_NOT_FOUND)
           << "the entry point has no " << what << " named '"
           << kiln::text::escapeName(name) << "'";
  const kiln_tensor_info_t &info = infos[index];
  std::string prefix = std::string(what) + " '" + kiln::text::escapeName(name) + "': ";
  if (!tensor->data)
    return Error(KILN_STATUS_INVALID_ARGUMENT) << prefix << "NULL data";
  // Ranged dims: an input's declared dims set its shape for the next runs
  // (kiln_session_set_input_shape); the bytes are checked at the run,
  // against that shape, and may be at most the artifact's maximum here.
  const kiln::artifact::TensorSignature *signature =
      (input ? session->entry->inputs() : session->entry->outputs())
          ->Get(static_cast<uint32_t>(index));
  bool ranged = signature->dim_exprs() && signature->dim_exprs()->size() > 0;
  if (ranged) {
    if (input && tensor->dims)
      KILN_RETURN_IF_ERROR(
          session->shapes.setInputShape(index, tensor->dims, tensor->rank));
    if (tensor->bytes > info.bytes)
      return Error(KILN_STATUS_INVALID_ARGUMENT)
             << prefix << "bound with " << tensor->bytes
             << " bytes, more than its largest shape "
             << shapeText(info.dims, info.rank) << " needs (" << info.bytes
             << ")";
  }
  if (tensor->dims && !ranged &&
      (tensor->rank != info.rank ||
       std::memcmp(tensor->dims, info.dims, info.rank * sizeof(int64_t)) != 0))
    return Error(KILN_STATUS_INVALID_ARGUMENT)
           << prefix << "bound with shape "
           << shapeText(tensor->dims, tensor->rank)
           << " but the artifact's shape is "
           << shapeText(info.dims, info.rank);
  if (tensor->dtype != KILN_DTYPE_UNSPECIFIED && tensor->dtype != info.dtype)
    return Error(KILN_STATUS_INVALID_ARGUMENT)
           << prefix << "bound as " << kiln_dtype_name(tensor->dtype)
           << " but the artifact's is " << kiln_dtype_name(info.dtype);
  if (!ranged && tensor->bytes != info.bytes)
    return Error(KILN_STATUS_INVALID_ARGUMENT)
           << prefix << "bound with " << tensor->bytes << " bytes but it needs "
           << info.bytes << " (" << kiln_dtype_name(info.dtype) << " "
           << shapeText(info.dims, info.rank) << ")";
  Binding &binding = input ? session->inputs[index] : session->outputs[index];
  DeviceGuard guard(session->model->device);
  if (tensor->memory == KILN_MEMORY_DEVICE) {
    if (reinterpret_cast<uintptr_t>(tensor->data) % 16 != 0)
      return Error(KILN_STATUS_INVALID_ARGUMENT)
             << prefix << "device pointer " << tensor->data
             << " is not 16-byte aligned";
    cudaPointerAttributes attributes;
    KILN_RETURN_IF_ERROR(
        cudaStatus(cudaPointerGetAttributes(&attributes, tensor->data),
                   std::string(what) + " '" + name + "'"));
    if (attributes.type != cudaMemoryTypeDevice &&
        attributes.type != cudaMemoryTypeManaged)
      return Error(KILN_STATUS_INVALID_ARGUMENT)
             << prefix << "pointer " << tensor->data
             << " is not device memory (bind host memory with "
                "KILN_MEMORY_HOST)";
    if (attributes.device != session->model->device)
      return Error(KILN_STATUS_INVALID_ARGUMENT)
             << prefix << "pointer is memory of device " << attributes.device
             << ", the session runs on device " << session->model->device;
  } else if (tensor->memory != KILN_MEMORY_HOST) {
    return Error(KILN_STATUS_INVALID_ARGUMENT)
           << prefix << "invalid memory kind " << int(tensor->memory);
  }
  // A previous run's host callbacks may still read this host binding.
  if (session->hasRun &&
      (tensor->memory == KILN_MEMORY_HOST ||
       (binding.bound && binding.memory == KILN_MEMORY_HOST)))
    KILN_RETURN_IF_ERROR(cudaStatus(cudaEventSynchronize(session->runDone),
                                    "waiting for the previous run"));
  if (tensor->memory == KILN_MEMORY_HOST)
    KILN_RETURN_IF_ERROR(ensureStaging(&binding, info.bytes,
                                       std::string(what) + " '" + name + "'",
                                       cudaStagingAllocator()));
  binding.bound = true;
  binding.memory = tensor->memory;
  binding.user = tensor->data;
  binding.bytes = tensor->bytes;
  return nullptr;
}

} // namespace

extern "C" {

void kiln_session_options_init(kiln_session_options_t *options) {
  if (!options)
    return;
  std::memset(options, 0, sizeof(*options));
  options->struct_size = sizeof(*options);
  options->device_ordinal = -1;
}

kiln_status_t kiln_session_create(kiln_model_t *model,
                                  const kiln_session_options_t *options,
                                  kiln_session_t **out_session) {
  if (!out_session)
    return Error(KILN_STATUS_INVALID_ARGUMENT)
           << "kiln_session_create: out_session is NULL";
  *out_session = nullptr;
  kiln_session_options_t resolved;
  KILN_RETURN_IF_ERROR(readSessionOptions(options, &resolved));
  options = &resolved;
  if (!model)
    return Error(KILN_STATUS_INVALID_ARGUMENT)
           << "kiln_session_create: model is NULL";
  if (options->device_ordinal >= 0 && options->device_ordinal != model->device)
    return Error(KILN_STATUS_INVALID_ARGUMENT)
           << "session on device " << options->device_ordinal
           << " but the model's weights are "
           << "on device " << model->device
           << " (load the model on that device)";
  size_t entryIndex = 0;
  size_t entries = model->signatures.size();
  if (options->entry_point) {
    while (entryIndex < entries &&
           std::strcmp(kiln_model_entry_point_name(model, entryIndex),
                       options->entry_point) != 0)
      ++entryIndex;
  }
  if (entryIndex >= entries)
    return Error(KILN_STATUS_NOT_FOUND)
           << "the model has no entry point "
           << (options->entry_point
                   ? std::string("'") + options->entry_point + "'"
                   : "");
  // Run-time extents (format 3, issue 18): the ranged dims start at their
  // ranges' hi until kiln_session_set_input_shape sets them.
  kiln::runtime::RunTimeShapes shapes;
  KILN_RETURN_IF_ERROR(kiln::runtime::RunTimeShapes::create(
      model->manifest(),
      *model->manifest().entry_points()->Get(static_cast<uint32_t>(entryIndex)),
      &shapes));
  DeviceGuard guard(model->device);
  KILN_RETURN_IF_ERROR(cudaStatus(guard.error(), "cudaSetDevice"));
  retainModel(model);
  auto *session = new kiln_session_s();
  session->shapes = std::move(shapes);
  session->model = model;
  session->entryIndex = entryIndex;
  session->entry =
      model->manifest().entry_points()->Get(static_cast<uint32_t>(entryIndex));
  session->debug = options->debug || environmentFlag("KILN_DEBUG", false);
  session->checkNanInf = options->check_nan_inf != 0;
  session->profile = options->profile != 0;
  if (options->algorithm_cache_path)
    session->algorithmCachePath = options->algorithm_cache_path;
  else if (const char *cache = std::getenv("KILN_ALGO_CACHE"))
    session->algorithmCachePath = cache;
  session->programmaticLaunch = environmentFlag("KILN_PDL", true);
  session->cudaGraph = environmentFlag("KILN_CUDA_GRAPH", true);
  session->poisonArena =
      session->debug || environmentFlag("KILN_POISON_ARENA", false);
  if (session->profile) {
    // Before any graph is captured (autotuning, the steps' graphs).
    std::string unavailable = prepareCupti();
    session->profileSource =
        unavailable.empty() ? "cupti" : "events: " + unavailable;
  }
  kiln_status_t status = initialize(session, options->keep_step_outputs != 0);
  if (status) {
    delete session;
    return status;
  }
  *out_session = session;
  return nullptr;
}

void kiln_session_release(kiln_session_t *session) { delete session; }

kiln_status_t kiln_session_algorithm_log(const kiln_session_t *session,
                                         const char **out_log) {
  if (!out_log)
    return Error(KILN_STATUS_INVALID_ARGUMENT)
           << "kiln_session_algorithm_log: out_log is NULL";
  *out_log = nullptr;
  if (!session)
    return Error(KILN_STATUS_INVALID_ARGUMENT)
           << "kiln_session_algorithm_log: session is NULL";
  *out_log = session->algorithmLogText.c_str();
  return nullptr;
}

kiln_status_t kiln_session_bind_input(kiln_session_t *session, const char *name,
                                      const kiln_tensor_t *tensor) {
  return bind(session, name, tensor, true);
}

kiln_status_t kiln_session_bind_output(kiln_session_t *session,
                                       const char *name,
                                       const kiln_tensor_t *tensor) {
  return bind(session, name, tensor, false);
}

kiln_status_t kiln_session_set_input_shape(kiln_session_t *session,
                                           const char *name,
                                           const int64_t *dims, size_t rank) {
  if (!session || !name || (!dims && rank))
    return Error(KILN_STATUS_INVALID_ARGUMENT)
           << "kiln_session_set_input_shape: NULL session, name or dims";
  const auto &infos = session->model->signatures[session->entryIndex].inputs;
  size_t index = 0;
  while (index < infos.size() && std::strcmp(infos[index].name, name) != 0)
    ++index;
  if (index == infos.size())
    return Error(KILN_STATUS_NOT_FOUND)
           << "the entry point has no input named '"
           << kiln::text::escapeName(name) << "'";
  return session->shapes.setInputShape(index, dims, rank);
}

kiln_status_t kiln_session_tensor_shape(const kiln_session_t *session,
                                        const char *name, int64_t *dims,
                                        size_t capacity, size_t *out_rank) {
  if (!session || !name || !out_rank)
    return Error(KILN_STATUS_INVALID_ARGUMENT)
           << "kiln_session_tensor_shape: NULL session, name or out_rank";
  *out_rank = 0;
  const auto &signature = session->model->signatures[session->entryIndex];
  std::vector<int64_t> shape;
  bool found = false;
  for (bool input : {true, false}) {
    const auto &infos = input ? signature.inputs : signature.outputs;
    for (size_t i = 0; i < infos.size() && !found; ++i)
      if (std::strcmp(infos[i].name, name) == 0) {
        shape = input ? session->shapes.inputShape(i)
                      : session->shapes.outputShape(i);
        found = true;
      }
  }
  if (!found)
    return Error(KILN_STATUS_NOT_FOUND)
           << "the entry point has no input or output named '"
           << kiln::text::escapeName(name) << "'";
  *out_rank = shape.size();
  if (capacity < shape.size() || (!dims && !shape.empty()))
    return Error(KILN_STATUS_INVALID_ARGUMENT)
           << "'" << kiln::text::escapeName(name) << "' has rank "
           << shape.size() << ", more than the capacity " << capacity;
  std::copy(shape.begin(), shape.end(), dims);
  return nullptr;
}

kiln_status_t kiln_session_run(kiln_session_t *session, cudaStream_t stream) {
  if (!session)
    return Error(KILN_STATUS_INVALID_ARGUMENT)
           << "kiln_session_run: session is NULL";
  DeviceGuard guard(session->model->device);
  return runSession(session, stream);
}

size_t kiln_session_step_count(const kiln_session_t *session) {
  return session ? session->steps.size() : 0;
}

kiln_status_t kiln_session_step_profile(kiln_session_t *session, size_t index,
                                        kiln_step_profile_t *out_profile) {
  if (!session || !out_profile)
    return Error(KILN_STATUS_INVALID_ARGUMENT)
           << "kiln_session_step_profile: NULL argument";
  std::memset(out_profile, 0, sizeof(*out_profile));
  if (index >= session->steps.size())
    return Error(KILN_STATUS_NOT_FOUND)
           << "step " << index << " does not exist (there are "
           << session->steps.size() << ")";
  const PreparedStep &step = session->steps[index];
  out_profile->name = step.name.c_str();
  out_profile->kind = step.kindName.c_str();
  out_profile->algorithm = step.algorithm.c_str();
  out_profile->onnx_nodes = step.onnxNodes.c_str();
  out_profile->bytes = step.bytes;
  out_profile->flops = step.flops;
  out_profile->start_ms = -1;
  out_profile->duration_ms = -1;
  out_profile->kernel_ms = -1;
  out_profile->kernel_count = -1;
  out_profile->kernel_span_ms = -1;
  if (!session->profile || !session->hasRun)
    return nullptr;
  DeviceGuard guard(session->model->device);
  KILN_RETURN_IF_ERROR(cudaStatus(cudaEventSynchronize(session->stepEnd[index]),
                                  "waiting for " + step.describe(index)));
  KILN_RETURN_IF_ERROR(
      cudaStatus(cudaEventElapsedTime(&out_profile->start_ms, session->runStart,
                                      session->stepStart[index]),
                 "timing " + step.describe(index)));
  KILN_RETURN_IF_ERROR(cudaStatus(
      cudaEventElapsedTime(&out_profile->duration_ms, session->stepStart[index],
                           session->stepEnd[index]),
      "timing " + step.describe(index)));
  if (index < session->stepActivity.size() &&
      session->stepActivity[index].count >= 0) {
    const StepActivity &activity = session->stepActivity[index];
    out_profile->kernel_ms = static_cast<float>(activity.busyNs * 1e-6);
    out_profile->kernel_count = static_cast<int32_t>(activity.count);
    out_profile->kernel_span_ms =
        static_cast<float>((activity.lastEndNs - activity.firstStartNs) * 1e-6);
  }
  return nullptr;
}

kiln_status_t kiln_session_profile_source(const kiln_session_t *session,
                                          const char **out_source) {
  if (!out_source)
    return Error(KILN_STATUS_INVALID_ARGUMENT)
           << "kiln_session_profile_source: out_source is NULL";
  *out_source = nullptr;
  if (!session)
    return Error(KILN_STATUS_INVALID_ARGUMENT)
           << "kiln_session_profile_source: session is NULL";
  if (!session->profile)
    return Error(KILN_STATUS_FAILED_PRECONDITION)
           << "kiln_session_profile_source: the session is not in profile "
              "mode (kiln_session_options_t.profile)";
  *out_source = session->profileSource.c_str();
  return nullptr;
}

} // extern "C"
