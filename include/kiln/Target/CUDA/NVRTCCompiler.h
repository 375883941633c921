// Compiling generated CUDA kernels with NVRTC: cubin per requested arch (and
// optionally PTX), in parallel over kernels, with per-kernel timing.
#ifndef KILN_TARGET_CUDA_NVRTCCOMPILER_H
#define KILN_TARGET_CUDA_NVRTCCOMPILER_H

#include "kiln/Target/CUDA/CUDAEmitter.h"

#include "llvm/Support/Error.h"

#include <map>
#include <string>
#include <vector>

namespace kiln {

struct NVRTCOptions {
  /// Real architectures to build cubins for ("sm_90", "sm_80").
  std::vector<std::string> archs = {"sm_90"};
  /// Also keep PTX for the newest arch (compute_XX), which newer GPUs can
  /// JIT; read from that arch's cubin compile (the same bytes a compute_XX
  /// compile gives), so it costs no extra NVRTC compile.
  bool keepPTX = false;
  /// The CUDA toolkit include dir NVRTC needs for cuda_fp16.h; empty: the
  /// KILN_CUDA_INCLUDE_DIR environment variable, else the build's toolkit.
  std::string cudaIncludeDir;
  /// Worker threads; 0: std::thread::hardware_concurrency().
  unsigned threads = 0;
  /// Test hook: appends an invalid line to every source so that the error
  /// path can be tested without a GPU.
  bool injectError = false;
};

struct CompiledKernel {
  std::string name;
  std::map<std::string, std::string> cubins; // arch -> cubin bytes
  std::string ptx;                           // empty unless keepPTX
  std::string ptxArch;                       // compute_XX
  double milliseconds = 0;                   // Sum over its NVRTC compiles.
};

struct NVRTCResult {
  std::vector<CompiledKernel> kernels; // In the order of the input kernels.
  double wallMilliseconds = 0;
  unsigned threads = 0;
};

/// Parses "sm_90,sm_80" into a list, or an error naming the bad entry.
llvm::Expected<std::vector<std::string>> parseGPUArchList(llvm::StringRef list);

/// The include dir NVRTC is given (see NVRTCOptions::cudaIncludeDir).
std::string getCUDAIncludeDir(const NVRTCOptions &options);

/// "13.0".
std::string getNVRTCVersion();

/// Compiles every kernel for every arch. A failure names each kernel that
/// NVRTC rejected, the arch and NVRTC's log.
llvm::Expected<NVRTCResult>
compileWithNVRTC(llvm::ArrayRef<EmittedKernel> kernels,
                 const NVRTCOptions &options);

} // namespace kiln

#endif // KILN_TARGET_CUDA_NVRTCCOMPILER_H
