// The compiler half of the Python package: ONNX model bytes in, .kiln
// artifact bytes out, through the library functions kiln-compile's phases
// call. Only standard types cross this header, so that the nanobind module
// (built with RTTI) never includes MLIR (built without).
#ifndef KILN_PYTHON_ARTIFACTCOMPILER_H
#define KILN_PYTHON_ARTIFACTCOMPILER_H

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kiln::python {

struct CompileRequest {
  /// The serialized ONNX ModelProto.
  std::string modelBytes;
  /// Where the model came from: external-data files are looked up beside it
  /// and its file name is recorded in the artifact.
  std::string sourcePath;
  /// kiln-compile's --input-shape entries: "x=8x3x224x224" or "batch=8".
  std::vector<std::string> inputShapes;
  /// fp32, tf32, fp16 or bf16.
  std::string precision = "fp16";
  /// Comma-separated archs: "sm_90" or "sm_90,sm_80".
  std::string gpuArchs = "sm_90";
  /// Leave external-data weights in their file. Unset: when they exceed
  /// |externalWeightsThreshold| bytes (kiln-compile's default).
  std::optional<bool> externalWeights;
  uint64_t externalWeightsThreshold = 64ull << 20;
  /// Most CUDA streams the schedule uses.
  int64_t maxStreams = 4;
  /// kiln-compile's --bounds-checks: kernels check their data-dependent
  /// indices on the device.
  bool boundsChecks = false;
};

struct CompileResult {
  bool ok = false;
  /// Every error, one per line, with its ONNX node (when ok is false).
  std::string errors;
  std::string artifact;
  /// Phase name -> milliseconds, in the order they ran.
  std::vector<std::pair<std::string, double>> phaseMilliseconds;
  /// The packager's summary: kernels, launches, gemms, arena bytes, ...
  std::map<std::string, uint64_t> summary;
  /// kiln-compile's warnings (a kernel whose cubin has a stack frame:
  /// kiln::stackFrameWarnings), one per line's worth, when ok.
  std::vector<std::string> warnings;
  std::string compilerVersion;
  std::string cudaVersion;
};

/// Imports, optimises, fuses, tiles, schedules, plans, emits, compiles with
/// NVRTC and packages |request|'s model. Never throws for a bad model: every
/// problem is in |errors|. Thread-safe (each call has its own MLIRContext).
CompileResult compileArtifact(const CompileRequest &request);

} // namespace kiln::python

#endif // KILN_PYTHON_ARTIFACTCOMPILER_H
