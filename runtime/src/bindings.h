// Checks and allocations for bound inputs and outputs: host staging buffers
// and disjoint device ranges.
#ifndef KILN_RUNTIME_BINDINGS_H
#define KILN_RUNTIME_BINDINGS_H

#include "session.h"

#include <string>
#include <vector>

namespace kiln::runtime {

/// The CUDA allocation calls staging uses; tests substitute failing ones.
struct StagingAllocator {
  cudaError_t (*deviceAlloc)(void **pointer, size_t bytes);
  cudaError_t (*deviceFree)(void *pointer);
  cudaError_t (*hostAlloc)(void **pointer, size_t bytes);
  cudaError_t (*hostFree)(void *pointer);
};
/// cudaMalloc, cudaFree, cudaMallocHost and cudaFreeHost.
const StagingAllocator &cudaStagingAllocator();

/// Gives |binding| a device and a pinned staging buffer of |bytes| unless it
/// has both. On failure neither is kept, so a retried bind allocates again.
/// |what| names the binding in the message ("input 'x'").
kiln_status_t ensureStaging(Binding *binding, size_t bytes,
                            const std::string &what,
                            const StagingAllocator &allocator);

/// INVALID_ARGUMENT naming both bindings when a device-bound output overlaps
/// a device-bound input or another output (kernels take their pointers as
/// __restrict__). Inputs may overlap each other: they are only read.
kiln_status_t
checkDisjointBindings(const std::vector<Binding> &inputs,
                      const std::vector<Binding> &outputs,
                      const std::vector<kiln_tensor_info_t> &inputInfos,
                      const std::vector<kiln_tensor_info_t> &outputInfos);

} // namespace kiln::runtime

#endif // KILN_RUNTIME_BINDINGS_H
