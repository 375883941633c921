// kiln-run: runs a .kiln artifact on inputs from .npy/.pb files or generated
// ones, checks outputs, benchmarks (latency percentiles, throughput, --json)
// and profiles. Exit status: tools/common/ExitCodes.h.
#include "bench_profile.h"
#include "benchmark.h"
#include "generated_inputs.h"
#include "repeatability.h"
#include "run_options.h"
#include "run_report.h"
#include "step_dump.h"
#include "tensor_files.h"

#include "ExitCodes.h"
#include "RuntimeToolVersion.h"
#include "kiln/Version.h"

#include "kiln/runtime.h"
#include "kiln/escaped_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <sys/stat.h>
#include <vector>

using namespace kiln::run;
using namespace kiln::tools;

namespace {

bool isDirectory(const std::string &path) {
  struct stat info;
  return stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}
bool exists(const std::string &path) {
  struct stat info;
  return stat(path.c_str(), &info) == 0;
}

/// Finds the file for tensor |index| named |name| among |paths| (see kUsage).
bool findTensor(const std::vector<std::string> &paths, const std::string &name,
                size_t index, const char *role, HostTensor *out,
                std::string *error) {
  if (paths.size() == 1 && isDirectory(paths[0])) {
    std::string dir = paths[0] + "/";
    std::string position = std::string(role) + "_" + std::to_string(index);
    // A tensor named like a positional file ("output_1") of another position
    // must not take that file: in ONNX's test layout output_1.pb is the
    // second output whatever the outputs are called. Such names look up the
    // positional file first.
    std::string prefix = std::string(role) + "_";
    bool positionalName = name.size() > prefix.size() &&
                          name.compare(0, prefix.size(), prefix) == 0 &&
                          name.find_first_not_of("0123456789", prefix.size()) ==
                              std::string::npos;
    std::vector<std::string> candidates = {
        dir + name + ".npy", dir + name + ".pb", dir + position + ".pb",
        dir + position + ".npy"};
    if (positionalName)
      std::rotate(candidates.begin(), candidates.begin() + 2, candidates.end());
    for (const std::string &candidate : candidates)
      if (exists(candidate))
        return readTensorFile(candidate, out, error);
    *error = "no file for " + std::string(role) + " '" + name + "' in " +
             paths[0] + " (tried " + name + ".npy, " + name + ".pb, " +
             position + ".pb, " + position + ".npy)";
    return false;
  }
  std::vector<HostTensor> tensors(paths.size());
  for (size_t i = 0; i < paths.size(); ++i) {
    if (!readTensorFile(paths[i], &tensors[i], error))
      return false;
    if (tensors[i].name == name) {
      *out = tensors[i];
      return true;
    }
  }
  if (index < tensors.size()) {
    *out = tensors[index];
    return true;
  }
  *error = "no file for " + std::string(role) + " '" + name + "' among the " +
           std::to_string(paths.size()) + " given";
  return false;
}

/// "13.0" from 13000.
std::string cudaVersionText(int version) {
  return std::to_string(version / 1000) + "." +
         std::to_string(version % 1000 / 10);
}

/// The shapes of entry point |entry|'s inputs, "x=8x64, mask=8x1".
std::string entryShapes(const kiln_model_t *model, size_t entry) {
  std::string text;
  for (size_t i = 0; i < kiln_model_input_count(model, entry); ++i) {
    kiln_tensor_info_t info;
    kiln_status_free(kiln_model_input_info(model, entry, i, &info));
    std::vector<int64_t> dims(info.dims, info.dims + info.rank);
    std::string shape = shapeText(dims);
    text += (i ? ", " : "") + kiln::text::escapeName(info.name) + "=" + shape;
  }
  return text.empty() ? "(no inputs)" : text;
}

/// Whether entry point |entry| has an input of each name --shapes gives,
/// with those dims (|exact|) or only of that rank: one whose ranged dims may
/// take them.
bool entryTakesShapes(const kiln_model_t *model, size_t entry,
                      const RunOptions &options, bool exact) {
  for (const auto &[name, dims] : options.shapes) {
    bool found = false;
    for (size_t i = 0; i < kiln_model_input_count(model, entry) && !found;
         ++i) {
      kiln_tensor_info_t info;
      kiln_status_free(kiln_model_input_info(model, entry, i, &info));
      found = name == info.name &&
              (exact ? dims == std::vector<int64_t>(info.dims,
                                                    info.dims + info.rank)
                     : dims.size() == info.rank);
    }
    if (!found)
      return false;
  }
  return true;
}

/// Prints --shapes' error: no entry point has these shapes, |why| (the
/// runtime's reason the chosen one's ranges do not take them, if any), and
/// the artifact's entry points with their (largest) input shapes.
void reportNoEntryPoint(const kiln_model_t *model, const RunOptions &options,
                        const std::string &why) {
  size_t count = kiln_model_entry_point_count(model);
  std::fprintf(stderr,
               "kiln-run: --shapes: no entry point%s%s has these input "
               "shapes%s%s (kiln artifacts are compiled for fixed shapes or "
               "ranges: kiln-compile --input-shape); the artifact's:\n",
               options.entry.empty() ? "" : " named ", options.entry.c_str(),
               why.empty() ? "" : " and its ranges do not take them: ",
               why.c_str());
  for (size_t entry = 0; entry < count; ++entry)
    if (std::strcmp(kiln_model_entry_point_name(model, entry), "kiln_init"))
      std::fprintf(stderr, "  %s: %s\n",
                   kiln_model_entry_point_name(model, entry),
                   entryShapes(model, entry).c_str());
}

/// The entry point to run: --entry's, the one --shapes describes, or the
/// first; false (the error printed) when none fits. When no entry point has
/// --shapes' shapes as its own, the named (or first) one with inputs of
/// those names and ranks is chosen with |*setShapes|: the session sets them
/// (an artifact with ranged dims runs at any shape in its ranges).
bool chooseEntryPoint(const kiln_model_t *model, const RunOptions &options,
                      size_t *out, bool *setShapes) {
  *setShapes = false;
  size_t count = kiln_model_entry_point_count(model);
  auto named = [&](size_t entry) {
    std::string name = kiln_model_entry_point_name(model, entry);
    return options.entry.empty() ? name != "kiln_init" : name == options.entry;
  };
  for (size_t entry = 0; entry < count; ++entry) {
    if (named(entry) && entryTakesShapes(model, entry, options, true)) {
      *out = entry;
      return true;
    }
  }
  if (!options.entry.empty() && options.shapes.empty()) {
    std::fprintf(stderr, "kiln-run: the artifact has no entry point '%s'\n",
                 options.entry.c_str());
    return false;
  }
  for (size_t entry = 0; entry < count; ++entry) {
    if (named(entry) && entryTakesShapes(model, entry, options, false)) {
      *out = entry;
      *setShapes = true;
      return true;
    }
  }
  reportNoEntryPoint(model, options, "");
  return false;
}

/// Fills the device and version parts of |report|.
void describeMachine(const kiln_model_t *model, const RunOptions &options,
                     RunReport *report) {
  report->commandLine = options.commandLine;
  report->model = options.model;
  report->device.ordinal = options.device;
  cudaDeviceProp properties;
  if (cudaGetDeviceProperties(&properties, options.device) == cudaSuccess) {
    report->device.name = properties.name;
    report->device.computeCapability = properties.major * 10 + properties.minor;
  }
  int version = 0;
  if (cudaDriverGetVersion(&version) == cudaSuccess)
    report->device.driver = cudaVersionText(version);
  if (cudaRuntimeGetVersion(&version) == cudaSuccess)
    report->device.runtime = cudaVersionText(version);
  report->versions.kiln = kiln::versionText();
  report->versions.runtime = kiln_runtime_version();
  report->versions.runtimeApi = kiln_runtime_api_version();
  report->versions.artifactFormat = kiln_runtime_artifact_format_version();
  report->versions.artifactCuda = kiln_model_cuda_version(model);
  report->seed = options.seed;
}

/// The row (dim 0) of |actual| farthest from |expected| by relative L2.
int64_t worstRow(const HostTensor &actual, const HostTensor &expected) {
  if (actual.dims.empty() || actual.dims[0] <= 0 ||
      actual.elementCount() != expected.elementCount())
    return 0;
  size_t rows = static_cast<size_t>(actual.dims[0]);
  size_t width = actual.elementCount() / rows;
  int64_t worst = 0;
  double worstError = -1;
  for (size_t row = 0; row < rows; ++row) {
    double difference = 0, reference = 0;
    for (size_t i = row * width; i < (row + 1) * width; ++i) {
      double a = actual.at(i), e = expected.at(i);
      difference += (a - e) * (a - e);
      reference += e * e;
    }
    double error = std::isfinite(difference)
                       ? std::sqrt(difference / std::max(reference, 1e-300))
                       : INFINITY;
    if (error > worstError) {
      worstError = error;
      worst = static_cast<int64_t>(row);
    }
  }
  return worst;
}

/// --dump-after-run N: runs |session| until a run's outputs miss --expect,
/// at most N times (once without --expect), and leaves that run's values in
/// the session's memory. |*run| is the run kept (1-based), |*row| output
/// 0's row farthest from --expect in it. False (the error printed) when a
/// run fails.
bool runUntilMismatch(kiln_model_t *model, size_t entry,
                      kiln_session_t *session,
                      const std::vector<void *> &outputBuffers,
                      const RunOptions &options, cudaStream_t stream, int *run,
                      int64_t *row) {
  std::vector<HostTensor> expected(outputBuffers.size());
  for (size_t i = 0; i < outputBuffers.size() && !options.expect.empty();
       ++i) {
    kiln_tensor_info_t info;
    std::string error;
    if (failed(kiln_model_output_info(model, entry, i, &info), "output info"))
      return false;
    if (!findTensor(options.expect, info.name, i, "output", &expected[i],
                    &error)) {
      std::fprintf(stderr, "kiln-run: output '%s': %s\n",
                   kiln::text::escapeName(info.name).c_str(), error.c_str());
      return false;
    }
  }
  *row = 0;
  for (*run = 1; *run <= options.dumpAfterRun; ++*run) {
    if (failed(kiln_session_run(session, stream), "run") ||
        cudaFailed(cudaStreamSynchronize(stream), "run"))
      return false;
    if (options.expect.empty())
      return true;
    std::string missed;
    for (size_t i = 0; i < outputBuffers.size(); ++i) {
      kiln_tensor_info_t info;
      if (failed(kiln_model_output_info(model, entry, i, &info),
                 "output info"))
        return false;
      HostTensor actual;
      actual.dtype = info.dtype;
      size_t bytes = 0;
      if (!currentShape(session, info, &actual.dims, &bytes))
        return false;
      actual.data.resize(bytes);
      if (cudaFailed(cudaMemcpy(actual.data.data(), outputBuffers[i], bytes,
                                cudaMemcpyDeviceToHost),
                     "downloading an output"))
        return false;
      const Tolerance &tolerance = options.tolerance;
      Comparison result =
          compareTensors(actual, expected[i], tolerance.rtol, tolerance.atol);
      if (i == 0 && result.shapeMatches)
        *row = worstRow(actual, expected[i]);
      if (missed.empty() && !withinTolerance(result, tolerance))
        missed = "output '" + kiln::text::escapeName(info.name) +
                 "': " + toleranceMiss(result, actual, expected[i], tolerance);
    }
    if (!missed.empty()) {
      std::printf("dump-after-run: run %d of at most %d misses --expect (%s); "
                  "output 0's farthest row is %lld\n",
                  *run, options.dumpAfterRun, missed.c_str(),
                  static_cast<long long>(*row));
      return true;
    }
  }
  *run = options.dumpAfterRun;
  std::printf("dump-after-run: all %d runs match --expect; the dump is of run "
              "%d\n",
              options.dumpAfterRun, *run);
  return true;
}

/// Loads, binds, runs, checks, benchmarks and reports; returns the exit
/// code.
int runModel(const RunOptions &options) {
  kiln_load_options_t loadOptions;
  kiln_load_options_init(&loadOptions);
  loadOptions.device_ordinal = options.device;
  kiln_model_t *model = nullptr;
  kiln_status_t status =
      kiln_model_load(options.model.c_str(), &loadOptions, &model);
  switch (kiln_status_code(status)) {
  case KILN_STATUS_OK:
    break;
  case KILN_STATUS_UNAVAILABLE:
    std::fprintf(stderr, "kiln-run: no CUDA device: %s (skipped)\n",
                 kiln_status_message(status));
    kiln_status_free(status);
    return kExitNoDevice;
  case KILN_STATUS_NOT_FOUND:
  case KILN_STATUS_DATA_LOSS:
  case KILN_STATUS_INVALID_ARGUMENT:
    // Unreadable, damaged or not an artifact: an input kiln-run cannot take.
    failed(status, "loading the model");
    return kExitUsageOrFileError;
  default:
    failed(status, "loading the model");
    return kExitFailure;
  }
  size_t entry = 0;
  bool setShapes = false;
  if (!chooseEntryPoint(model, options, &entry, &setShapes)) {
    kiln_model_release(model);
    return kExitUsageOrFileError;
  }
  const char *entryName = kiln_model_entry_point_name(model, entry);
  RunReport report;
  describeMachine(model, options, &report);
  report.entryPoint = entryName;

  kiln_session_options_t sessionOptions;
  kiln_session_options_init(&sessionOptions);
  sessionOptions.entry_point = entryName;
  bool dumpAfterRun = !options.dumpSteps.empty() && options.dumpAfterRun > 0;
  sessionOptions.debug =
      options.debug || (!options.dumpSteps.empty() && !dumpAfterRun);
  sessionOptions.keep_step_outputs = dumpAfterRun && !options.dumpPlanMemory;
  sessionOptions.check_nan_inf = options.checkNan;
  // The algorithm cache (kiln_session_options_t.algorithm_cache_path).
  if (!options.algorithmCache.empty())
    sessionOptions.algorithm_cache_path = options.algorithmCache.c_str();
  StepDumpOptions dumpOptions;
  dumpOptions.directory = options.dumpSteps;
  dumpOptions.artifact = options.model;
  dumpOptions.rows = options.dumpRows;
  dumpOptions.firstStep = options.dumpFirstStep;
  dumpOptions.lastStep = options.dumpLastStep;
  StepDump dump(dumpOptions);
  std::vector<HostTensor> boundInputs;
  std::vector<DeviceInput> deviceInputs;
  std::string dumpError;
  kiln_session_t *session = nullptr;
  std::vector<void *> deviceBuffers;
  int exitCode = kExitOk;
  cudaStream_t stream = nullptr;
  auto finish = [&](int code) {
    for (void *buffer : deviceBuffers)
      cudaFree(buffer);
    if (stream)
      cudaStreamDestroy(stream);
    kiln_session_release(session);
    kiln_model_release(model);
    return code;
  };
  if (failed(kiln_session_create(model, &sessionOptions, &session),
             "creating the session") ||
      cudaFailed(cudaStreamCreate(&stream), "cudaStreamCreate"))
    return finish(kExitFailure);
  // --shapes that are not the entry point's own: its ranged dims take them,
  // or the runtime says why not.
  for (const auto &[name, dims] : setShapes ? options.shapes
                                            : decltype(options.shapes)()) {
    kiln_status_t status = kiln_session_set_input_shape(
        session, name.c_str(), dims.data(), dims.size());
    if (status) {
      reportNoEntryPoint(model, options, kiln_status_message(status));
      kiln_status_free(status);
      return finish(kExitUsageOrFileError);
    }
  }
  const char *algorithmLog = nullptr;
  if (options.algorithmLog &&
      !failed(kiln_session_algorithm_log(session, &algorithmLog),
              "the algorithm log"))
    std::printf("algorithm choices:\n%s", algorithmLog);

  // Inputs: read (or generated), converted to the model's dtype, shapes
  // checked, uploaded, bound.
  for (size_t i = 0; i < kiln_model_input_count(model, entry); ++i) {
    kiln_tensor_info_t info;
    if (failed(kiln_model_input_info(model, entry, i, &info), "input info"))
      return finish(kExitFailure);
    HostTensor tensor;
    std::vector<int64_t> dims(info.dims, info.dims + info.rank);
    RunReport::Tensor described{info.name, kiln_dtype_name(info.dtype),
                                shapeText(dims), "generated"};
    if (options.inputs.empty()) {
      // At the session's shape: --shapes may have set one in the ranges.
      size_t bytes = 0;
      if (!currentShape(session, info, &dims, &bytes))
        return finish(kExitFailure);
      kiln_tensor_info_t shaped = info;
      shaped.dims = dims.data();
      shaped.bytes = bytes;
      tensor = generateInput(shaped, options.seed, i);
      described.shape = shapeText(dims);
    } else {
      HostTensor file;
      std::string error;
      if (!findTensor(options.inputs, info.name, i, "input", &file, &error) ||
          !convertTensor(file, info.dtype, &tensor, &error)) {
        std::fprintf(stderr, "kiln-run: input '%s': %s\n",
                     kiln::text::escapeName(info.name).c_str(),
                     error.c_str());
        return finish(kExitUsageOrFileError);
      }
      described.source = "file";
      // An artifact with ranged dims runs at the files' shapes when its
      // ranges allow them (kiln_session_set_input_shape says why not).
      if (tensor.dims != dims) {
        kiln_status_t status = kiln_session_set_input_shape(
            session, info.name, tensor.dims.data(), tensor.dims.size());
        if (status) {
          std::fprintf(stderr,
                       "kiln-run: input '%s': the file has shape %s, the "
                       "model %s: %s\n",
                       kiln::text::escapeName(info.name).c_str(),
                       shapeText(tensor.dims).c_str(), shapeText(dims).c_str(),
                       kiln_status_message(status));
          kiln_status_free(status);
          return finish(kExitUsageOrFileError);
        }
        dims = tensor.dims;
        described.shape = shapeText(dims);
      }
    }
    report.inputs.push_back(described);
    void *device = nullptr;
    if (cudaFailed(cudaMalloc(&device, std::max<size_t>(info.bytes, 1)),
                   "cudaMalloc"))
      return finish(kExitFailure);
    deviceBuffers.push_back(device);
    if (cudaFailed(cudaMemcpy(device, tensor.data.data(), tensor.data.size(),
                              cudaMemcpyHostToDevice),
                   "uploading an input"))
      return finish(kExitFailure);
    kiln_tensor_t bound = kiln_device_tensor(device, tensor.data.size());
    bound.dims = dims.data();
    bound.rank = dims.size();
    if (failed(kiln_session_bind_input(session, info.name, &bound),
               "binding an input"))
      return finish(kExitFailure);
    tensor.name = info.name;
    boundInputs.push_back(std::move(tensor));
    deviceInputs.push_back({info.name, device, tensor.data.size()});
  }
  if (!options.dumpSteps.empty() && !dumpAfterRun &&
      (!dump.begin(boundInputs, &dumpError) ||
       !dump.attach(session, &dumpError))) {
    std::fprintf(stderr, "kiln-run: --dump-steps: %s\n", dumpError.c_str());
    return finish(kExitUsageOrFileError);
  }
  // Outputs: poisoned (NaN for floats) so that an unwritten output fails.
  std::vector<void *> outputBuffers;
  for (size_t i = 0; i < kiln_model_output_count(model, entry); ++i) {
    kiln_tensor_info_t info;
    if (failed(kiln_model_output_info(model, entry, i, &info), "output info"))
      return finish(kExitFailure);
    void *device = nullptr;
    if (cudaFailed(cudaMalloc(&device, std::max<size_t>(info.bytes, 1)),
                   "cudaMalloc") ||
        cudaFailed(cudaMemset(device, 0xff, info.bytes), "poisoning an output"))
      return finish(kExitFailure);
    deviceBuffers.push_back(device);
    outputBuffers.push_back(device);
    std::vector<int64_t> dims;
    size_t bytes = 0;
    if (!currentShape(session, info, &dims, &bytes))
      return finish(kExitFailure);
    kiln_tensor_t bound = kiln_device_tensor(device, bytes);
    if (failed(kiln_session_bind_output(session, info.name, &bound),
               "binding an output"))
      return finish(kExitFailure);
  }
  if (dumpAfterRun) {
    int run = 0;
    int64_t row = 0;
    if (!runUntilMismatch(model, entry, session, outputBuffers, options,
                          stream, &run, &row))
      return finish(kExitFailure);
    if (options.dumpWorstRow)
      dumpOptions.rows = {row};
    dump = StepDump(dumpOptions);
    if (!dump.begin(boundInputs, &dumpError) ||
        !dump.readAfterRun(session, stream, run, &dumpError)) {
      std::fprintf(stderr, "kiln-run: --dump-steps: %s\n", dumpError.c_str());
      return finish(kExitFailure);
    }
  } else if (failed(kiln_session_run(session, stream), "run") ||
             cudaFailed(cudaStreamSynchronize(stream), "run")) {
    if (!dump.callbackError().empty())
      std::fprintf(stderr, "kiln-run: --dump-steps: %s\n",
                   dump.callbackError().c_str());
    return finish(kExitFailure);
  }
  if (!options.dumpSteps.empty()) {
    if (!dump.finish(session, entryName, &dumpError)) {
      std::fprintf(stderr, "kiln-run: --dump-steps: %s\n", dumpError.c_str());
      return finish(kExitFailure);
    }
    std::printf("dump: %zu steps, %.1f MiB of .npy in %s\n",
                kiln_session_step_count(session),
                dump.bytesWritten() / 1048576.0, options.dumpSteps.c_str());
  }

  std::vector<std::vector<uint8_t>> firstOutputs;
  for (size_t i = 0; i < outputBuffers.size(); ++i) {
    kiln_tensor_info_t info;
    if (failed(kiln_model_output_info(model, entry, i, &info), "output info"))
      return finish(kExitFailure);
    HostTensor actual;
    actual.name = info.name;
    actual.dtype = info.dtype;
    size_t bytes = 0;
    if (!currentShape(session, info, &actual.dims, &bytes))
      return finish(kExitFailure);
    actual.data.resize(bytes);
    if (cudaFailed(cudaMemcpy(actual.data.data(), outputBuffers[i], bytes,
                              cudaMemcpyDeviceToHost),
                   "downloading an output"))
      return finish(kExitFailure);
    firstOutputs.push_back(actual.data);
    std::string error;
    if (!options.saveOutputs.empty() &&
        !writeNpy(options.saveOutputs + "/" + info.name + ".npy", actual,
                  &error)) {
      std::fprintf(stderr, "kiln-run: %s\n", error.c_str());
      return finish(kExitUsageOrFileError);
    }
    if (options.expect.empty())
      continue;
    HostTensor expected;
    if (!findTensor(options.expect, info.name, i, "output", &expected,
                    &error)) {
      std::fprintf(stderr, "kiln-run: output '%s': %s\n",
                   kiln::text::escapeName(info.name).c_str(),
                   error.c_str());
      return finish(kExitUsageOrFileError);
    }
    const Tolerance &tolerance = options.tolerance;
    Comparison result =
        compareTensors(actual, expected, tolerance.rtol, tolerance.atol);
    bool pass = withinTolerance(result, tolerance);
    report.outputs.push_back({info.name, pass, result.maxAbs, result.maxRel,
                              result.relL2, result.peakError});
    std::printf("%s: max abs %.3g (%.3g of the peak), max rel %.3g, rel-L2 "
                "%.3g",
                kiln::text::escapeName(info.name).c_str(), result.maxAbs,
                result.peakError, result.maxRel, result.relL2);
    if (pass)
      std::printf(" [ok]\n");
    else
      std::printf(" [MISMATCH: %s]\n",
                  toleranceMiss(result, actual, expected, tolerance).c_str());
    if (!pass)
      exitCode = kExitFailure;
  }

  if (options.replays > 0 &&
      !checkReplays(model, entry, session, outputBuffers, firstOutputs,
                    options.replays, stream))
    exitCode = kExitFailure;
  if (options.sessions > 0) {
    kiln_session_options_t fresh = sessionOptions;
    fresh.debug = options.debug;
    if (!checkRepeatability(model, fresh, entry, deviceInputs, options.sessions,
                            stream))
      exitCode = kExitFailure;
  }
  if (options.benchmark) {
    if (options.inputs.empty())
      std::printf("inputs: generated (seed %llu)\n",
                  static_cast<unsigned long long>(options.seed));
    BenchmarkSettings settings;
    settings.warmup = options.warmup;
    settings.iterations = options.iterations;
    settings.durationSeconds = options.durationSeconds;
    if (!benchmark(session, stream, settings, &report.latency))
      return finish(kExitFailure);
    report.benchmarked = true;
    std::fputs(benchmarkText(report.latency).c_str(), stdout);
  }
  if (!options.profile.empty()) {
    sessionOptions.profile = 1;
    if (!profile(model, sessionOptions, session, deviceBuffers, outputBuffers,
                 stream, options.profile))
      return finish(kExitFailure);
  }
  if (!options.json.empty()) {
    report.exitCode = exitCode;
    std::string error;
    if (!writeRunReport(options.json, report, &error)) {
      std::fprintf(stderr, "kiln-run: --json: %s\n", error.c_str());
      return finish(kExitUsageOrFileError);
    }
    std::printf("results: %s\n", options.json.c_str());
  }
  return finish(exitCode);
}

/// Every file and folder the options name must exist before the model is
/// loaded: a wrong path is a usage error on any machine, GPU or not.
bool checkPaths(const RunOptions &options) {
  std::vector<std::string> paths = options.inputs;
  paths.insert(paths.end(), options.expect.begin(), options.expect.end());
  for (const std::string &path : paths)
    if (!exists(path)) {
      std::fprintf(stderr, "kiln-run: no such file or directory: '%s'\n",
                   path.c_str());
      return false;
    }
  if (!options.saveOutputs.empty() && !isDirectory(options.saveOutputs)) {
    std::fprintf(stderr, "kiln-run: --save-outputs: '%s' is not a directory\n",
                 options.saveOutputs.c_str());
    return false;
  }
  if (!exists(options.model)) {
    std::fprintf(stderr, "kiln-run: cannot open '%s': no such file\n",
                 options.model.c_str());
    return false;
  }
  return true;
}

} // namespace

int main(int argc, char **argv) {
  RunOptions options;
  std::string error;
  switch (parseRunOptions(argc, argv, &options, &error)) {
  case ParseResult::Help:
    std::fputs(kRunUsage, stdout);
    return kExitOk;
  case ParseResult::Version:
    printRuntimeToolVersion(stdout, "kiln-run");
    return kExitOk;
  case ParseResult::UsageError:
    std::fprintf(stderr, "kiln-run: %s\n(kiln-run --help lists the options)\n",
                 error.c_str());
    return kExitUsageOrFileError;
  case ParseResult::Run:
    break;
  }
  if (!checkPaths(options))
    return kExitUsageOrFileError;
  return runModel(options);
}
