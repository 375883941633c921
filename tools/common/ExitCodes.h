// The exit codes every kiln tool returns (docs/tools.md lists them).
#ifndef KILN_TOOLS_COMMON_EXITCODES_H
#define KILN_TOOLS_COMMON_EXITCODES_H

namespace kiln::tools {

enum ExitCode : int {
  /// Done; every output that was checked matches.
  kExitOk = 0,
  /// An output mismatch, or the work failed: a compiler pass or the
  /// verifier, NVRTC, the runtime or CUDA. (kiln IR that does not parse
  /// counts here: kiln-opt and kiln-translate read kiln's own IR.)
  kExitFailure = 1,
  /// A usage error (an unknown option, a bad value, a missing argument) or
  /// an input the tool cannot take: a file that cannot be opened, read or
  /// written, an ONNX model that does not import, an artifact that fails its
  /// checks, input tensors that do not fit the model.
  kExitUsageOrFileError = 2,
  /// No usable CUDA device (kiln-run only).
  kExitNoDevice = 3,
};

} // namespace kiln::tools

#endif // KILN_TOOLS_COMMON_EXITCODES_H
