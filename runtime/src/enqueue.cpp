// Enqueueing prepared plan steps on their streams: kernel launches (with
// programmatic dependent launch), cuBLASLt gemms, cuDNN convolutions,
// copies and cross-stream events.
#include "session.h"
#include "status.h"

#include "kiln/artifact_format.h"

namespace kiln::runtime {

using namespace kiln::artifact;

kiln_status_t enqueueStep(const kiln_session_s &session, size_t index,
                          const std::vector<void *> &addresses,
                          cudaStream_t stream) {
  const PreparedStep &step = session.steps[index];
  cudaError_t error = cudaSuccess;
  switch (step.kind) {
  case StepKind_Launch: {
    void *values[kMaxKernelParameters + kBoundsCheckParameters];
    void *parameters[kMaxKernelParameters + kBoundsCheckParameters];
    size_t count = step.args.size();
    for (size_t i = 0; i < count; ++i) {
      values[i] = addresses[step.args[i]];
      parameters[i] = &values[i];
    }
    // Run-time extents: the ranged dims as `long long` parameters after the
    // buffers (the manifest's order), and the grid for this run's count.
    // A bucket (issue 18) launches its own kernel, block and shared memory.
    long long dims[kMaxKernelParameters];
    dim3 grid = step.grid, block = step.block;
    const void *function = step.function;
    unsigned sharedBytes = step.sharedBytes;
    if (session.shapes.hasLaunchExtents(index)) {
      std::vector<long long> dimValues = session.shapes.launchDims(index);
      for (size_t i = 0; i < dimValues.size(); ++i) {
        dims[i] = dimValues[i];
        parameters[count++] = &dims[i];
      }
      RunTimeShapes::LaunchChoice choice = session.shapes.launchChoice(index);
      grid.x = choice.gridX;
      if (choice.bucket >= 0) {
        const PreparedStep::Bucket &chosen =
            step.buckets[size_t(choice.bucket)];
        function = chosen.function;
        block = chosen.block;
        sharedBytes = chosen.sharedBytes;
      }
    }
    // Bounds-checked kernels: the fault record and this step's index.
    unsigned long long stepIndex = index;
    if (session.boundsRecord) {
      values[count] = session.boundsRecord;
      parameters[count] = &values[count];
      parameters[count + 1] = &stepIndex;
    }
    // Programmatic dependent launch: the kernel may be scheduled while the
    // previous kernel on the stream drains (hiding the launch gap between
    // dependent kernels, a few tenths of a microsecond each); kiln's kernels
    // begin with griddepcontrol.wait, which returns once that kernel has
    // finished and its writes are visible. Captured into the CUDA graph as a
    // programmatic edge.
    cudaLaunchAttribute attribute;
    attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config = {};
    config.gridDim = grid;
    config.blockDim = block;
    config.dynamicSmemBytes = sharedBytes;
    config.stream = stream;
    config.attrs = &attribute;
    config.numAttrs = session.programmaticLaunch ? 1 : 0;
    error = cudaLaunchKernelExC(&config, function, parameters);
    break;
  }
  case StepKind_Gemm: {
    GemmPointers pointers;
    pointers.a = addresses[step.gemmBuffers[0]];
    pointers.b = addresses[step.gemmBuffers[1]];
    pointers.c =
        step.gemmC >= 0 ? addresses[static_cast<size_t>(step.gemmC)] : nullptr;
    pointers.bias = step.gemmBias >= 0
                        ? addresses[static_cast<size_t>(step.gemmBias)]
                        : nullptr;
    pointers.out = addresses[step.gemmBuffers[4]];
    // Each plan stream has its own workspace: GEMMs on concurrent streams
    // must not share scratch memory.
    return annotate(step.gemm->enqueue(session.cublas, pointers,
                                       session.workspaces[step.stream],
                                       session.workspaceBytes, stream),
                    step.describe(index));
  }
  case StepKind_Conv: {
    ConvPointers pointers;
    pointers.x = addresses[step.convBuffers[0]];
    pointers.w = addresses[step.convBuffers[1]];
    pointers.bias = step.convBias >= 0
                        ? addresses[static_cast<size_t>(step.convBias)]
                        : nullptr;
    pointers.out = addresses[step.convBuffers[2]];
    pointers.residual = step.convResidual >= 0
                            ? addresses[static_cast<size_t>(step.convResidual)]
                            : nullptr;
    // The stream's own workspace slice, as for GEMMs.
    return annotate(step.conv->enqueue(session.cudnnHandles[step.stream],
                                       pointers,
                                       session.workspaces[step.stream],
                                       session.workspaceBytes, stream),
                    step.describe(index));
  }
  case StepKind_Copy:
    // A copy of a buffer with run-time extents copies this run's bytes.
    error = cudaMemcpyAsync(
        addresses[step.args[1]], addresses[step.args[0]],
        session.shapes.ranged() ? session.shapes.bufferBytes(step.args[1])
                                : step.copyBytes,
        cudaMemcpyDeviceToDevice, stream);
    break;
  case StepKind_RecordEvent:
    error = cudaEventRecord(session.planEvents[step.event], stream);
    break;
  case StepKind_WaitEvent:
    error = cudaStreamWaitEvent(stream, session.planEvents[step.event], 0);
    break;
  }
  return cudaStatus(error, step.describe(index));
}

kiln_status_t enqueuePlan(kiln_session_s *session,
                          const std::vector<void *> &addresses,
                          cudaStream_t origin) {
  std::vector<cudaStream_t> streams = session->streams;
  streams[0] = origin;
  if (streams.size() > 1) {
    KILN_RETURN_IF_ERROR(
        cudaStatus(cudaEventRecord(session->forkEvent, origin), "fork"));
    for (size_t i = 1; i < streams.size(); ++i)
      KILN_RETURN_IF_ERROR(cudaStatus(
          cudaStreamWaitEvent(streams[i], session->forkEvent, 0), "fork"));
  }
  for (size_t i = 0; i < session->steps.size(); ++i)
    KILN_RETURN_IF_ERROR(
        enqueueStep(*session, i, addresses, streams[session->steps[i].stream]));
  for (size_t i = 1; i < streams.size(); ++i) {
    KILN_RETURN_IF_ERROR(cudaStatus(
        cudaEventRecord(session->joinEvents[i], streams[i]), "join"));
    KILN_RETURN_IF_ERROR(cudaStatus(
        cudaStreamWaitEvent(origin, session->joinEvents[i], 0), "join"));
  }
  return nullptr;
}

} // namespace kiln::runtime
