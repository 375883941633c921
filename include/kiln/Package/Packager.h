// The packager: writes one .kiln artifact (header, FlatBuffers manifest and
// aligned, hashed sections; runtime/schema/kiln_artifact.fbs) from a module
// that went through kiln-schedule and kiln-plan-memory, and the CUDA
// target's emitted and NVRTC-compiled kernels.
#ifndef KILN_PACKAGE_PACKAGER_H
#define KILN_PACKAGE_PACKAGER_H

#include "kiln/Target/CUDA/CUDAEmitter.h"
#include "kiln/Target/CUDA/NVRTCCompiler.h"

#include "mlir/IR/BuiltinOps.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln {

struct PackageOptions {
  /// Written into the manifest; defaults to getCompilerVersion().
  std::string compilerVersion;
  /// The CUDA toolkit that compiled the cubins ("13.0").
  std::string cudaVersion;
  /// The archs every kernel has a cubin for, in --gpu-arch order.
  std::vector<std::string> archs = {"sm_90"};
  /// The ONNX file the module was imported from.
  std::string sourceModel;
  /// cuBLASLt workspace reserved after the activation arena when the entry
  /// point has GEMM steps.
  uint64_t gemmWorkspaceBytes = 32ull << 20;
  /// The most workspace cuDNN's convolution algorithms may use (per stream);
  /// the entry point reserves the larger of the two needs.
  uint64_t convWorkspaceBytes = 64ull << 20;
  /// Leave the weights that came from ONNX external data in that file: the
  /// manifest references them by file, offset, length and hash.
  bool externalWeights = false;
};

/// What an artifact holds, for kiln-compile's summary.
struct PackageSummary {
  unsigned kernels = 0;  // Unique CUDA kernels.
  unsigned launches = 0; // Launch steps.
  unsigned buckets = 0;  // Buckets of launches with run-time extents.
  unsigned gemms = 0;    // Library (cuBLASLt) steps.
  unsigned convs = 0;    // Library (cuDNN) convolution steps.
  unsigned copies = 0;
  unsigned streams = 1;
  unsigned events = 0;
  unsigned weights = 0;
  unsigned externalWeights = 0; // Of |weights|, those in external files.
  unsigned initSteps = 0;       // Steps of the kiln_init entry point.
  unsigned sections = 0;
  uint64_t activationArenaBytes = 0;
  uint64_t weightArenaBytes = 0;
  uint64_t workspaceBytes = 0;
  uint64_t artifactBytes = 0;
};

/// "kiln 0.1.0 (<git revision>)".
std::string getCompilerVersion();

/// The bytes of the weights that came from ONNX external data (the lengths
/// in the module's kiln.external_data): what decides, by a threshold,
/// whether a compile leaves them in their file (PackageOptions).
uint64_t getExternalDataBytes(mlir::ModuleOp module);

/// Builds the artifact bytes for |module|'s entry function (@main) and, when
/// the module has one, the init program @kiln_init (entry point "kiln_init").
/// |cuda| and |compiled| are the CUDA target's results for the same module (the
/// compiled kernels in the order of cuda.kernels; the kernels of one NVRTC
/// program share its sections). Errors are emitted at the
/// op that causes them (or the module).
mlir::LogicalResult buildArtifact(mlir::ModuleOp module, const CUDAModule &cuda,
                                  const NVRTCResult &compiled,
                                  const PackageOptions &options,
                                  std::string &artifact,
                                  PackageSummary *summary = nullptr);

} // namespace kiln

#endif // KILN_PACKAGE_PACKAGER_H
