// printRuntimeToolVersion: the versions kiln-run and kiln-inspect report,
// from the runtime library and the CUDA runtime (no GPU needed).
#include "RuntimeToolVersion.h"

#include "kiln/Version.h"
#include "kiln/runtime.h"

#include <cuda_runtime_api.h>

namespace kiln::tools {

namespace {
/// "13.0" from 13000.
void printCudaVersion(std::FILE *out, int version) {
  std::fprintf(out, "%d.%d", version / 1000, version % 1000 / 10);
}
} // namespace

void printRuntimeToolVersion(std::FILE *out, const char *tool) {
  std::fprintf(out, "%s (kiln) %s\n", tool, kiln::versionText());
  std::fprintf(out, "  runtime %s, runtime API %u, artifact format %u\n",
               kiln_runtime_version(), kiln_runtime_api_version(),
               kiln_runtime_artifact_format_version());
  int runtime = 0, driver = 0;
  std::fprintf(out, "  CUDA runtime ");
  if (cudaRuntimeGetVersion(&runtime) == cudaSuccess)
    printCudaVersion(out, runtime);
  else
    std::fprintf(out, "unknown");
  std::fprintf(out, ", driver ");
  // 0 when no driver is installed; no device is needed for either call.
  if (cudaDriverGetVersion(&driver) == cudaSuccess && driver > 0)
    printCudaVersion(out, driver);
  else
    std::fprintf(out, "none (no CUDA driver on this machine)");
  std::fprintf(out, "\n");
}

} // namespace kiln::tools
