// printCompilerToolVersion: kiln's version and the MLIR, CUDA toolkit, NVRTC
// and artifact format versions a compiler-side tool was built with.
#include "ToolCommandLine.h"

#include "kiln/Version.h"
#include "kiln/artifact_format.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/raw_ostream.h"

#include <cuda.h>
#include <nvrtc.h>

namespace kiln::tools {

void printCompilerToolVersion(llvm::raw_ostream &os) {
  int major = 0, minor = 0;
  os << toolName() << " (kiln) " << kiln::versionText() << "\n";
  os << "  MLIR " << LLVM_VERSION_STRING << "\n";
  os << "  CUDA toolkit " << CUDA_VERSION / 1000 << "."
     << CUDA_VERSION % 1000 / 10 << " (headers)\n";
  if (nvrtcVersion(&major, &minor) == NVRTC_SUCCESS)
    os << "  NVRTC " << major << "." << minor << "\n";
  else
    os << "  NVRTC: nvrtcVersion failed\n";
  os << "  artifact format " << kiln::artifact::kFormatVersion << " ("
     << kiln::artifact::kBoundsChecksFormatVersion << " with --bounds-checks, "
     << kiln::artifact::kDynamicShapesFormatVersion
     << " with a ranged --input-shape, "
     << kiln::artifact::kSliceViewsFormatVersion << " with slice views)\n";
}

} // namespace kiln::tools
