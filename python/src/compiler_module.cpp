// kiln._compiler: the nanobind module of the package's compiler half. One
// function, compile_onnx, over compileArtifact; kiln/compiler.py turns its
// result into a kiln.Artifact or a kiln.CompileError.
#include "ArtifactCompiler.h"

#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

namespace nb = nanobind;
using kiln::python::CompileRequest;
using kiln::python::CompileResult;

namespace {

/// Compiles |model| (ModelProto bytes) and returns a dict: ok, errors,
/// artifact (bytes), phases, summary, compiler_version, cuda_version.
nb::dict compileONNX(nb::bytes model, const std::string &sourcePath,
                     const std::vector<std::string> &inputShapes,
                     const std::string &precision, const std::string &gpuArchs,
                     std::optional<bool> externalWeights, int64_t maxStreams,
                     bool boundsChecks) {
  CompileRequest request;
  request.modelBytes.assign(model.c_str(), model.size());
  request.sourcePath = sourcePath;
  request.inputShapes = inputShapes;
  request.precision = precision;
  request.gpuArchs = gpuArchs;
  request.externalWeights = externalWeights;
  request.maxStreams = maxStreams;
  request.boundsChecks = boundsChecks;
  CompileResult result;
  {
    // Compiling takes seconds and touches no Python object.
    nb::gil_scoped_release release;
    result = kiln::python::compileArtifact(request);
  }
  nb::dict out;
  out["ok"] = result.ok;
  out["errors"] = result.errors;
  out["artifact"] = nb::bytes(result.artifact.data(), result.artifact.size());
  out["phases"] = result.phaseMilliseconds;
  out["summary"] = result.summary;
  out["warnings"] = result.warnings;
  out["compiler_version"] = result.compilerVersion;
  out["cuda_version"] = result.cudaVersion;
  return out;
}

} // namespace

NB_MODULE(_compiler, module) {
  module.doc() = "kiln's ONNX-to-artifact compiler (links MLIR; see "
                 "kiln.compile for the Python API)";
  module.def("compile_onnx", &compileONNX, nb::arg("model"),
             nb::arg("source_path"), nb::arg("input_shapes"),
             nb::arg("precision"), nb::arg("gpu_archs"),
             nb::arg("external_weights").none(), nb::arg("max_streams"),
             nb::arg("bounds_checks"));
}
