// --version of the runtime-side tools (kiln-run, kiln-inspect): kiln, the
// runtime API, the artifact format, and CUDA's runtime and driver versions.
#ifndef KILN_TOOLS_COMMON_RUNTIMETOOLVERSION_H
#define KILN_TOOLS_COMMON_RUNTIMETOOLVERSION_H

#include <cstdio>

namespace kiln::tools {

/// Prints the versions to |out|. Needs no GPU: without a driver the driver
/// line says so.
void printRuntimeToolVersion(std::FILE *out, const char *tool);

} // namespace kiln::tools

#endif // KILN_TOOLS_COMMON_RUNTIMETOOLVERSION_H
