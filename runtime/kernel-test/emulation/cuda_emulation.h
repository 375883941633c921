// Host emulation of the CUDA features generated kernels use (thread/block
// indices, __syncthreads and named barriers, warp shuffles (xor, down),
// __shared__), so that kernel-test cases can be checked on a machine without a
// GPU: each block runs with one std::thread per CUDA thread. For testing the
// emitter's logic only; it says nothing about performance or the GPU's
// floating-point library.
#ifndef KILN_KERNEL_TEST_CUDA_EMULATION_H
#define KILN_KERNEL_TEST_CUDA_EMULATION_H

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <barrier>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <math.h>
#include <memory>
#include <mutex>

#undef __global__
#define __global__
#undef __device__
#define __device__
#undef __forceinline__
#define __forceinline__ inline
#define __launch_bounds__(...)
#undef __shared__
#define __shared__ static
#define __restrict__ __restrict
#undef __align__
#define __align__(n) alignas(n)

struct kiln_emulated_dim3 {
  unsigned x = 0, y = 0, z = 0;
};
inline thread_local kiln_emulated_dim3 threadIdx, blockIdx;
inline kiln_emulated_dim3 blockDim, gridDim;

struct kiln_emulated_warp {
  std::barrier<> *barrier = nullptr;
  unsigned long long slots[32];
};
inline thread_local std::barrier<> *kiln_block_barrier = nullptr;
inline thread_local kiln_emulated_warp *kiln_warp = nullptr;

// The fast-math intrinsics, computed exactly: the emulator checks the
// emitter's logic, the GPU run the intrinsics' error.
inline float __expf(float x) { return std::exp(x); }
inline float __fdividef(float x, float y) { return x / y; }

inline void __syncthreads() { kiln_block_barrier->arrive_and_wait(); }

// Named barriers (PTX bar.sync id, count) of the block, ids 1 ... 15 (id 0
// is __syncthreads' barrier): the first thread to arrive at barrier |id|
// makes it for |count| threads; every later arrival must name the same
// count, as the hardware requires.
struct kiln_emulated_named_barriers {
  std::mutex mutex;
  std::unique_ptr<std::barrier<>> barriers[16];
  int counts[16] = {};
};
inline thread_local kiln_emulated_named_barriers *kiln_named_barriers = nullptr;
inline void kiln_named_barrier_sync(int id, int count) {
  if (id < 1 || id > 15 || count <= 0 || count % 32 != 0) {
    std::fprintf(stderr,
                 "emulated bar.sync %d, %d: the id must be 1 to 15, "
                 "the count a positive multiple of 32\n",
                 id, count);
    std::abort();
  }
  std::barrier<> *barrier;
  {
    std::lock_guard<std::mutex> lock(kiln_named_barriers->mutex);
    std::unique_ptr<std::barrier<>> &slot = kiln_named_barriers->barriers[id];
    if (!slot) {
      slot = std::make_unique<std::barrier<>>(count);
      kiln_named_barriers->counts[id] = count;
    } else if (kiln_named_barriers->counts[id] != count) {
      std::fprintf(stderr, "emulated bar.sync %d: count %d, but %d before\n",
                   id, count, kiln_named_barriers->counts[id]);
      std::abort();
    }
    barrier = slot.get();
  }
  barrier->arrive_and_wait();
}

// A shuffle of the whole warp: every lane posts |value|, then reads the
// slot of lane |source|(lane).
template <typename T, typename Source>
T kiln_emulated_shuffle(T value, Source source) {
  static_assert(sizeof(T) <= sizeof(unsigned long long), "shuffle width");
  unsigned lane = threadIdx.x & 31;
  std::memcpy(&kiln_warp->slots[lane], &value, sizeof(T));
  kiln_warp->barrier->arrive_and_wait();
  T result;
  std::memcpy(&result, &kiln_warp->slots[source(lane)], sizeof(T));
  kiln_warp->barrier->arrive_and_wait();
  return result;
}
template <typename T> T __shfl_xor_sync(unsigned, T value, int offset) {
  return kiln_emulated_shuffle(value,
                               [&](unsigned lane) { return lane ^ offset; });
}
// Lanes past the last read their own value, as on the GPU (width 32).
template <typename T> T __shfl_down_sync(unsigned, T value, unsigned delta) {
  return kiln_emulated_shuffle(value, [&](unsigned lane) {
    return lane + delta < 32 ? lane + delta : lane;
  });
}

inline float __int_as_float(int bits) {
  float value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}
inline double __longlong_as_double(long long bits) {
  double value;
  std::memcpy(&value, &bits, sizeof(value));
  return value;
}

#endif // KILN_KERNEL_TEST_CUDA_EMULATION_H
