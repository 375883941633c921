// Device allocations that fail with a status naming the bytes asked for and
// the bytes free on the device.
#ifndef KILN_RUNTIME_DEVICE_MEMORY_H
#define KILN_RUNTIME_DEVICE_MEMORY_H

#include "kiln/runtime.h"

#include <cstdint>
#include <string>

namespace kiln::runtime {

/// RESOURCE_EXHAUSTED: "<what>: out of memory on device <device>: asked for
/// <requested> bytes (<human>), <free> bytes (<human>) free of <total>".
/// |freeKnown| false: cudaMemGetInfo failed too, and the message says so.
kiln_status_t outOfMemoryStatus(const std::string &what, uint64_t requested,
                                bool freeKnown, uint64_t freeBytes,
                                uint64_t totalBytes, int device);

/// cudaMalloc of |bytes| on the current device (|device|, for messages).
/// Out of memory is outOfMemoryStatus with cudaMemGetInfo's figures; other
/// errors go through cudaStatus. |what| names the allocation.
kiln_status_t allocateDeviceMemory(void **out, uint64_t bytes,
                                   const std::string &what, int device);

/// "1.5 GiB", "512 B": a byte count for people.
std::string humanBytes(uint64_t bytes);

} // namespace kiln::runtime

#endif // KILN_RUNTIME_DEVICE_MEMORY_H
