// NVRTC driver: kernels grouped into programs (one parse of the shared
// prelude for several kernels), a std::thread pool compiling each (program,
// arch) to a cubin (the newest arch's compile also giving its PTX when
// asked), collecting logs and timings.
#include "kiln/Target/CUDA/NVRTCCompiler.h"
#include "kiln/Target/CUDA/CubinResources.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Regex.h"

#include <nvrtc.h>

#include <algorithm>
#include <atomic>
#include <cctype>
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
  size_t program;   // Index into the programs.
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

/// The stack frame and registers of kernel |name| in |cubin|; a frame of 0
/// when the cubin records none.
std::pair<uint32_t, uint32_t> frameAndRegisters(const std::string &cubin,
                                                const std::string &name) {
  std::optional<KernelResources> resources = cubinResources(
      reinterpret_cast<const uint8_t *>(cubin.data()), cubin.size(), name);
  if (!resources)
    return {0, 0};
  return {resources->frameBytes.value_or(0), resources->registers};
}

/// "__launch_bounds__(B) NAME(" in |source|: its offset and B, or npos.
std::pair<size_t, int64_t> findLaunchBounds(const std::string &source,
                                            const std::string &name) {
  const std::string open = "__launch_bounds__(";
  for (size_t at = source.find(open); at != std::string::npos;
       at = source.find(open, at + 1)) {
    size_t digits = at + open.size(), end = digits;
    while (end < source.size() && std::isdigit(source[end]))
      ++end;
    if (end == digits ||
        source.compare(end, 2 + name.size() + 1, ") " + name + "(") != 0)
      continue;
    return {at, std::atoll(source.c_str() + digits)};
  }
  return {std::string::npos, 0};
}

} // namespace

std::vector<int64_t> spillRetryResidencies(int64_t block, int64_t registers,
                                           const std::string &arch) {
  if (block <= 0 || registers <= 0)
    return {};
  int number = archNumber(arch);
  int64_t threads = number == 86 || number == 87 || number == 89 ? 1536 : 2048;
  int64_t blocks = number == 86 || number == 87 ? 16 : number == 89 ? 24 : 32;
  // Registers are given out in units of 8 a thread (256 a warp).
  int64_t allocated = (registers + 7) / 8 * 8;
  int64_t resident =
      std::min({kRegistersPerMultiprocessor / (block * allocated),
                threads / block, blocks});
  std::vector<int64_t> tries;
  for (int64_t m = resident - 1; m >= 1 && tries.size() < 3; --m)
    tries.push_back(m);
  return tries;
}

/// The prelude |kernel|'s source starts with after its header comment (the
/// CUDA prelude, with the bounds checks' part when the module has them), or
/// "" when it holds neither.
std::string sharedPrelude(const EmittedKernel &kernel) {
  std::string prelude = getCUDAPrelude();
  std::string checked = prelude + getCUDABoundsCheckPrelude();
  if (kernel.source.find(checked) != std::string::npos)
    return checked;
  if (kernel.source.find(prelude) != std::string::npos)
    return prelude;
  return "";
}

std::vector<std::vector<size_t>>
groupKernelsIntoPrograms(llvm::ArrayRef<EmittedKernel> kernels,
                         unsigned kernelsPerProgram) {
  // Kernels that can share a program, by prelude, in order of appearance.
  std::vector<std::vector<size_t>> groups;
  std::map<std::string, size_t> groupOfPrelude;
  std::vector<std::vector<size_t>> programs;
  for (size_t k = 0; k < kernels.size(); ++k) {
    std::string prelude = sharedPrelude(kernels[k]);
    if (prelude.empty()) {
      groups.push_back({k});
      continue;
    }
    auto [it, inserted] = groupOfPrelude.try_emplace(prelude, groups.size());
    if (inserted)
      groups.emplace_back();
    groups[it->second].push_back(k);
  }
  size_t most = std::max(1u, kernelsPerProgram);
  for (const std::vector<size_t> &group : groups) {
    size_t count = (group.size() + most - 1) / most;
    for (size_t p = 0; p < count; ++p)
      programs.emplace_back(group.begin() + group.size() * p / count,
                            group.begin() + group.size() * (p + 1) / count);
  }
  return programs;
}

std::string buildProgramSource(llvm::ArrayRef<EmittedKernel> kernels,
                               llvm::ArrayRef<size_t> program) {
  if (program.size() == 1)
    return kernels[program.front()].source;
  std::string prelude = sharedPrelude(kernels[program.front()]);
  std::string source = "// kiln NVRTC program of " +
                       std::to_string(program.size()) + " kernels\n" + prelude;
  for (auto [number, k] : llvm::enumerate(program)) {
    const EmittedKernel &kernel = kernels[k];
    size_t at = kernel.source.find(prelude);
    std::string scope = "kiln_program_kernel_" + std::to_string(number);
    source += "\n" + kernel.source.substr(0, at) + "namespace " + scope +
              " {\n" + kernel.source.substr(at + prelude.size()) +
              "} // namespace " + scope + "\n";
  }
  return source;
}

llvm::Expected<NVRTCResult>
compileWithNVRTC(llvm::ArrayRef<EmittedKernel> kernels,
                 const NVRTCOptions &options) {
  NVRTCResult result;
  result.kernels.resize(kernels.size());
  std::vector<std::vector<size_t>> groups =
      groupKernelsIntoPrograms(kernels, options.kernelsPerProgram);
  std::vector<std::string> sources;
  for (auto [p, group] : llvm::enumerate(groups)) {
    CompiledProgram program;
    program.kernels = group;
    program.name = kernels[group.front()].name;
    if (group.size() > 1)
      program.name += "+" + std::to_string(group.size() - 1);
    for (size_t k : group)
      result.kernels[k] = {kernels[k].name, p};
    result.programs.push_back(std::move(program));
    sources.push_back(buildProgramSource(kernels, group));
    if (options.injectError)
      sources.back() += "\nkiln_test_hook_invalid_line\n";
  }
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
  for (size_t p = 0; p < groups.size(); ++p)
    for (const std::string &arch : options.archs)
      jobs.push_back({p, arch, !newest.empty() && arch == newest});

  std::string include = getCUDAIncludeDir(options);
  auto describe = [&](size_t k, const std::string &arch,
                      const std::string &log) {
    return "NVRTC failed to compile kernel " + kernels[k].name + " (" +
           llvm::join(kernels[k].origins, "; ") + ") for " + arch + ": " + log;
  };
  // The errors of a program that failed: each of its kernels compiled alone,
  // so that a message names the kernel NVRTC rejects, not its neighbours.
  auto findFailingKernels = [&](const Job &job, const std::string &log) {
    const std::vector<size_t> &group = groups[job.program];
    std::vector<std::string> found;
    if (group.size() == 1)
      return std::vector<std::string>{describe(group.front(), job.arch, log)};
    for (size_t k : group) {
      std::string source = kernels[k].source;
      if (options.injectError)
        source += "\nkiln_test_hook_invalid_line\n";
      std::string output, ptx, aloneLog;
      if (!compileOne(source, kernels[k].name, job.arch, include, false, output,
                      ptx, aloneLog))
        found.push_back(describe(k, job.arch, aloneLog));
    }
    if (found.empty()) {
      std::vector<std::string> names, origins;
      for (size_t k : group) {
        names.push_back(kernels[k].name);
        origins.push_back(llvm::join(kernels[k].origins, "; "));
      }
      found.push_back("NVRTC failed to compile kernels " +
                      llvm::join(names, ", ") + " (" +
                      llvm::join(origins, "; ") + ") together for " + job.arch +
                      ", though each compiles alone: " + log);
    }
    return found;
  };
  std::atomic<size_t> next{0};
  std::mutex mutex;
  std::vector<std::string> errors;
  auto worker = [&] {
    for (size_t j = next++; j < jobs.size(); j = next++) {
      const Job &job = jobs[j];
      CompiledProgram &program = result.programs[job.program];
      std::string output, ptx, log;
      auto start = std::chrono::steady_clock::now();
      bool ok = compileOne(sources[job.program], program.name, job.arch,
                           include, job.alsoPTX, output, ptx, log);
      double ms = std::chrono::duration<double, std::milli>(
                      std::chrono::steady_clock::now() - start)
                      .count();
      std::vector<std::string> failures;
      if (!ok)
        failures = findFailingKernels(job, log);
      std::lock_guard<std::mutex> lock(mutex);
      program.milliseconds += ms;
      if (!ok) {
        errors.insert(errors.end(), failures.begin(), failures.end());
      } else {
        program.cubins[job.arch] = std::move(output);
        if (job.alsoPTX) {
          program.ptx = std::move(ptx);
          program.ptxArch = ptxArch;
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
  if (!errors.empty()) {
    std::sort(errors.begin(), errors.end());
    return llvm::createStringError(llvm::join(errors, "\n"));
  }
  // relieveSpills: a kernel with a stack frame is compiled again with
  // __launch_bounds__(block, m) for each m of spillRetryResidencies, and
  // the first compile that leaves it no stack replaces the program's cubin
  // for that arch (and its PTX when the job gave it), the bound kept in
  // the job's source for the program's next kernel. A kernel without a
  // stack is never recompiled, so its code stays what ptxas chose. Spills
  // are rare (four kernels of the zoo), so the retries run one at a time.
  for (const Job &job : jobs) {
    CompiledProgram &program = result.programs[job.program];
    std::string source = sources[job.program];
    for (size_t k : groups[job.program]) {
      const std::string &name = kernels[k].name;
      auto [frame, registers] =
          frameAndRegisters(program.cubins[job.arch], name);
      auto [at, block] = findLaunchBounds(source, name);
      if (!frame || at == std::string::npos)
        continue;
      std::string old = "__launch_bounds__(" + std::to_string(block) + ")";
      for (int64_t m : spillRetryResidencies(block, registers, job.arch)) {
        std::string bounded = source;
        bounded.replace(at, old.size(),
                        "__launch_bounds__(" + std::to_string(block) + ", " +
                            std::to_string(m) + ")");
        std::string output, ptx, log;
        auto retryStart = std::chrono::steady_clock::now();
        bool ok = compileOne(bounded, program.name, job.arch, include,
                             job.alsoPTX, output, ptx, log);
        ++program.spillRetries;
        double retryMilliseconds =
            std::chrono::duration<double, std::milli>(
                std::chrono::steady_clock::now() - retryStart)
                .count();
        program.milliseconds += retryMilliseconds;
        program.spillRetryMilliseconds += retryMilliseconds;
        if (!ok)
          break;
        auto [newFrame, newRegisters] = frameAndRegisters(output, name);
        if (newFrame)
          continue;
        program.relieved.push_back(
            name + " on " + job.arch + ": __launch_bounds__(" +
            std::to_string(block) + ", " + std::to_string(m) + "), " +
            std::to_string(newRegisters) + " registers and no stack (was " +
            std::to_string(registers) + " registers, " + std::to_string(frame) +
            " bytes)");
        program.cubins[job.arch] = std::move(output);
        if (job.alsoPTX)
          program.ptx = std::move(ptx);
        source = std::move(bounded);
        break;
      }
    }
  }
  result.wallMilliseconds = std::chrono::duration<double, std::milli>(
                                std::chrono::steady_clock::now() - start)
                                .count();
  return result;
}

std::vector<std::string>
stackFrameWarnings(llvm::ArrayRef<EmittedKernel> kernels,
                   const NVRTCResult &compiled) {
  std::vector<std::string> warnings;
  for (auto [k, kernel] : llvm::enumerate(kernels)) {
    for (const auto &[arch, cubin] : compiled.programOf(k).cubins) {
      auto [frame, registers] = frameAndRegisters(cubin, kernel.name);
      if (!frame)
        continue;
      warnings.push_back(
          "kernel " + kernel.name + " (" + llvm::join(kernel.origins, "; ") +
          ") keeps " + std::to_string(frame) +
          " bytes of stack per thread on " + arch + " at " +
          std::to_string(registers) +
          " registers: spilled registers or an array in local memory, "
          "which every access reads or writes through the caches");
    }
  }
  return warnings;
}

} // namespace kiln
