// kiln-kernel-emulate: runs one kernel-test case with its kernels compiled
// for the host (cuda_emulation.h) and compares like kiln-kernel-test. Built
// per case by emulate.sh, which generates the KILN_EMULATED_KERNELS file.
#include "cuda_emulation.h"

#include "../Compare.h"
#include "../Manifest.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

namespace {

/// A buffer parameter is the pointer itself; a dim parameter (`long long
/// kiln_dim<i>`) is read from where the pointer points, as CUDA's argument
/// array does for every parameter.
template <typename T> T argumentAs(void *pointer) {
  if constexpr (std::is_pointer_v<T>)
    return static_cast<T>(pointer);
  else
    return *static_cast<const T *>(pointer);
}

template <typename... Args, size_t... I>
void callWith(void (*kernel)(Args...), void **pointers,
              std::index_sequence<I...>) {
  kernel(argumentAs<Args>(pointers[I])...);
}
template <typename... Args>
void callKernel(void (*kernel)(Args...), void **pointers) {
  callWith(kernel, pointers, std::index_sequence_for<Args...>{});
}

struct EmulatedKernel {
  const char *name;
  void (*launch)(void **);
};

} // namespace

#include KILN_EMULATED_KERNELS

namespace {

void runGrid(void (*launch)(void **), void **arguments, unsigned grid,
             unsigned block) {
  gridDim = {grid, 1, 1};
  blockDim = {block, 1, 1};
  for (unsigned b = 0; b < grid; ++b) {
    std::barrier<> blockBarrier(block);
    kiln_emulated_named_barriers namedBarriers;
    unsigned warps = (block + 31) / 32;
    std::vector<std::unique_ptr<std::barrier<>>> warpBarriers;
    std::vector<kiln_emulated_warp> warpStates(warps);
    for (unsigned w = 0; w < warps; ++w) {
      warpBarriers.push_back(
          std::make_unique<std::barrier<>>(std::min(32u, block - 32 * w)));
      warpStates[w].barrier = warpBarriers.back().get();
    }
    std::vector<std::thread> threads;
    for (unsigned t = 0; t < block; ++t)
      threads.emplace_back([&, t] {
        threadIdx = {t, 0, 0};
        blockIdx = {b, 0, 0};
        kiln_block_barrier = &blockBarrier;
        kiln_named_barriers = &namedBarriers;
        kiln_warp = &warpStates[t / 32];
        launch(arguments);
        blockBarrier.arrive_and_drop();
        warpBarriers[t / 32]->arrive_and_drop();
      });
    for (std::thread &thread : threads)
      thread.join();
  }
}

} // namespace

int main(int argc, char **argv) {
  using namespace kiln::kerneltest;
  if (argc != 2) {
    std::fprintf(stderr, "usage: kiln-kernel-emulate CASE_DIR\n");
    return 2;
  }
  CaseSpec spec;
  std::string error;
  if (!readManifest(argv[1], spec, error)) {
    std::printf("FAIL %s: %s\n", argv[1], error.c_str());
    return 1;
  }
  if (!spec.skipReason.empty()) {
    std::printf("SKIP %s: %s\n", spec.name.c_str(), spec.skipReason.c_str());
    return 0;
  }
  std::vector<void *> buffers;
  for (const BufferSpec &buffer : spec.buffers) {
    if (buffer.viewOf >= 0) {
      buffers.push_back(static_cast<char *>(buffers[buffer.viewOf]) +
                        buffer.viewOffset);
      continue;
    }
    size_t bytes = (std::max<size_t>(buffer.bytes, 1) + 255) / 256 * 256;
    void *pointer = std::aligned_alloc(256, bytes);
    std::memset(pointer, 0xFF, bytes);
    if (buffer.init.rfind("file:", 0) == 0) {
      std::string data;
      if (!readFile(spec.directory + "/" + buffer.init.substr(5), data) ||
          data.size() != buffer.bytes) {
        std::printf("FAIL %s: cannot read %s\n", spec.name.c_str(),
                    buffer.init.c_str());
        return 1;
      }
      std::memcpy(pointer, data.data(), data.size());
    }
    buffers.push_back(pointer);
  }
  std::map<std::string, void (*)(void **)> kernels;
  for (const EmulatedKernel &kernel : kEmulatedKernels)
    if (kernel.launch)
      kernels[kernel.name] = kernel.launch;
  for (const LaunchSpec &launch : spec.launches) {
    std::vector<void *> arguments;
    for (int id : launch.arguments)
      arguments.push_back(buffers[id]);
    std::vector<long long> dims = launch.dims;
    for (long long &dim : dims)
      arguments.push_back(&dim);
    if (!kernels.count(launch.kernel)) {
      std::printf("FAIL %s: kernel %s was not compiled\n", spec.name.c_str(),
                  launch.kernel.c_str());
      return 1;
    }
    runGrid(kernels[launch.kernel], arguments.data(), launch.grid,
            launch.block);
  }
  bool ok = true;
  double maxAbs = 0, maxRel = 0;
  std::string message;
  for (const CheckSpec &check : spec.checks) {
    std::string expected;
    readFile(spec.directory + "/" + check.file, expected);
    double rtol, atol;
    defaultTolerance(check.dtype, rtol, atol);
    if (spec.rtol >= 0)
      rtol = spec.rtol, atol = spec.atol;
    if (expected.size() != check.count * dtypeBytes(check.dtype)) {
      ok = false;
      message = "bad expected file " + check.file;
      continue;
    }
    Comparison comparison = compareBuffers(
        check.dtype, static_cast<const char *>(buffers[check.buffer]),
        expected.data(), check.count, rtol, atol);
    maxAbs = std::max(maxAbs, comparison.maxAbsError);
    maxRel = std::max(maxRel, comparison.maxRelError);
    if (!comparison.ok && ok) {
      ok = false;
      message = check.file + ": " + std::to_string(comparison.mismatches) +
                " mismatches; first at " + comparison.message;
    }
  }
  std::printf("%s %s%s%s (max abs error %.3g, max rel error %.3g)\n",
              ok ? "PASS" : "FAIL", spec.name.c_str(), ok ? "" : ": ",
              message.c_str(), maxAbs, maxRel);
  return ok ? 0 : 1;
}
