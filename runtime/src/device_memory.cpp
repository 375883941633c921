// allocateDeviceMemory: cudaMalloc whose out-of-memory status names the bytes
// asked for and cudaMemGetInfo's free and total bytes.
#include "device_memory.h"
#include "status.h"

#include <cstdint>
#include <cstdio>

namespace kiln::runtime {

std::string humanBytes(uint64_t bytes) {
  static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB",
                                      "EiB"};
  double value = static_cast<double>(bytes);
  unsigned unit = 0;
  while (value >= 1024 && unit + 1 < sizeof(units) / sizeof(units[0])) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  if (unit == 0)
    std::snprintf(text, sizeof(text), "%llu B",
                  static_cast<unsigned long long>(bytes));
  else
    std::snprintf(text, sizeof(text), "%.1f %s", value, units[unit]);
  return text;
}

kiln_status_t outOfMemoryStatus(const std::string &what, uint64_t requested,
                                bool freeKnown, uint64_t freeBytes,
                                uint64_t totalBytes, int device) {
  Error error(KILN_STATUS_RESOURCE_EXHAUSTED);
  error << what << ": out of memory on device " << device << ": asked for "
        << requested << " bytes (" << humanBytes(requested) << "), ";
  if (freeKnown)
    error << freeBytes << " bytes (" << humanBytes(freeBytes)
          << ") free of " << totalBytes << " (" << humanBytes(totalBytes)
          << ")";
  else
    error << "free memory unknown (cudaMemGetInfo failed)";
  return error;
}

kiln_status_t allocateDeviceMemory(void **out, uint64_t bytes,
                                   const std::string &what, int device) {
  *out = nullptr;
  if (bytes > SIZE_MAX)
    return outOfMemoryStatus(what, bytes, false, 0, 0, device);
  cudaError_t error = cudaMalloc(out, static_cast<size_t>(bytes));
  if (error == cudaSuccess)
    return nullptr;
  *out = nullptr;
  if (error != cudaErrorMemoryAllocation)
    return cudaStatus(error, what);
  cudaGetLastError(); // Not sticky: later calls must not see it.
  size_t freeBytes = 0, totalBytes = 0;
  bool known = cudaMemGetInfo(&freeBytes, &totalBytes) == cudaSuccess;
  if (!known)
    cudaGetLastError();
  return outOfMemoryStatus(what, bytes, known, freeBytes, totalBytes, device);
}

} // namespace kiln::runtime
