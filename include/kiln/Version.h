// kiln's version as the tools print it and the artifacts record it
// (lib/Version; the git revision is the build's, refreshed at every build).
#ifndef KILN_VERSION_H
#define KILN_VERSION_H

#include <string>

namespace kiln {

/// "0.1.0 (git abc1234)", or "0.1.0" outside a git checkout: the tools'
/// --version and kiln-run's reports.
const char *versionText();

/// "kiln 0.1.0 (abc1234)": the compiler an artifact records.
const char *compilerVersion();

} // namespace kiln

#endif // KILN_VERSION_H
