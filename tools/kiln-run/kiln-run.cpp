// kiln-run: runs a .kiln artifact on inputs from .npy/.pb files, checks
// outputs, benchmarks and profiles.
#include "bench_profile.h"
#include "tensor_files.h"

#include "kiln/runtime.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <sys/stat.h>
#include <vector>

using namespace kiln::run;

namespace {

const char *kUsage =
    "usage: kiln-run MODEL.kiln --inputs DIR|FILE... [--expect DIR|FILE...]\n"
    "                [--rtol R] [--atol A] [--rel-l2 L] [--bench N] [--profile "
    "TRACE.json]\n"
    "                [--debug] [--check-nan] [--entry NAME] [--device N] "
    "[--save-outputs DIR]\n"
    "                [--algo-cache FILE] [--algo-log]\n"
    "  Files bind by name (NAME.npy, NAME.pb or a TensorProto's name), then by "
    "position\n"
    "  (input_K.pb / output_K.pb in a directory, or the order given). "
    "Tolerance: every\n"
    "  element within atol + rtol*|expected| (defaults 1e-4, 1e-5), or with "
    "--rel-l2 the\n"
    "  relative L2 error at most L; NaN passes only where the reference is NaN.\n"
    "  Exit: 0 pass, 1 mismatch or runtime error, 2 usage or file error, 3 no "
    "CUDA device.\n";

enum Exit { kPass = 0, kFailed = 1, kUsageError = 2, kNoDevice = 3 };

struct Options {
  std::string model, profile, entry, saveOutputs, algorithmCache;
  std::vector<std::string> inputs, expect;
  double rtol = 1e-4, atol = 1e-5, relL2 = -1;
  int bench = 0, device = 0;
  bool debug = false, checkNan = false, algorithmLog = false;
};

bool isDirectory(const std::string &path) {
  struct stat info;
  return stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}
bool exists(const std::string &path) {
  struct stat info;
  return stat(path.c_str(), &info) == 0;
}

bool parseOptions(int argc, char **argv, Options *options) {
  std::vector<std::string> *list = nullptr;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    auto value = [&](std::string *out) {
      if (i + 1 >= argc)
        return false;
      *out = argv[++i];
      return true;
    };
    std::string text;
    if (arg == "--inputs") {
      list = &options->inputs;
    } else if (arg == "--expect") {
      list = &options->expect;
    } else if (arg == "--rtol" || arg == "--atol" || arg == "--rel-l2") {
      if (!value(&text))
        return false;
      (arg == "--rtol"   ? options->rtol
       : arg == "--atol" ? options->atol
                         : options->relL2) = std::atof(text.c_str());
      list = nullptr;
    } else if (arg == "--bench" || arg == "--device") {
      if (!value(&text))
        return false;
      (arg == "--bench" ? options->bench : options->device) =
          std::atoi(text.c_str());
      list = nullptr;
    } else if (arg == "--profile" || arg == "--entry" ||
               arg == "--save-outputs" || arg == "--algo-cache") {
      if (!value(arg == "--profile"        ? &options->profile
                 : arg == "--entry"        ? &options->entry
                 : arg == "--save-outputs" ? &options->saveOutputs
                                           : &options->algorithmCache))
        return false;
      list = nullptr;
    } else if (arg == "--algo-log") {
      options->algorithmLog = true;
      list = nullptr;
    } else if (arg == "--debug" || arg == "--check-nan") {
      (arg == "--debug" ? options->debug : options->checkNan) = true;
      options->debug = true;
      list = nullptr;
    } else if (arg.rfind("--", 0) == 0) {
      std::fprintf(stderr, "kiln-run: unknown option '%s'\n", arg.c_str());
      return false;
    } else if (list) {
      list->push_back(arg);
    } else if (options->model.empty()) {
      options->model = arg;
    } else {
      std::fprintf(stderr, "kiln-run: unexpected argument '%s'\n", arg.c_str());
      return false;
    }
  }
  return !options->model.empty() && !options->inputs.empty();
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
    bool positionalName =
        name.size() > prefix.size() && name.compare(0, prefix.size(), prefix) == 0 &&
        name.find_first_not_of("0123456789", prefix.size()) == std::string::npos;
    std::vector<std::string> candidates = {dir + name + ".npy", dir + name + ".pb",
                                           dir + position + ".pb",
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

/// Loads, binds, runs and checks; returns the exit code.
int runModel(const Options &options) {
  kiln_load_options_t loadOptions;
  kiln_load_options_init(&loadOptions);
  loadOptions.device_ordinal = options.device;
  kiln_model_t *model = nullptr;
  kiln_status_t status =
      kiln_model_load(options.model.c_str(), &loadOptions, &model);
  if (kiln_status_code(status) == KILN_STATUS_UNAVAILABLE) {
    std::fprintf(stderr, "kiln-run: no CUDA device: %s (skipped)\n",
                 kiln_status_message(status));
    kiln_status_free(status);
    return kNoDevice;
  }
  if (failed(status, "loading the model"))
    return kFailed;
  kiln_session_options_t sessionOptions;
  kiln_session_options_init(&sessionOptions);
  sessionOptions.entry_point =
      options.entry.empty() ? nullptr : options.entry.c_str();
  sessionOptions.debug = options.debug;
  sessionOptions.check_nan_inf = options.checkNan;
  // The algorithm cache (kiln_session_options_t.algorithm_cache_path).
  if (!options.algorithmCache.empty())
    sessionOptions.algorithm_cache_path = options.algorithmCache.c_str();
  kiln_session_t *session = nullptr;
  std::vector<void *> deviceBuffers;
  std::vector<HostTensor> outputs;
  int exitCode = kPass;
  size_t entry = 0;
  while (entry < kiln_model_entry_point_count(model) &&
         !options.entry.empty() &&
         options.entry != kiln_model_entry_point_name(model, entry))
    ++entry;
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
    return finish(kFailed);
  const char *algorithmLog = nullptr;
  if (options.algorithmLog &&
      !failed(kiln_session_algorithm_log(session, &algorithmLog),
              "the algorithm log"))
    std::printf("algorithm choices:\n%s", algorithmLog);

  // Inputs: read, convert to the model's dtype, check shapes, upload, bind.
  for (size_t i = 0; i < kiln_model_input_count(model, entry); ++i) {
    kiln_tensor_info_t info;
    if (failed(kiln_model_input_info(model, entry, i, &info), "input info"))
      return finish(kFailed);
    HostTensor file, tensor;
    std::string error;
    if (!findTensor(options.inputs, info.name, i, "input", &file, &error) ||
        !convertTensor(file, info.dtype, &tensor, &error)) {
      std::fprintf(stderr, "kiln-run: input '%s': %s\n", info.name,
                   error.c_str());
      return finish(kUsageError);
    }
    std::vector<int64_t> dims(info.dims, info.dims + info.rank);
    if (tensor.dims != dims) {
      std::fprintf(
          stderr, "kiln-run: input '%s': the file has shape %s, the model %s\n",
          info.name, shapeText(tensor.dims).c_str(), shapeText(dims).c_str());
      return finish(kUsageError);
    }
    void *device = nullptr;
    if (cudaFailed(cudaMalloc(&device, std::max<size_t>(info.bytes, 1)),
                   "cudaMalloc"))
      return finish(kFailed);
    deviceBuffers.push_back(device);
    if (cudaFailed(cudaMemcpy(device, tensor.data.data(), info.bytes,
                              cudaMemcpyHostToDevice),
                   "uploading an input"))
      return finish(kFailed);
    kiln_tensor_t bound = kiln_device_tensor(device, info.bytes);
    bound.dims = info.dims;
    bound.rank = info.rank;
    if (failed(kiln_session_bind_input(session, info.name, &bound),
               "binding an input"))
      return finish(kFailed);
  }
  // Outputs: poisoned (NaN for floats) so that an unwritten output fails.
  std::vector<void *> outputBuffers;
  for (size_t i = 0; i < kiln_model_output_count(model, entry); ++i) {
    kiln_tensor_info_t info;
    if (failed(kiln_model_output_info(model, entry, i, &info), "output info"))
      return finish(kFailed);
    void *device = nullptr;
    if (cudaFailed(cudaMalloc(&device, std::max<size_t>(info.bytes, 1)),
                   "cudaMalloc") ||
        cudaFailed(cudaMemset(device, 0xff, info.bytes), "poisoning an output"))
      return finish(kFailed);
    deviceBuffers.push_back(device);
    outputBuffers.push_back(device);
    kiln_tensor_t bound = kiln_device_tensor(device, info.bytes);
    if (failed(kiln_session_bind_output(session, info.name, &bound),
               "binding an output"))
      return finish(kFailed);
  }
  if (failed(kiln_session_run(session, stream), "run") ||
      cudaFailed(cudaStreamSynchronize(stream), "run"))
    return finish(kFailed);

  for (size_t i = 0; i < outputBuffers.size(); ++i) {
    kiln_tensor_info_t info;
    if (failed(kiln_model_output_info(model, entry, i, &info), "output info"))
      return finish(kFailed);
    HostTensor actual;
    actual.name = info.name;
    actual.dtype = info.dtype;
    actual.dims.assign(info.dims, info.dims + info.rank);
    actual.data.resize(info.bytes);
    if (cudaFailed(cudaMemcpy(actual.data.data(), outputBuffers[i], info.bytes,
                              cudaMemcpyDeviceToHost),
                   "downloading an output"))
      return finish(kFailed);
    std::string error;
    if (!options.saveOutputs.empty() &&
        !writeNpy(options.saveOutputs + "/" + info.name + ".npy", actual,
                  &error))
      std::fprintf(stderr, "kiln-run: %s\n", error.c_str());
    if (options.expect.empty())
      continue;
    HostTensor expected;
    if (!findTensor(options.expect, info.name, i, "output", &expected,
                    &error)) {
      std::fprintf(stderr, "kiln-run: output '%s': %s\n", info.name,
                   error.c_str());
      return finish(kUsageError);
    }
    Comparison result =
        compareTensors(actual, expected, options.rtol, options.atol);
    bool pass = result.shapeMatches && result.nans == 0 &&
                (options.relL2 >= 0 ? result.relL2 <= options.relL2
                                    : result.mismatches == 0);
    std::printf("%s: max abs %.3g, max rel %.3g, rel-L2 %.3g", info.name,
                result.maxAbs, result.maxRel, result.relL2);
    if (!result.shapeMatches)
      std::printf(" [MISMATCH: %zu elements, expected %s]\n",
                  actual.elementCount(), shapeText(expected.dims).c_str());
    else if (pass)
      std::printf(" [ok]\n");
    else
      std::printf(" [MISMATCH: %zu of %zu elements off, %zu non-finite; first "
                  "at %lld: %g vs %g]\n",
                  result.mismatches, actual.elementCount(), result.nans,
                  static_cast<long long>(result.firstMismatch),
                  actual.at(static_cast<size_t>(
                      std::max<int64_t>(result.firstMismatch, 0))),
                  expected.at(static_cast<size_t>(
                      std::max<int64_t>(result.firstMismatch, 0))));
    if (!pass)
      exitCode = kFailed;
  }

  if (options.bench > 0 && !benchmark(session, stream, options.bench))
    return finish(kFailed);
  if (!options.profile.empty()) {
    sessionOptions.profile = 1;
    if (!profile(model, sessionOptions, deviceBuffers, outputBuffers, stream,
                 options.profile))
      return finish(kFailed);
  }
  return finish(exitCode);
}

} // namespace

int main(int argc, char **argv) {
  Options options;
  if (!parseOptions(argc, argv, &options)) {
    std::fputs(kUsage, stderr);
    return kUsageError;
  }
  return runModel(options);
}
