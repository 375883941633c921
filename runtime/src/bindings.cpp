// Host staging allocation and the overlap check of bound device buffers.
#include "bindings.h"
#include "status.h"

#include "kiln/escaped_text.h"

#include <cstdint>

namespace kiln::runtime {

namespace {

cudaError_t hostAlloc(void **pointer, size_t bytes) {
  return cudaMallocHost(pointer, bytes);
}

/// [begin, end) of a device-bound binding; empty for host bindings.
struct Range {
  uintptr_t begin = 0, end = 0;
};
Range deviceRange(const Binding &binding) {
  if (!binding.bound || binding.memory != KILN_MEMORY_DEVICE)
    return {};
  uintptr_t begin = reinterpret_cast<uintptr_t>(binding.user);
  return {begin, begin + binding.bytes};
}
bool overlap(Range a, Range b) {
  return a.begin < a.end && b.begin < b.end && a.begin < b.end &&
         b.begin < a.end;
}

} // namespace

const StagingAllocator &cudaStagingAllocator() {
  static const StagingAllocator allocator = {cudaMalloc, cudaFree, hostAlloc,
                                             cudaFreeHost};
  return allocator;
}

kiln_status_t ensureStaging(Binding *binding, size_t bytes,
                            const std::string &what,
                            const StagingAllocator &allocator) {
  if (binding->deviceStaging && binding->pinnedStaging)
    return nullptr;
  // Start from nothing: a half-allocated pair from elsewhere is released.
  if (binding->deviceStaging)
    allocator.deviceFree(binding->deviceStaging);
  if (binding->pinnedStaging)
    allocator.hostFree(binding->pinnedStaging);
  binding->deviceStaging = binding->pinnedStaging = nullptr;
  void *device = nullptr, *pinned = nullptr;
  kiln_status_t status =
      cudaStatus(allocator.deviceAlloc(&device, bytes), "staging " + what);
  if (!status)
    status = cudaStatus(allocator.hostAlloc(&pinned, bytes), "staging " + what);
  if (status) {
    if (device)
      allocator.deviceFree(device);
    if (pinned)
      allocator.hostFree(pinned);
    return status;
  }
  binding->deviceStaging = device;
  binding->pinnedStaging = pinned;
  return nullptr;
}

kiln_status_t
checkDisjointBindings(const std::vector<Binding> &inputs,
                      const std::vector<Binding> &outputs,
                      const std::vector<kiln_tensor_info_t> &inputInfos,
                      const std::vector<kiln_tensor_info_t> &outputInfos) {
  for (size_t o = 0; o < outputs.size(); ++o) {
    Range output = deviceRange(outputs[o]);
    for (size_t i = 0; i < inputs.size(); ++i)
      if (overlap(output, deviceRange(inputs[i])))
        return Error(KILN_STATUS_INVALID_ARGUMENT)
               << "input '" << text::escapeName(inputInfos[i].name)
               << "' and output '" << text::escapeName(outputInfos[o].name)
               << "' are bound to overlapping device memory (inputs and "
                  "outputs must not overlap)";
    for (size_t other = 0; other < o; ++other)
      if (overlap(output, deviceRange(outputs[other])))
        return Error(KILN_STATUS_INVALID_ARGUMENT)
               << "outputs '" << text::escapeName(outputInfos[other].name)
               << "' and '" << text::escapeName(outputInfos[o].name)
               << "' are bound to overlapping device memory (outputs must "
                  "not overlap)";
  }
  return nullptr;
}

} // namespace kiln::runtime
