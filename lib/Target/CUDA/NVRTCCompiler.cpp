// NVRTC driver: a std::thread pool compiles each (kernel, arch) to a cubin
// (the newest arch's compile also giving its PTX when asked), collecting logs
// and timings.
#include "kiln/Target/CUDA/NVRTCCompiler.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Regex.h"

#include <nvrtc.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <iterator>
#include <mutex>
#include <thread>

#ifndef KILN_CUDA_INCLUDE_DIR
#define KILN_CUDA_INCLUDE_DIR "/usr/local/cuda/include"
#endif

namespace kiln {

llvm::Expected<std::vector<std::string>>
parseGPUArchList(llvm::StringRef list) {
  std::vector<std::string> archs;
  llvm::SmallVector<llvm::StringRef> entries;
  list.split(entries, ',', -1, false);
  llvm::Regex pattern("^sm_[0-9]+[a-z]?$");
  for (llvm::StringRef entry : entries) {
    entry = entry.trim();
    if (!pattern.match(entry))
      return llvm::createStringError("invalid GPU arch '" + entry.str() +
                                     "' (expected e.g. sm_90)");
    if (!llvm::is_contained(archs, entry.str()))
      archs.push_back(entry.str());
  }
  if (archs.empty())
    return llvm::createStringError("empty GPU arch list");
  return archs;
}

std::string getCUDAIncludeDir(const NVRTCOptions &options) {
  if (!options.cudaIncludeDir.empty())
    return options.cudaIncludeDir;
  if (const char *env = std::getenv("KILN_CUDA_INCLUDE_DIR"))
    return env;
  return KILN_CUDA_INCLUDE_DIR;
}

std::string getNVRTCVersion() {
  int major = 0, minor = 0;
  nvrtcVersion(&major, &minor);
  return std::to_string(major) + "." + std::to_string(minor);
}

namespace {

struct Job {
  size_t kernel;
  std::string arch; // sm_XX for a cubin, compute_XX for PTX.
  /// An sm_XX job that also reads the PTX of the compile: NVRTC lowers a
  /// real arch through the PTX of its virtual one, the same bytes a separate
  /// compute_XX compile returns, so the newest arch's PTX costs no second
  /// front end and NVVM run (a third of NVRTC's time with --ptx).
  bool alsoPTX = false;
};

/// The PTX of a compiled program, without the terminating NUL.
nvrtcResult readPTX(nvrtcProgram program, std::string &ptx) {
  size_t size = 0;
  nvrtcResult status = nvrtcGetPTXSize(program, &size);
  if (status != NVRTC_SUCCESS)
    return status;
  ptx.resize(size);
  status = nvrtcGetPTX(program, ptx.data());
  if (!ptx.empty() && ptx.back() == '\0')
    ptx.pop_back();
  return status;
}

/// The cubin of a program compiled for a real arch.
nvrtcResult readCUBIN(nvrtcProgram program, std::string &cubin) {
  size_t size = 0;
  nvrtcResult status = nvrtcGetCUBINSize(program, &size);
  if (status != NVRTC_SUCCESS)
    return status;
  cubin.resize(size);
  return nvrtcGetCUBIN(program, cubin.data());
}

/// Compiles one source; fills |output| with the cubin or PTX (and |ptx|
/// with the PTX of a cubin compile when |wantPTX|), or |log|.
bool compileOne(const std::string &source, const std::string &name,
                const std::string &arch, const std::string &include,
                bool wantPTX, std::string &output, std::string &ptx,
                std::string &log) {
  nvrtcProgram program;
  nvrtcResult status = nvrtcCreateProgram(
      &program, source.c_str(), (name + ".cu").c_str(), 0, nullptr, nullptr);
  if (status != NVRTC_SUCCESS) {
    log = std::string("nvrtcCreateProgram: ") + nvrtcGetErrorString(status);
    return false;
  }
  std::string archFlag = "--gpu-architecture=" + arch;
  std::string includeFlag = "-I" + include;
  // -pch: NVRTC's automatic precompiled header (in memory, per process):
  // every kernel includes cuda_fp16.h and cuda_bf16.h, which the first
  // compile then parses for all. The cubins are the same bytes; DenseNet-121's
  // 102 kernels took 20.8 s of CPU instead of 25.6 s.
  const char *flags[] = {archFlag.c_str(), includeFlag.c_str(), "--std=c++17",
                         "-default-device", "-pch"};
  status = nvrtcCompileProgram(program, std::size(flags), flags);
  size_t logSize = 0;
  nvrtcGetProgramLogSize(program, &logSize);
  if (logSize > 1) {
    log.resize(logSize);
    nvrtcGetProgramLog(program, log.data());
    log.resize(logSize - 1);
  }
  if (status != NVRTC_SUCCESS) {
    log = std::string(nvrtcGetErrorString(status)) + "\n" + log;
    nvrtcDestroyProgram(&program);
    return false;
  }
  bool virtualArch = llvm::StringRef(arch).starts_with("compute_");
  status = virtualArch ? readPTX(program, output) : readCUBIN(program, output);
  if (status == NVRTC_SUCCESS && wantPTX && !virtualArch)
    status = readPTX(program, ptx);
  nvrtcDestroyProgram(&program);
  if (status != NVRTC_SUCCESS) {
    log = std::string("reading the output: ") + nvrtcGetErrorString(status);
    return false;
  }
  return true;
}

int archNumber(const std::string &arch) {
  return std::atoi(arch.c_str() + arch.find('_') + 1);
}

} // namespace

llvm::Expected<NVRTCResult>
compileWithNVRTC(llvm::ArrayRef<EmittedKernel> kernels,
                 const NVRTCOptions &options) {
  NVRTCResult result;
  result.kernels.resize(kernels.size());
  std::vector<Job> jobs;
  // The newest arch's compile also gives the PTX (Job::alsoPTX).
  std::string newest, ptxArch;
  if (options.keepPTX && !options.archs.empty()) {
    newest = *std::max_element(options.archs.begin(), options.archs.end(),
                               [](const std::string &l, const std::string &r) {
                                 return archNumber(l) < archNumber(r);
                               });
    ptxArch = "compute_" + newest.substr(newest.find('_') + 1);
  }
  for (size_t k = 0; k < kernels.size(); ++k) {
    result.kernels[k].name = kernels[k].name;
    for (const std::string &arch : options.archs)
      jobs.push_back({k, arch, !newest.empty() && arch == newest});
  }

  std::string include = getCUDAIncludeDir(options);
  std::atomic<size_t> next{0};
  std::mutex mutex;
  std::vector<std::string> errors;
  auto worker = [&] {
    for (size_t j = next++; j < jobs.size(); j = next++) {
      const Job &job = jobs[j];
      const EmittedKernel &kernel = kernels[job.kernel];
      std::string source = kernel.source;
      if (options.injectError)
        source += "\nkiln_test_hook_invalid_line\n";
      std::string output, ptx, log;
      auto start = std::chrono::steady_clock::now();
      bool ok = compileOne(source, kernel.name, job.arch, include, job.alsoPTX,
                           output, ptx, log);
      double ms = std::chrono::duration<double, std::milli>(
                      std::chrono::steady_clock::now() - start)
                      .count();
      std::lock_guard<std::mutex> lock(mutex);
      CompiledKernel &compiled = result.kernels[job.kernel];
      compiled.milliseconds += ms;
      if (!ok) {
        std::string origins = llvm::join(kernel.origins, "; ");
        errors.push_back("NVRTC failed to compile kernel " + kernel.name +
                         " (" + origins + ") for " + job.arch + ": " + log);
      } else {
        compiled.cubins[job.arch] = std::move(output);
        if (job.alsoPTX) {
          compiled.ptx = std::move(ptx);
          compiled.ptxArch = ptxArch;
        }
      }
    }
  };

  unsigned threads = options.threads
                         ? options.threads
                         : std::max(1u, std::thread::hardware_concurrency());
  threads = std::max<unsigned>(1, std::min<size_t>(threads, jobs.size()));
  result.threads = threads;
  auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t)
    pool.emplace_back(worker);
  worker();
  for (std::thread &thread : pool)
    thread.join();
  result.wallMilliseconds = std::chrono::duration<double, std::milli>(
                                std::chrono::steady_clock::now() - start)
                                .count();
  if (!errors.empty()) {
    std::sort(errors.begin(), errors.end());
    return llvm::createStringError(llvm::join(errors, "\n"));
  }
  return result;
}

} // namespace kiln
