// The internal representation of a loaded model (kiln_model_t) and the load
// steps it is built by.
#ifndef KILN_RUNTIME_MODEL_H
#define KILN_RUNTIME_MODEL_H

#include "artifact_reader.h"

#include <atomic>
#include <string>
#include <vector>

namespace kiln::runtime {

/// Makes |device| current for its lifetime and restores the previous one.
class DeviceGuard {
public:
  explicit DeviceGuard(int device) {
    if (cudaGetDevice(&previous) != cudaSuccess)
      previous = -1;
    if (previous != device)
      setError = cudaSetDevice(device);
  }
  ~DeviceGuard() {
    if (previous >= 0)
      cudaSetDevice(previous);
  }
  cudaError_t error() const { return setError; }

private:
  int previous = -1;
  cudaError_t setError = cudaSuccess;
};

/// One entry point's signature, in the C API's terms.
struct EntryPointSignature {
  std::vector<kiln_tensor_info_t> inputs, outputs;
  std::vector<std::vector<int64_t>> dims; // Storage for the infos' dims.
};

} // namespace kiln::runtime

struct kiln_model_s {
  std::atomic<int> references{1};
  /// The checked manifest (owned); its file bytes are gone after load.
  kiln::runtime::Artifact artifact;
  int device = 0;
  int arch = 0; // major * 10 + minor of the device.
  std::string deviceName;
  int driverVersion = 0;
  void *weightArena = nullptr;
  /// One library per distinct code section, and one kernel per Model.kernels.
  std::vector<cudaLibrary_t> libraries;
  std::vector<cudaKernel_t> kernels;
  std::vector<int>
      kernelMaxThreads; // Per kernel: cudaFuncAttributes.maxThreadsPerBlock.
  std::vector<kiln::runtime::EntryPointSignature> signatures;

  const kiln::artifact::Model &manifest() const { return *artifact.manifest; }
  ~kiln_model_s();
};

namespace kiln::runtime {

/// Loads each kernel's best image for the device (exact cubin, a compatible
/// cubin of the same major arch, else PTX) with cudaLibraryLoadData.
kiln_status_t loadKernels(kiln_model_s *model);
/// Allocates the weight arena and fills it from inline sections and external
/// files under |externalDir| ("" when none), checking each weight's hash.
kiln_status_t uploadWeights(kiln_model_s *model,
                            const std::string &externalDir);

/// Adds a reference to |model| (sessions hold one).
void retainModel(kiln_model_s *model);

} // namespace kiln::runtime

#endif // KILN_RUNTIME_MODEL_H
