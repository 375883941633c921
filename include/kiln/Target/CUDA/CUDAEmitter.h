// The CUDA target: turns the tiled kiln.kernel ops of a module into CUDA C++
// kernels (one per unique body, hashed and deduplicated) and their launches.
#ifndef KILN_TARGET_CUDA_CUDAEMITTER_H
#define KILN_TARGET_CUDA_CUDAEMITTER_H

#include "kiln/Dialect/Kiln/IR/KilnOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Operation.h"

#include <string>
#include <vector>

namespace kiln {

/// Attaches the CUDA ElementalOpInterface models to every kiln op that can
/// appear in a kernel.
void registerCUDAElementalModels(mlir::DialectRegistry &registry);

/// The device functions every generated kernel includes (scalar semantics,
/// conversions, reductions).
const char *getCUDAPrelude();

/// The device functions bounds-checked kernels include after the prelude:
/// the fault record and kiln_checked_index.
const char *getCUDABoundsCheckPrelude();

/// The module attribute (a unit attribute) that makes the CUDA target emit
/// bounds-checked kernels and the packager mark the artifact.
constexpr llvm::StringLiteral kBoundsChecksAttrName = "kiln.bounds_checks";
/// Marks (or unmarks) |module| for bounds-checked kernels
/// (kiln-compile --bounds-checks, kiln.compile(bounds_checks=True)).
void setBoundsChecks(mlir::ModuleOp module, bool enabled);
/// Whether the module enclosing |op| (or |op| itself) is marked.
bool hasBoundsChecks(mlir::Operation *op);

/// One unique CUDA kernel.
struct EmittedKernel {
  std::string name;   // kiln_<kind>_<hash of the source>
  std::string kind;   // The kiln.kernel kind.
  std::string source; // A complete translation unit for NVRTC.
  /// One line per kiln.kernel op this kernel implements, with ONNX nodes.
  std::vector<std::string> origins;
};

/// A bucket of a launch with run-time extents (kiln.buckets): the kernel
/// emitted with the bucket's configuration, for counts up to maxCount.
struct BucketLaunch {
  int64_t maxCount = 0;
  int kernel = -1; // Index into CUDAModule::kernels.
  int64_t grid = 0, block = 0, dynamicSharedBytes = 0, unitsPerBlock = 0;
};

/// One kiln.kernel op in program order.
struct KernelLaunch {
  KernelOp op;
  int kernel = -1; // Index into CUDAModule::kernels; -1 for library kernels.
  int64_t grid = 0, block = 0, dynamicSharedBytes = 0;
  std::vector<BucketLaunch> buckets; // By ascending maxCount.
};

struct CUDAModule {
  std::vector<EmittedKernel> kernels;
  std::vector<KernelLaunch> launches;
};

/// Emits CUDA for every kiln.kernel nested in |root| (library kernels get a
/// launch entry with kernel == -1 and no code). Errors are emitted at the
/// kernel or op that causes them.
mlir::FailureOr<CUDAModule> emitCUDAModule(mlir::Operation *root);

/// "relu_0 (Relu), add_1 (Add)": the ONNX nodes named by |op|'s location and
/// by the locations of the ops in its body.
std::string describeONNXNodes(mlir::Operation *op);

} // namespace kiln

#endif // KILN_TARGET_CUDA_CUDAEMITTER_H
