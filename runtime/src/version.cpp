// kiln_runtime_version and friends: what this library is and which artifacts
// it loads.
#include "kiln/artifact_format.h"
#include "kiln/runtime.h"

static_assert(KILN_RUNTIME_API_VERSION >= 1, "API versions start at 1");

extern "C" {

const char *kiln_runtime_version(void) { return KILN_RUNTIME_VERSION_TEXT; }

uint32_t kiln_runtime_api_version(void) { return KILN_RUNTIME_API_VERSION; }

uint32_t kiln_runtime_artifact_format_version(void) {
  return kiln::artifact::kNewestFormatVersion;
}

} // extern "C"
