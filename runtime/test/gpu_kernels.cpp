// GPU test helpers: NVRTC-compiled sample kernels and the sample's CPU
// reference.
#include "gpu_kernels.h"

#include <cuda_runtime_api.h>
#include <nvrtc.h>

#include <algorithm>
#include <cmath>

namespace kiln::testing {

static const char *kKernels = R"(
extern "C" __global__ void scale_add(const float* __restrict__ h, float* __restrict__ y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 64) y[i] = h[i] * 2.0f + 1.0f;
}
// At most 32 threads a block: the sample's 64-thread launch of it is refused
// at session creation (the manifest itself is valid).
extern "C" __global__ void __launch_bounds__(32) bounded_scale_add(const float* __restrict__ h, float* __restrict__ y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 64) y[i] = h[i] * 2.0f + 1.0f;
}
extern "C" __global__ void make_nan(const float* __restrict__ h, float* __restrict__ y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 64) y[i] = sqrtf(-1.0f - h[i] * h[i]);
}
extern "C" __global__ void wild_write(const float* __restrict__ h, float* __restrict__ y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 64) y[i + (1ll << 40)] = h[i];  // 4 TiB past y: an illegal address.
}
// Run-time extents (format 3): kiln_dim0 rows of 16, the grid computed per
// run from the launch's element count, as the loop template emits it.
extern "C" __global__ void ranged_affine(const float* __restrict__ x, float* __restrict__ y,
                                         long long kiln_dim0) {
  const long long count = kiln_dim0 * 16LL;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (long long)gridDim.x * blockDim.x)
    y[i] = x[i] * 2.0f + 1.0f;
}
// A bucket's kernel (LaunchBucket) beside it, told apart by its result.
extern "C" __global__ void ranged_affine_bucket(const float* __restrict__ x,
                                                float* __restrict__ y,
                                                long long kiln_dim0) {
  const long long count = kiln_dim0 * 16LL;
  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < count;
       i += (long long)gridDim.x * blockDim.x)
    y[i] = x[i] * 4.0f + 1.0f;
}
// Bounds-checked samples (format 2): kernels take the fault record
// (kiln::artifact::BoundsFaultRecord) and their step index last.
// bounds_fault records what a failed Gather index check does
// (kiln_checked_index in lib/Target/CUDA/Prelude.cpp) in every launch.
struct bounds_record {
  unsigned int flag, site;
  unsigned long long step;
  long long index, bound, axis, reserved;
};
extern "C" __global__ void bounds_scale_add(const float* __restrict__ h, float* __restrict__ y,
                                            bounds_record* __restrict__ record, unsigned long long step) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 64) y[i] = h[i] * 2.0f + 1.0f;
}
extern "C" __global__ void bounds_fault(const float* __restrict__ h, float* __restrict__ y,
                                        bounds_record* __restrict__ record, unsigned long long step) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < 64) y[i] = h[i] * 2.0f + 1.0f;
  if (i == 5 && atomicCAS(&record->flag, 0u, 1u) == 0u) {
    record->site = 1;  // Gather
    record->step = step;
    record->index = 50321;
    record->bound = 30522;
    record->axis = 0;
  }
}
)";

const CompiledKernels &compiledKernels() {
  static CompiledKernels compiled = [] {
    CompiledKernels result;
    cudaDeviceProp properties;
    if (cudaGetDeviceProperties(&properties, 0) != cudaSuccess) {
      result.error = "no device";
      return result;
    }
    result.arch =
        "sm_" + std::to_string(properties.major * 10 + properties.minor);
    nvrtcProgram program;
    nvrtcCreateProgram(&program, kKernels, "kernels.cu", 0, nullptr, nullptr);
    std::string option = "--gpu-architecture=" + result.arch;
    const char *options[] = {option.c_str()};
    if (nvrtcCompileProgram(program, 1, options) != NVRTC_SUCCESS) {
      size_t size = 0;
      nvrtcGetProgramLogSize(program, &size);
      result.error.resize(size);
      nvrtcGetProgramLog(program, result.error.data());
    } else {
      size_t size = 0;
      nvrtcGetCUBINSize(program, &size);
      result.cubin.resize(size);
      nvrtcGetCUBIN(program, result.cubin.data());
    }
    nvrtcDestroyProgram(&program);
    return result;
  }();
  return compiled;
}

SampleOptions deviceSample() {
  SampleOptions options;
  options.arch = compiledKernels().arch;
  options.cubin = compiledKernels().cubin;
  return options;
}

std::vector<float> reference(const std::vector<float> &x) {
  std::vector<float> y(kOut);
  for (int m = 0; m < kSampleM; ++m)
    for (int n = 0; n < kSampleN; ++n) {
      double sum = sampleBias(n);
      for (int k = 0; k < kSampleK; ++k)
        sum += double(x[m * kSampleK + k]) * sampleWeight(k, n);
      y[m * kSampleN + n] = float(std::max(sum, 0.0)) * 2.0f + 1.0f;
    }
  return y;
}

std::vector<float> sampleInput(float seed) {
  std::vector<float> x(kIn);
  for (int i = 0; i < kIn; ++i)
    x[i] = std::sin(seed + 0.37f * i) * 1.5f;
  return x;
}

} // namespace kiln::testing
