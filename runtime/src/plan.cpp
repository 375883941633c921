// Preparing plan steps (kernel launches, cuBLASLt gemms, cuDNN convolutions,
// copies, events) and checking their outputs in debug mode; enqueue.cpp
// enqueues them.
#include "session.h"
#include "status.h"
#include "step_outputs.h"

#include "kiln/escaped_text.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>

namespace kiln::runtime {

using namespace kiln::artifact;

std::string PreparedStep::describe(size_t index) const {
  std::string description =
      "step " + std::to_string(index) + " '" + text::escapeName(name) + "' (" +
      kindName;
  if (!onnxNodes.empty())
    description += "; ONNX nodes: " + text::escapeName(onnxNodes);
  return description + ")";
}

static const char *stepKindName(StepKind kind) {
  switch (kind) {
  case StepKind_Launch:
    return "launch";
  case StepKind_Gemm:
    return "gemm";
  case StepKind_Copy:
    return "copy";
  case StepKind_RecordEvent:
    return "record_event";
  case StepKind_WaitEvent:
    return "wait_event";
  case StepKind_Conv:
    return "conv";
  }
  return "unknown";
}

/// The id of the buffer that |id| views (itself unless an alias).
static uint32_t resolvedBufferId(const EntryPoint &entry, uint32_t id) {
  while (entry.buffers()->Get(id)->kind() == BufferKind_Alias)
    id = entry.buffers()->Get(id)->alias_of();
  return id;
}

/// The buffer that |id| views (itself unless an alias).
static const Buffer &resolvedBuffer(const EntryPoint &entry, uint32_t id) {
  return *entry.buffers()->Get(resolvedBufferId(entry, id));
}

uint64_t aliasByteOffset(const EntryPoint &entry, uint32_t id) {
  uint64_t offset = 0;
  while (entry.buffers()->Get(id)->kind() == BufferKind_Alias) {
    offset += entry.buffers()->Get(id)->offset();
    id = entry.buffers()->Get(id)->alias_of();
  }
  return offset;
}

void resolveAddresses(const kiln_session_s &session,
                      std::vector<void *> *addresses) {
  const EntryPoint &entry = *session.entry;
  uint32_t count = entry.buffers() ? entry.buffers()->size() : 0;
  addresses->assign(count, nullptr);
  for (uint32_t id = 0; id < count; ++id) {
    uint32_t viewed = resolvedBufferId(entry, id);
    const Buffer &buffer = *entry.buffers()->Get(viewed);
    void *address = nullptr;
    switch (buffer.kind()) {
    case BufferKind_Input:
      address = session.inputs[buffer.io_index()].deviceAddress();
      break;
    case BufferKind_Output:
      address = session.outputs[buffer.io_index()].deviceAddress();
      break;
    case BufferKind_Weight:
      address =
          static_cast<char *>(session.model->weightArena) + buffer.offset();
      break;
    case BufferKind_Activation:
      address = static_cast<char *>(session.arena) +
                (session.activationOffsets.empty()
                     ? buffer.offset()
                     : session.activationOffsets[viewed]);
      break;
    default:
      break;
    }
    if (address && viewed != id)
      address = static_cast<char *>(address) + aliasByteOffset(entry, id);
    (*addresses)[id] = address;
  }
}

/// The alignment (bytes, at most 16) cuBLASLt may assume for a gemm operand:
/// bound pointers are checked to 16 bytes, arena offsets and batch strides
/// may lower it.
static uint32_t operandAlignment(const EntryPoint &entry, uint32_t id,
                                 int64_t stride, int64_t batch) {
  const Buffer &buffer = resolvedBuffer(entry, id);
  uint64_t bits = 16 | aliasByteOffset(entry, id);
  if (buffer.kind() == BufferKind_Weight ||
      buffer.kind() == BufferKind_Activation)
    bits |= buffer.offset();
  if (batch > 1)
    bits |= static_cast<uint64_t>(stride) * dtypeSize(buffer.dtype());
  return static_cast<uint32_t>(bits & (~bits + 1)); // Lowest set bit.
}

/// Checks that kernel |kernel| takes a block of |threads| threads on this
/// GPU and allows it |sharedBytes| of dynamic shared memory.
static kiln_status_t prepareKernel(kiln_model_s &model, uint32_t kernel,
                                   uint64_t threads, unsigned sharedBytes) {
  const char *symbol = str(model.manifest().kernels()->Get(kernel)->symbol());
  if (threads > static_cast<uint64_t>(model.kernelMaxThreads[kernel]))
    return Error(KILN_STATUS_INCOMPATIBLE)
           << "a block of " << threads << " threads, but kernel '" << symbol
           << "' allows at most " << model.kernelMaxThreads[kernel]
           << " on this GPU";
  // The argument count matches the kernel's parameters: the manifest
  // validator checks one count per kernel and loadKernels the cubin.
  if (sharedBytes > 48 * 1024)
    KILN_RETURN_IF_ERROR(cudaStatus(
        cudaKernelSetAttributeForDevice(
            model.kernels[kernel], cudaFuncAttributeMaxDynamicSharedMemorySize,
            static_cast<int>(sharedBytes), model.device),
        "allowing " + std::to_string(sharedBytes) + " bytes of shared memory"));
  return nullptr;
}

static kiln_status_t prepareLaunch(kiln_session_s *session, const Step &step,
                                   PreparedStep &prepared) {
  kiln_model_s &model = *session->model;
  uint32_t kernel = step.kernel();
  prepared.function = reinterpret_cast<const void *>(model.kernels[kernel]);
  prepared.symbol = str(model.manifest().kernels()->Get(kernel)->symbol());
  uint32_t grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  for (uint32_t i = 0; i < step.grid()->size(); ++i)
    grid[i] = step.grid()->Get(i);
  for (uint32_t i = 0; i < step.block()->size(); ++i)
    block[i] = step.block()->Get(i);
  prepared.grid = dim3(grid[0], grid[1], grid[2]);
  prepared.block = dim3(block[0], block[1], block[2]);
  prepared.sharedBytes = step.shared_bytes();
  KILN_RETURN_IF_ERROR(prepareKernel(model, kernel,
                                     uint64_t(block[0]) * block[1] * block[2],
                                     prepared.sharedBytes));
  // Buckets (validated): each its own kernel, block and shared memory.
  if (const LaunchExtents *extents = step.run_time_extents())
    for (uint32_t b = 0; extents->buckets() && b < extents->buckets()->size();
         ++b) {
      const LaunchBucket &bucket = *extents->buckets()->Get(b);
      PreparedStep::Bucket preparedBucket;
      preparedBucket.function =
          reinterpret_cast<const void *>(model.kernels[bucket.kernel()]);
      preparedBucket.block = dim3(bucket.block(), 1, 1);
      preparedBucket.sharedBytes = bucket.shared_bytes();
      KILN_RETURN_IF_ERROR(prepareKernel(model, bucket.kernel(), bucket.block(),
                                         preparedBucket.sharedBytes));
      prepared.buckets.push_back(std::move(preparedBucket));
    }
  return nullptr;
}

/// The bytes of buffer |id| at the session's current shapes.
static uint64_t currentBytes(const kiln_session_s &session, int64_t id) {
  if (id < 0)
    return 0;
  return session.shapes.ranged()
             ? session.shapes.bufferBytes(static_cast<uint32_t>(id))
             : session.entry->buffers()
                   ->Get(static_cast<uint32_t>(id))
                   ->bytes();
}

kiln_status_t prepareGemm(kiln_session_s *session, const Gemm &gemm,
                          PreparedStep &prepared) {
  const EntryPoint &entry = *session->entry;
  prepared.gemmBuffers[0] = gemm.a();
  prepared.gemmBuffers[1] = gemm.b();
  prepared.gemmBuffers[4] = gemm.out();
  prepared.gemmC = gemm.c();
  prepared.gemmBias = gemm.bias();
  int64_t batch = gemm.batch();
  uint32_t alignments[4] = {
      operandAlignment(entry, gemm.a(), gemm.stride_a(), batch),
      operandAlignment(entry, gemm.b(), gemm.stride_b(), batch),
      gemm.c() >= 0 ? operandAlignment(entry, static_cast<uint32_t>(gemm.c()),
                                       gemm.stride_c(), batch)
                    : 16u,
      operandAlignment(entry, gemm.out(), gemm.stride_out(), batch)};
  if (gemm.c() < 0)
    alignments[2] = alignments[3];
  // a/b and out may differ: a cast fused into the call (validateGemmStep).
  DType inputDType = entry.buffers()->Get(gemm.a())->dtype();
  DType dtype = entry.buffers()->Get(gemm.out())->dtype();
  DType biasDType =
      gemm.bias() >= 0
          ? entry.buffers()->Get(static_cast<uint32_t>(gemm.bias()))->dtype()
          : dtype;
  prepared.gemm = std::make_unique<GemmPlan>();
  // Scratch sizes for the timing (autotune.cpp), at the current shapes.
  int64_t operands[5] = {gemm.a(), gemm.b(), gemm.c(), gemm.bias(), gemm.out()};
  for (int i = 0; i < 5; ++i)
    prepared.gemm->operandBytes[i] = currentBytes(*session, operands[i]);
  return prepared.gemm->create(session->cublas, gemm, inputDType, dtype,
                               biasDType, alignments, session->workspaceBytes);
}

/// The bytes of the distinct buffers |step| touches and its FLOPs, for
/// profiles.
static void countTraffic(const EntryPoint &entry, const Step &step,
                         PreparedStep &prepared) {
  std::vector<uint32_t> ids(prepared.args.begin(), prepared.args.end());
  prepared.flops = step.flops();
  if (const Gemm *gemm = step.kind() == StepKind_Gemm ? step.gemm() : nullptr) {
    for (int64_t id : {int64_t(gemm->a()), int64_t(gemm->b()), int64_t(gemm->c()),
                       int64_t(gemm->bias()), int64_t(gemm->out())})
      if (id >= 0)
        ids.push_back(static_cast<uint32_t>(id));
    if (!prepared.flops)
      prepared.flops = uint64_t(2) * gemm->m() * gemm->n() * gemm->k() *
                       std::max<int64_t>(gemm->batch(), 1);
  }
  if (const Conv *conv = step.kind() == StepKind_Conv ? step.conv() : nullptr) {
    for (int64_t id : {int64_t(conv->x()), int64_t(conv->w()),
                       int64_t(conv->bias()), int64_t(conv->out()),
                       int64_t(conv->residual())})
      if (id >= 0)
        ids.push_back(static_cast<uint32_t>(id));
    if (!prepared.flops)
      prepared.flops = uint64_t(2) * conv->n() * conv->k() * conv->out_h() *
                       conv->out_w() * (conv->c() / conv->groups()) *
                       conv->r() * conv->s();
  }
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  for (uint32_t id : ids)
    if (id < entry.buffers()->size())
      prepared.bytes += entry.buffers()->Get(id)->bytes();
}

kiln_status_t prepareConv(kiln_session_s *session, const Conv &conv,
                          PreparedStep &prepared) {
  prepared.convBuffers[0] = conv.x();
  prepared.convBuffers[1] = conv.w();
  prepared.convBuffers[2] = conv.out();
  prepared.convBias = conv.bias();
  prepared.convResidual = conv.residual();
  prepared.conv = std::make_unique<ConvPlan>();
  KILN_RETURN_IF_ERROR(prepared.conv->create(
      conv, session->entry->buffers()->Get(conv.out())->dtype()));
  // The plan's own sizes (from the table's dims) must be the buffers' at
  // the current shapes: a table whose dims disagree with its buffers'
  // extents would read or write past them.
  int64_t buffers[5] = {conv.x(), conv.w(), conv.bias(), conv.out(),
                        conv.residual()};
  for (int i = 0; i < 5; ++i)
    if (buffers[i] >= 0 &&
        prepared.conv->operandBytes[i] > currentBytes(*session, buffers[i]))
      return Error(KILN_STATUS_DATA_LOSS)
             << "operand " << i << " of the convolution needs "
             << prepared.conv->operandBytes[i] << " bytes, but buffer "
             << buffers[i] << " holds " << currentBytes(*session, buffers[i])
             << (session->shapes.ranged()
                     ? " at " + session->shapes.describeValues()
                     : std::string());
  return nullptr;
}

kiln_status_t prepareSteps(kiln_session_s *session) {
  const EntryPoint &entry = *session->entry;
  uint32_t count = entry.steps() ? entry.steps()->size() : 0;
  session->steps.resize(count);
  for (uint32_t i = 0; i < count; ++i) {
    const Step &step = *entry.steps()->Get(i);
    PreparedStep &prepared = session->steps[i];
    prepared.kind = step.kind();
    prepared.stream = step.stream();
    prepared.name = str(step.name());
    prepared.kindName = stepKindName(step.kind());
    for (uint32_t n = 0; step.onnx_nodes() && n < step.onnx_nodes()->size();
         ++n)
      prepared.onnxNodes +=
          (n ? ", " : "") + std::string(str(step.onnx_nodes()->Get(n)));
    for (uint32_t a = 0; step.args() && a < step.args()->size(); ++a)
      prepared.args.push_back(step.args()->Get(a));
    prepared.event = step.event();
    prepared.outputs = stepOutputBuffers(step);
    kiln_status_t status = nullptr;
    if (step.kind() == StepKind_Launch)
      status = prepareLaunch(session, step, prepared);
    else if (step.kind() == StepKind_Gemm || step.kind() == StepKind_Conv)
      status = prepareLibraryStep(session, step, prepared);
    else if (step.kind() == StepKind_Copy)
      prepared.copyBytes = entry.buffers()->Get(prepared.args[1])->bytes();
    KILN_RETURN_IF_ERROR(annotate(status, prepared.describe(i)));
    countTraffic(entry, step, prepared);
  }
  return chooseLibraryAlgorithms(session);
}

/// Index of the first non-finite element of |count| elements, or -1.
static int64_t firstNonFinite(const std::vector<uint8_t> &bytes, DType dtype,
                              size_t count) {
  for (size_t i = 0; i < count; ++i) {
    bool bad = false;
    if (dtype == DType_F32) {
      float value;
      std::memcpy(&value, &bytes[i * 4], 4);
      bad = !std::isfinite(value);
    } else if (dtype == DType_F64) {
      double value;
      std::memcpy(&value, &bytes[i * 8], 8);
      bad = !std::isfinite(value);
    } else {
      uint16_t bits;
      std::memcpy(&bits, &bytes[i * 2], 2);
      uint16_t mask =
          dtype == DType_F16 ? 0x7C00 : 0x7F80; // Exponent all ones.
      bad = (bits & mask) == mask;
    }
    if (bad)
      return static_cast<int64_t>(i);
  }
  return -1;
}

kiln_status_t checkStepOutputs(const kiln_session_s &session, size_t index,
                               const std::vector<void *> &addresses,
                               cudaStream_t stream) {
  const PreparedStep &step = session.steps[index];
  const EntryPoint &entry = *session.entry;
  std::set<uint32_t> written(step.outputs.begin(), step.outputs.end());
  for (uint32_t id : written) {
    const Buffer &buffer = *entry.buffers()->Get(id);
    BufferKind kind = resolvedBuffer(entry, id).kind();
    DType dtype = buffer.dtype();
    if ((kind != BufferKind_Activation && kind != BufferKind_Output) ||
        (dtype != DType_F32 && dtype != DType_F64 && dtype != DType_F16 &&
         dtype != DType_BF16))
      continue;
    std::vector<uint8_t> host(buffer.bytes());
    KILN_RETURN_IF_ERROR(
        cudaStatus(cudaMemcpyAsync(host.data(), addresses[id], host.size(),
                                   cudaMemcpyDeviceToHost, stream),
                   "NaN/Inf check of " + step.describe(index)));
    KILN_RETURN_IF_ERROR(
        cudaStatus(cudaStreamSynchronize(stream),
                   "NaN/Inf check of " + step.describe(index)));
    int64_t bad = firstNonFinite(host, dtype, host.size() / dtypeSize(dtype));
    if (bad >= 0)
      return Error(KILN_STATUS_NUMERIC_ERROR)
             << step.describe(index) << ": buffer " << id
             << " has a NaN or Inf at element " << bad;
  }
  return nullptr;
}

} // namespace kiln::runtime
