// kiln's version strings, with the git revision the build was made from.
#include "kiln/Version.h"

#include "kiln/GitRevision.h"

namespace kiln {

namespace {
bool hasRevision() { return KILN_GIT_REVISION[0] != '\0'; }
} // namespace

const char *versionText() {
  static const std::string text =
      std::string(KILN_PROJECT_VERSION) +
      (hasRevision() ? std::string(" (git ") + KILN_GIT_REVISION + ")" : "");
  return text.c_str();
}

const char *compilerVersion() {
  static const std::string text =
      std::string("kiln ") + KILN_PROJECT_VERSION +
      (hasRevision() ? std::string(" (") + KILN_GIT_REVISION + ")" : "");
  return text.c_str();
}

} // namespace kiln
