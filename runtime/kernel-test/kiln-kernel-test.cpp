// kiln-kernel-test: runs every case of a kernel-test bundle on the GPU (cubins
// loaded with cudaLibraryLoadData, launched with cudaLaunchKernel), compares
// the outputs with the CPU evaluator's, prints PASS/FAIL per case and
// "N passed, M failed, K skipped", and writes results.json. Links only the
// CUDA runtime. Without a usable device every case is reported as skipped.
#include "Compare.h"
#include "Manifest.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <dirent.h>
#include <map>
#include <sstream>
#include <sys/stat.h>

using namespace kiln::kerneltest;

namespace {

struct CaseResult {
  std::string name, status, message; // status: PASS, FAIL, SKIP
  double maxAbsError = 0, maxRelError = 0, milliseconds = 0;
};

/// Every CUDA call goes through this: false (and |error| set) on failure.
bool cudaOk(cudaError_t status, const char *what, std::string &error) {
  if (status == cudaSuccess)
    return true;
  error = std::string(what) + ": " + cudaGetErrorName(status) + " (" +
          cudaGetErrorString(status) + ")";
  return false;
}
#define CUDA_CHECK(call)                                                       \
  do {                                                                         \
    if (!cudaOk((call), #call, error))                                         \
      return false;                                                            \
  } while (0)

/// The cubin for this device: the exact arch, else the newest of the same
/// major version that is not newer than the device.
const KernelFile *pickCubin(const CaseSpec &spec, const std::string &kernel,
                            int major, int minor) {
  const KernelFile *best = nullptr;
  int bestMinor = -1;
  for (const KernelFile &file : spec.kernels) {
    if (file.name != kernel || file.arch.rfind("sm_", 0) != 0)
      continue;
    int number = std::atoi(file.arch.c_str() + 3);
    int fileMajor = number / 10, fileMinor = number % 10;
    if (fileMajor == major && fileMinor <= minor && fileMinor > bestMinor) {
      best = &file;
      bestMinor = fileMinor;
    }
  }
  return best;
}

/// Runs one case; false with |error| on a CUDA or setup failure. Resources
/// are released by the caller-owned vectors on every path.
struct CaseResources {
  std::vector<void *> buffers;
  std::vector<bool> views; // Views point into another buffer: not freed.
  std::map<std::string, cudaLibrary_t> libraries;
  ~CaseResources() {
    for (size_t i = 0; i < buffers.size(); ++i)
      if (buffers[i] && !views[i])
        cudaFree(buffers[i]);
    for (auto &entry : libraries)
      cudaLibraryUnload(entry.second);
  }
};

bool runCase(const CaseSpec &spec, int major, int minor, CaseResult &result,
             std::string &error) {
  CaseResources resources;
  for (const BufferSpec &buffer : spec.buffers) {
    void *pointer = nullptr;
    if (buffer.viewOf >= 0) {
      resources.buffers.push_back(
          static_cast<char *>(resources.buffers[buffer.viewOf]) +
          buffer.viewOffset);
      resources.views.push_back(true);
      continue;
    }
    CUDA_CHECK(cudaMalloc(&pointer, std::max<size_t>(buffer.bytes, 1)));
    resources.buffers.push_back(pointer);
    resources.views.push_back(false);
    if (buffer.init.rfind("file:", 0) == 0) {
      std::string data;
      std::string path = spec.directory + "/" + buffer.init.substr(5);
      if (!readFile(path, data) || data.size() != buffer.bytes) {
        error =
            "cannot read " + std::to_string(buffer.bytes) + " bytes of " + path;
        return false;
      }
      CUDA_CHECK(cudaMemcpy(pointer, data.data(), data.size(),
                            cudaMemcpyHostToDevice));
    } else {
      CUDA_CHECK(cudaMemset(pointer, 0xFF, std::max<size_t>(buffer.bytes, 1)));
    }
  }
  std::map<std::string, cudaKernel_t> kernels;
  for (const LaunchSpec &launch : spec.launches) {
    if (kernels.count(launch.kernel))
      continue;
    const KernelFile *file = pickCubin(spec, launch.kernel, major, minor);
    if (!file) {
      error = "no cubin of kernel " + launch.kernel + " for sm_" +
              std::to_string(major * 10 + minor);
      return false;
    }
    std::string cubin;
    if (!readFile(spec.directory + "/" + file->file, cubin)) {
      error = "cannot read " + file->file;
      return false;
    }
    cudaLibrary_t library;
    CUDA_CHECK(cudaLibraryLoadData(&library, cubin.data(), nullptr, nullptr, 0,
                                   nullptr, nullptr, 0));
    resources.libraries[file->file] = library;
    cudaKernel_t kernel;
    CUDA_CHECK(cudaLibraryGetKernel(&kernel, library, launch.kernel.c_str()));
    kernels[launch.kernel] = kernel;
  }
  auto start = std::chrono::steady_clock::now();
  for (const LaunchSpec &launch : spec.launches) {
    std::vector<void *> arguments;
    for (int id : launch.arguments)
      arguments.push_back(&resources.buffers[id]);
    std::vector<long long> dims = launch.dims;
    for (long long &dim : dims)
      arguments.push_back(&dim);
    std::string what =
        "cudaLaunchKernel(" + launch.kernel + "," + launch.comment + ")";
    // Dynamic shared memory past 48 KiB must be allowed first, as the
    // runtime does (plan.cpp, prepareKernel).
    if (launch.sharedBytes > 48 * 1024) {
      int device = 0;
      if (!cudaOk(cudaGetDevice(&device), what.c_str(), error) ||
          !cudaOk(cudaKernelSetAttributeForDevice(
                      kernels[launch.kernel],
                      cudaFuncAttributeMaxDynamicSharedMemorySize,
                      static_cast<int>(launch.sharedBytes), device),
                  ("allowing " + std::to_string(launch.sharedBytes) +
                   " bytes of shared memory to " + what)
                      .c_str(),
                  error))
        return false;
    }
    if (!cudaOk(cudaLaunchKernel(
                    reinterpret_cast<const void *>(kernels[launch.kernel]),
                    dim3(launch.grid), dim3(launch.block), arguments.data(),
                    launch.sharedBytes, nullptr),
                what.c_str(), error))
      return false;
    if (!cudaOk(cudaDeviceSynchronize(), what.c_str(), error))
      return false;
  }
  result.milliseconds = std::chrono::duration<double, std::milli>(
                            std::chrono::steady_clock::now() - start)
                            .count();

  result.status = "PASS";
  for (const CheckSpec &check : spec.checks) {
    const BufferSpec &buffer = spec.buffers[check.buffer];
    size_t bytes = check.count * dtypeBytes(check.dtype);
    std::string expected;
    if (!readFile(spec.directory + "/" + check.file, expected) ||
        expected.size() != bytes || buffer.bytes != bytes) {
      error = "expected file " + check.file + " does not hold " +
              std::to_string(bytes) + " bytes";
      return false;
    }
    std::string actual(bytes, '\0');
    CUDA_CHECK(cudaMemcpy(actual.data(), resources.buffers[check.buffer], bytes,
                          cudaMemcpyDeviceToHost));
    double rtol, atol;
    defaultTolerance(check.dtype, rtol, atol);
    if (spec.rtol >= 0)
      rtol = spec.rtol, atol = spec.atol;
    Comparison comparison = compareBuffers(
        check.dtype, actual.data(), expected.data(), check.count, rtol, atol);
    result.maxAbsError = std::max(result.maxAbsError, comparison.maxAbsError);
    result.maxRelError = std::max(result.maxRelError, comparison.maxRelError);
    if (!comparison.ok && result.status == "PASS") {
      result.status = "FAIL";
      std::ostringstream os;
      os << "output " << check.file << " (" << check.dtype << ", rtol " << rtol
         << ", atol " << atol << "): " << comparison.mismatches << " of "
         << check.count << " elements differ; first at " << comparison.message;
      result.message = os.str();
    }
  }
  return true;
}

std::string jsonString(const std::string &text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\', out += c;
    else if (c == '\n')
      out += "\\n";
    else if (static_cast<unsigned char>(c) < 0x20)
      out += ' ';
    else
      out += c;
  }
  return out + "\"";
}

std::vector<std::string> findCases(const std::string &root) {
  std::vector<std::string> cases;
  struct stat info;
  if (stat((root + "/manifest.txt").c_str(), &info) == 0)
    return {root};
  if (DIR *dir = opendir(root.c_str())) {
    while (dirent *entry = readdir(dir)) {
      std::string name = entry->d_name;
      if (name[0] == '.')
        continue;
      std::string path = root + "/" + name;
      if (stat((path + "/manifest.txt").c_str(), &info) == 0)
        cases.push_back(path);
    }
    closedir(dir);
  }
  std::sort(cases.begin(), cases.end());
  return cases;
}

} // namespace

int main(int argc, char **argv) {
  std::string root, filter, jsonPath;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--filter" && i + 1 < argc)
      filter = argv[++i];
    else if (arg == "--json" && i + 1 < argc)
      jsonPath = argv[++i];
    else if (arg == "--help" || arg == "-h") {
      std::printf("usage: kiln-kernel-test BUNDLE_DIR [--filter TEXT] "
                  "[--json FILE]\n");
      return 0;
    } else
      root = arg;
  }
  if (root.empty()) {
    std::fprintf(stderr, "kiln-kernel-test: error: no bundle directory\n");
    return 2;
  }
  if (jsonPath.empty())
    jsonPath = root + "/results.json";
  std::vector<std::string> cases = findCases(root);
  if (cases.empty()) {
    std::fprintf(stderr,
                 "kiln-kernel-test: error: no cases (manifest.txt) "
                 "under %s\n",
                 root.c_str());
    return 2;
  }

  int devices = 0, major = 0, minor = 0;
  std::string noDevice;
  cudaError_t status = cudaGetDeviceCount(&devices);
  if (status != cudaSuccess)
    noDevice = std::string("no CUDA device (") + cudaGetErrorName(status) +
               ": " + cudaGetErrorString(status) + ")";
  else if (devices == 0)
    noDevice = "no CUDA device";
  else {
    cudaDeviceProp properties;
    if (cudaGetDeviceProperties(&properties, 0) == cudaSuccess) {
      major = properties.major;
      minor = properties.minor;
      std::printf("device 0: %s (sm_%d%d)\n", properties.name, major, minor);
    }
  }
  if (!noDevice.empty())
    std::printf("skipped: %s\n", noDevice.c_str());

  std::vector<CaseResult> results;
  int passed = 0, failed = 0, skipped = 0;
  for (const std::string &directory : cases) {
    CaseSpec spec;
    CaseResult result;
    std::string error;
    result.name = directory.substr(directory.find_last_of('/') + 1);
    if (!filter.empty() && result.name.find(filter) == std::string::npos)
      continue;
    if (!readManifest(directory, spec, error)) {
      result.status = "FAIL", result.message = error;
    } else {
      result.name = spec.name;
      if (!noDevice.empty())
        result.status = "SKIP", result.message = noDevice;
      else if (!spec.skipReason.empty())
        result.status = "SKIP", result.message = spec.skipReason;
      else if (!runCase(spec, major, minor, result, error))
        result.status = "FAIL", result.message = error;
    }
    if (result.status == "PASS") {
      ++passed;
      std::printf("PASS %s (max abs error %.3g, max rel error %.3g, %.3f ms)\n",
                  result.name.c_str(), result.maxAbsError, result.maxRelError,
                  result.milliseconds);
    } else if (result.status == "FAIL") {
      ++failed;
      std::printf("FAIL %s: %s (max abs error %.3g, max rel error %.3g)\n",
                  result.name.c_str(), result.message.c_str(),
                  result.maxAbsError, result.maxRelError);
      // A sticky device error would fail every later case; reset the context.
      if (cudaGetLastError() != cudaSuccess || !noDevice.empty())
        cudaDeviceReset();
    } else {
      ++skipped;
      if (noDevice.empty())
        std::printf("SKIP %s: %s\n", result.name.c_str(),
                    result.message.c_str());
    }
    results.push_back(result);
  }
  std::printf("%d passed, %d failed, %d skipped\n", passed, failed, skipped);

  if (FILE *json = std::fopen(jsonPath.c_str(), "w")) {
    std::fprintf(json,
                 "{\n  \"passed\": %d, \"failed\": %d, \"skipped\": %d,\n"
                 "  \"cases\": [\n",
                 passed, failed, skipped);
    // JSON has no inf or NaN (a relative error against an expected 0 is
    // inf): those are written as null.
    auto number = [](double value) {
      if (!std::isfinite(value))
        return std::string("null");
      char text[32];
      std::snprintf(text, sizeof(text), "%.6g", value);
      return std::string(text);
    };
    for (size_t i = 0; i < results.size(); ++i) {
      const CaseResult &r = results[i];
      std::fprintf(json,
                   "    {\"name\": %s, \"status\": %s, \"message\": %s, "
                   "\"max_abs_error\": %s, \"max_rel_error\": %s, "
                   "\"milliseconds\": %.4f}%s\n",
                   jsonString(r.name).c_str(), jsonString(r.status).c_str(),
                   jsonString(r.message).c_str(), number(r.maxAbsError).c_str(),
                   number(r.maxRelError).c_str(), r.milliseconds,
                   i + 1 < results.size() ? "," : "");
    }
    std::fprintf(json, "  ]\n}\n");
    std::fclose(json);
  } else {
    std::fprintf(stderr, "kiln-kernel-test: warning: cannot write %s\n",
                 jsonPath.c_str());
  }
  return failed ? 1 : 0;
}
