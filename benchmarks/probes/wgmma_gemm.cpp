// kiln-probe-wgmma-gemm: can a GEMM of kiln's own, on Hopper's wgmma and TMA,
// match cuBLASLt and take the erf GELU into its epilogue?
//
// BERT-base at 8x128 spends about 420 of its 620 us (H100, 2026-12-07) in
// cuBLASLt GEMMs at 400-530 TFLOP/s, and 60 us more in the erf GELU kernel
// after FFN1: cuBLASLt's GELU epilogue is the tanh form, and cuDNN's fused
// erf GELU is slower than the pair (kiln-probe-matmul-gelu). These GEMMs
// are small (1024 rows): cuBLASLt's tiles leave part of the 132
// multiprocessors idle or run a second, partial wave. This program measures
// a kernel kiln would generate, per shape, side by side in one process:
//   lt        cuBLASLt with its bias epilogue, the fastest of its first 8
//             heuristic algorithms (what kiln runs today), and for a
//             ":gelu" shape lt+gelu, that call then kiln's erf GELU kernel;
//   kiln      out = a b^T + bias (gelu(...) for ":gelu"), one kernel: a
//             producer warpgroup loads 64-wide K slices of a and b by TMA
//             (128-byte swizzle) into a ring of stages guarded by mbarriers;
//             1 or 2 consumer warpgroups each multiply 64 rows by BN
//             columns with wgmma.m64nBNk16 (f32 accumulators) and apply the
//             epilogue from registers. b is taken as [N, K] (K contiguous):
//             kiln can store constant weights so. Every tile shape in
//             --configs is compiled (NVRTC, sm_90a) and timed.
// Each kiln output is compared with lt's (lt+gelu's) output (rel-L2, max
// |diff|) and at 997 sampled elements with an fp64 product; a config whose
// rel-L2 exceeds 1e-2 is reported wrong and not counted as fastest.
// Timing as kiln times library candidates (gpu_timing.h). --compile-only
// needs no GPU: it compiles every config and prints ptxas's registers,
// spills and warnings (test/Tools/probe-wgmma-compile.test).
// First run, H100, 2026-12-07 (results/2026-12-07-h100-probe-wgmma-gemm.json):
// every config correct; the best 0.93-0.99x cuBLASLt at three of BERT's
// four GEMMs, 1.15x at QKV; FFN1 with the erf GELU 0.95x the pair, because
// the epilogue's arithmetic (3.7 us) runs after the main loop.
// --pairs measures what a GEMM of kiln's own could gain at a plan's kernel
// boundaries, which the library's cannot: each shape's GEMM after a
// producer kernel that writes its a (as kiln's LayerNorm writes QKV's
// input), both launched as kiln launches its kernels (programmatic
// dependent launch), repeated. kiln's GEMM then loads its first slices of b
// (constant weights) before griddepcontrol.wait, and lets the next kernel
// launch once its main loop is done. Each pair is checked with a poisoned
// first (a GEMM reading a too early would not match).
// Usage: kiln-probe-wgmma-gemm [--shapes M:N:K[:gelu],...]
//                              [--configs BMxBNxSTAGES[s][c],...] [--json FILE]
//                              [--pairs] [--compile-only]
#include "probe_support.h"

#include <cuda.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

using namespace kiln::probes;

namespace {

struct Config {
  int bm, bn, stages; // bm 64 or 128 (1 or 2 consumer warpgroups).
  bool staged = false;  // The epilogue's stores go through shared memory.
  bool cluster = false; // Two blocks along M share b's tile by multicast.
  std::string name() const {
    return std::to_string(bm) + "x" + std::to_string(bn) + "x" +
           std::to_string(stages) + (staged ? "s" : "") + (cluster ? "c" : "");
  }
  int aBytes() const { return bm * 64 * 2; }
  int bBytes() const { return bn * 64 * 2; }
  /// Stages, the 1024-byte alignment slack and the mbarriers.
  int sharedBytes() const {
    return stages * (aBytes() + bBytes()) + 1024 + 16 * stages;
  }
  int threads() const { return 128 * (bm / 64 + 1); }
  /// Two blocks per multiprocessor where their shared memory fits and the
  /// register cap that follows (65536 / (2 threads()), in steps of 8)
  /// leaves 48 registers beside the accumulators, so that one's epilogue
  /// overlaps the other's loads and multiplies.
  int blocksPerMultiprocessor() const {
    int cap = 65536 / (2 * threads()) / 8 * 8;
    return 2 * sharedBytes() <= 228 * 1024 - 2 * 1024 && bn / 2 + 48 <= cap ? 2
                                                                            : 1;
  }
};

/// The kernel's CUDA source for |config|, with the erf GELU when |gelu|.
/// With |pdl| it is launched as a programmatic dependent: the producer loads
/// the first min(STAGES, K/64) slices of b (constant weights) before
/// griddepcontrol.wait, then a (the previous kernel's output); consumers
/// wait before their first global write and let the next kernel launch once
/// their main loop is done.
std::string kernelSource(const Config &config, bool gelu, bool pdl = false) {
  int accumulators = config.bn / 2;
  // wgmma.m64nBNk16: BN/2 f32 accumulators per thread, then the two
  // descriptors and scale-d.
  std::ostringstream mma;
  mma << "__device__ __forceinline__ void mma(float *d, unsigned long long a,"
         " unsigned long long b) {\n  asm volatile(\"{\\n.reg .pred p;\\n"
         "setp.ne.b32 p, %"
      << accumulators + 2 << ", 0;\\nwgmma.mma_async.sync.aligned.m64n"
      << config.bn << "k16.f32.f16.f16 {";
  for (int i = 0; i < accumulators; ++i)
    mma << (i ? ", " : "") << "%" << i;
  mma << "}, %" << accumulators << ", %" << accumulators + 1
      << ", p, 1, 1, 0, 0;\\n}\\n\"\n    : ";
  for (int i = 0; i < accumulators; ++i)
    mma << (i ? ", " : "") << "\"+f\"(d[" << i << "])";
  mma << "\n    : \"l\"(a), \"l\"(b), \"r\"(1));\n}\n";

  std::ostringstream s;
  s << "#include <cuda_fp16.h>\n"
    << "#define BM " << config.bm << "\n#define BN " << config.bn
    << "\n#define STAGES " << config.stages << "\n#define BLOCKS_PER_SM "
    << config.blocksPerMultiprocessor() << "\n#define CONSUMERS "
    << config.bm / 64 << "\n#define GELU " << (gelu ? 1 : 0)
    << "\n#define STAGED " << (config.staged ? 1 : 0) << "\n#define CLUSTER "
    << (config.cluster ? 1 : 0) << "\n#define ACC " << accumulators
    << "\n#define REGISTER_SPLIT "
    << (config.bm == 128 && config.bn > 192 ? 1 : 0) << "\n#define PDL "
    << (pdl ? 1 : 0) << "\n";
  s << mma.str();
  s << R"(
struct __align__(64) TensorMap { unsigned long long opaque[16]; };
#define A_BYTES (BM * 64 * 2)
#define B_BYTES (BN * 64 * 2)

__device__ __forceinline__ void barrierInit(unsigned bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(bar), "r"(count));
}
__device__ __forceinline__ void expectBytes(unsigned bar, unsigned bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
               :: "r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void arrive(unsigned bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(bar) : "memory");
}
__device__ __forceinline__ void wait(unsigned bar, unsigned phase) {
  asm volatile("{\n.reg .pred done;\nWAIT:\n"
               "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
               "@!done bra WAIT;\n}\n" :: "r"(bar), "r"(phase) : "memory");
}
#if CLUSTER
// The pair of blocks along M: each loads half of b's tile and multicasts it
// to both, and each consumer releases a stage in both blocks' empty
// barriers, since both producers write into it.
__device__ __forceinline__ unsigned clusterRank() {
  unsigned rank;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  return rank;
}
__device__ __forceinline__ void arrivePeer(unsigned bar, unsigned peer) {
  unsigned remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
               : "=r"(remote) : "r"(bar), "r"(peer));
  asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];"
               :: "r"(remote) : "memory");
}
__device__ __forceinline__ void waitCluster(unsigned bar, unsigned phase) {
  asm volatile("{\n.reg .pred done;\nWAIT:\n"
               "mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 "
               "done, [%0], %1;\n"
               "@!done bra WAIT;\n}\n" :: "r"(bar), "r"(phase) : "memory");
}
__device__ __forceinline__ void loadBoth(unsigned to, const TensorMap *map,
                                         unsigned bar, int inner, int outer) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::"
               "complete_tx::bytes.multicast::cluster [%0], [%1, {%3, %4}], "
               "[%2], %5;"
               :: "r"(to), "l"((unsigned long long)map), "r"(bar),
                  "r"(inner), "r"(outer), "h"((unsigned short)3) : "memory");
}
__device__ __forceinline__ void clusterSync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n"
               "barrier.cluster.wait.acquire.aligned;" ::: "memory");
}
#endif
__device__ __forceinline__ void load(unsigned to, const TensorMap *map,
                                     unsigned bar, int inner, int outer) {
  asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::"
               "complete_tx::bytes [%0], [%1, {%3, %4}], [%2];"
               :: "r"(to), "l"((unsigned long long)map), "r"(bar),
                  "r"(inner), "r"(outer) : "memory");
}
/// Slice |kt| of b's tile: in a cluster each block loads its half and
/// multicasts it to both.
__device__ __forceinline__ void loadB(unsigned to, const TensorMap *map,
                                      unsigned bar, int kt) {
#if CLUSTER
  unsigned rank = clusterRank();
  loadBoth(to + rank * (BN / 2) * 128, map, bar, kt * 64,
           blockIdx.x * BN + rank * (BN / 2));
#else
  load(to, map, bar, kt * 64, blockIdx.x * BN);
#endif
}
/// A K-major operand in shared memory with the 128-byte swizzle: rows of
/// 64 halves (128 bytes), 8-row groups 1024 bytes apart.
__device__ __forceinline__ unsigned long long descriptor(unsigned address) {
  return (unsigned long long)((address & 0x3FFFF) >> 4) | (1ull << 16) |
         (64ull << 32) | (1ull << 62);
}
__device__ __forceinline__ void keep(float *d) {
#pragma unroll
  for (int i = 0; i < ACC; ++i) asm volatile("" : "+f"(d[i]) :: "memory");
}

static_assert(STAGES >= 2, "the ring needs two stages");
extern "C" __global__ void
__launch_bounds__(128 * (CONSUMERS + 1), BLOCKS_PER_SM)
gemm(const __grid_constant__ TensorMap mapA,
     const __grid_constant__ TensorMap mapB, const __half *__restrict__ bias,
     __half *__restrict__ out, int M, int N, int K) {
  extern __shared__ unsigned char shared[];
  unsigned base = (unsigned)__cvta_generic_to_shared(shared);
  unsigned tiles = (base + 1023u) & ~1023u;
  unsigned sA = tiles, sB = tiles + STAGES * A_BYTES;
  unsigned bars = sB + STAGES * B_BYTES; // full[STAGES], then empty[STAGES]
  int warpgroup = threadIdx.x / 128, t = threadIdx.x % 128;
  int kTiles = (K + 63) / 64;
  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      barrierInit(bars + 8 * s, 1);
      barrierInit(bars + 8 * (STAGES + s), (1 + CLUSTER) * CONSUMERS * 128);
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  }
#if CLUSTER
  clusterSync(); // The peer's barriers exist before anything reaches them.
  unsigned peer = clusterRank() ^ 1u;
#else
  __syncthreads();
#endif
  if (warpgroup == 0) {
#if REGISTER_SPLIT
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
#endif
    if (t == 0) {
      // b's slices for the stages that start empty go first; with PDL they
      // are in flight while the previous kernel finishes.
      int ahead = kTiles < STAGES ? kTiles : STAGES;
      for (int kt = 0; kt < kTiles; ++kt) {
        int s = kt % STAGES;
        if (kt == 0) {
          for (int p = 0; p < ahead; ++p) {
            expectBytes(bars + 8 * p, A_BYTES + B_BYTES);
            loadB(sB + p * B_BYTES, &mapB, bars + 8 * p, p);
          }
#if PDL
          asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
        }
        if (kt >= ahead) {
#if CLUSTER
          waitCluster(bars + 8 * (STAGES + s), ((kt / STAGES) - 1) & 1);
#else
          wait(bars + 8 * (STAGES + s), ((kt / STAGES) - 1) & 1);
#endif
          expectBytes(bars + 8 * s, A_BYTES + B_BYTES);
          loadB(sB + s * B_BYTES, &mapB, bars + 8 * s, kt);
        }
        load(sA + s * A_BYTES, &mapA, bars + 8 * s, kt * 64, blockIdx.y * BM);
      }
    }
#if CLUSTER
    __syncwarp();
    clusterSync(); // Neither block leaves while the other may reach it.
#endif
    return;
  }
#if REGISTER_SPLIT
  asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
#endif
  int consumer = warpgroup - 1;
  float acc[ACC];
#pragma unroll
  for (int i = 0; i < ACC; ++i) acc[i] = 0.0f;
  for (int kt = 0; kt < kTiles; ++kt) {
    int s = kt % STAGES;
    wait(bars + 8 * s, (kt / STAGES) & 1);
    keep(acc);
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
    for (int kk = 0; kk < 4; ++kk)
      mma(acc, descriptor(sA + s * A_BYTES + consumer * 64 * 128 + kk * 32),
          descriptor(sB + s * B_BYTES + kk * 32));
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
    asm volatile("wgmma.wait_group.sync.aligned 1;" ::: "memory");
    keep(acc);
    // Every consumer thread arrives: with one arrival per warp (a branch
    // on the lane), ptxas serialises the wgmma pipeline (C7515).
    if (kt > 0) {
      arrive(bars + 8 * (STAGES + (kt - 1) % STAGES));
#if CLUSTER
      arrivePeer(bars + 8 * (STAGES + (kt - 1) % STAGES), peer);
#endif
    }
  }
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  keep(acc);
#if PDL
  // The next kernel may launch now; this one's writes wait for the
  // previous kernel (done already: a was loaded after it).
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
  // The m64nBN accumulator layout: warp w, lane l hold rows 16w + l/4 and
  // +8, columns 8j + 2(l%4) and +1 of each 8-column group j.
  int warp = t / 32, lane = t % 32;
#if STAGED
  // Through shared memory (the ring, once both consumers are done with it;
  // rows padded by 16 bytes, so that a warp's 4-byte writes hit 32 banks),
  // then out in 16-byte pieces, a row's consecutive pieces by consecutive
  // threads.
  asm volatile("bar.sync 1, %0;" :: "r"(CONSUMERS * 128) : "memory");
  const int stride = BN * 2 + 16;
  unsigned char *tile = shared + (tiles - base) + consumer * 64 * stride;
  int localRow = warp * 16 + lane / 4;
#else
  int row = blockIdx.y * BM + consumer * 64 + warp * 16 + lane / 4;
#endif
#pragma unroll
  for (int j = 0; j < BN / 8; ++j) {
    int col = blockIdx.x * BN + j * 8 + 2 * (lane % 4);
#if !STAGED
    if (col >= N) continue;
#endif
    float b0 = col < N ? __half2float(bias[col]) : 0.0f;
    float b1 = col < N ? __half2float(bias[col + 1]) : 0.0f;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      float x0 = acc[4 * j + 2 * h] + b0, x1 = acc[4 * j + 2 * h + 1] + b1;
#if GELU
      x0 = 0.5f * x0 * (1.0f + erff(x0 * 0.70710678f));
      x1 = 0.5f * x1 * (1.0f + erff(x1 * 0.70710678f));
#endif
#if STAGED
      *reinterpret_cast<__half2 *>(tile + (localRow + 8 * h) * stride +
                                   (j * 8 + 2 * (lane % 4)) * 2) =
          __floats2half2_rn(x0, x1);
#else
      int r = row + 8 * h;
      if (r < M)
        *reinterpret_cast<__half2 *>(out + (long long)r * N + col) =
            __floats2half2_rn(x0, x1);
#endif
    }
  }
#if STAGED
  asm volatile("bar.sync %0, 128;" :: "r"(2 + consumer) : "memory");
#pragma unroll 4
  for (int i = t; i < 64 * (BN / 8); i += 128) {
    int r = i / (BN / 8), piece = i % (BN / 8);
    int globalRow = blockIdx.y * BM + consumer * 64 + r;
    int col = blockIdx.x * BN + piece * 8;
    if (globalRow < M && col < N)
      *reinterpret_cast<uint4 *>(out + (long long)globalRow * N + col) =
          *reinterpret_cast<const uint4 *>(tile + r * stride + piece * 16);
  }
#endif
#if CLUSTER
  clusterSync();
#endif
}
)";
  return s.str();
}

using EncodeTiled = CUresult (*)(CUtensorMap *, CUtensorMapDataType, cuuint32_t,
                                 void *, const cuuint64_t *, const cuuint64_t *,
                                 const cuuint32_t *, const cuuint32_t *,
                                 CUtensorMapInterleave, CUtensorMapSwizzle,
                                 CUtensorMapL2promotion,
                                 CUtensorMapFloatOOBfill);

EncodeTiled encodeTiled() {
  static EncodeTiled function = nullptr;
  if (!function) {
    void *pointer = nullptr;
    cudaDriverEntryPointQueryResult found{};
    check(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &pointer,
                                           12000, cudaEnableDefault, &found),
          "cuTensorMapEncodeTiled");
    if (!pointer || found != cudaDriverEntryPointSuccess)
      die("the driver has no cuTensorMapEncodeTiled");
    function = reinterpret_cast<EncodeTiled>(pointer);
  }
  return function;
}

/// A row-major [rows, k] f16 matrix read in boxes of 64 x |boxRows| with
/// the 128-byte swizzle; out-of-range elements read as zero.
CUtensorMap tensorMap(const __half *data, int64_t rows, int64_t k,
                      int boxRows) {
  CUtensorMap map;
  cuuint64_t dims[2] = {cuuint64_t(k), cuuint64_t(rows)};
  cuuint64_t strides[1] = {cuuint64_t(k) * 2};
  cuuint32_t box[2] = {64, cuuint32_t(boxRows)};
  cuuint32_t elementStrides[2] = {1, 1};
  CUresult result = encodeTiled()(
      &map, CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2, const_cast<__half *>(data),
      dims, strides, box, elementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE,
      CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
      CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (result != CUDA_SUCCESS)
    die("cuTensorMapEncodeTiled: CUresult " + std::to_string(int(result)));
  return map;
}

/// How kiln launches its kernels: as programmatic dependents of the kernel
/// before them on the stream.
cudaLaunchAttribute programmaticLaunch() {
  cudaLaunchAttribute dependent{};
  dependent.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  dependent.val.programmaticStreamSerializationAllowed = 1;
  return dependent;
}

struct KilnGemm {
  Config config;
  cudaKernel_t kernel = nullptr;
  CUtensorMap mapA{}, mapB{};
  bool pdl = false; // Launched as a programmatic dependent.

  /// The tensor maps of a [M, K] and b [N, K] (in a cluster each block
  /// loads half of b's tile).
  void bind(const __half *a, const __half *bT, const Shape &s) {
    mapA = tensorMap(a, s.m, s.k, config.bm);
    mapB = tensorMap(bT, s.n, s.k, config.cluster ? config.bn / 2 : config.bn);
  }

  bool launch(const __half *bias, __half *out, const Shape &s,
              cudaStream_t stream) {
    int m = int(s.m), n = int(s.n), k = int(s.k);
    void *arguments[] = {&mapA, &mapB, &bias, &out, &m, &n, &k};
    unsigned rows = unsigned((s.m + config.bm - 1) / config.bm);
    cudaLaunchConfig_t launch{};
    // A cluster pairs blocks along M; an odd count gets a block of rows
    // past M (its loads read zeros, its stores are guarded).
    launch.gridDim = dim3(unsigned((s.n + config.bn - 1) / config.bn),
                          config.cluster ? (rows + 1) / 2 * 2 : rows);
    launch.blockDim = dim3(unsigned(config.threads()));
    launch.dynamicSmemBytes = size_t(config.sharedBytes());
    launch.stream = stream;
    cudaLaunchAttribute attributes[2]{};
    launch.attrs = attributes;
    if (config.cluster) {
      cudaLaunchAttribute &cluster = attributes[launch.numAttrs++];
      cluster.id = cudaLaunchAttributeClusterDimension;
      cluster.val.clusterDim.x = 1;
      cluster.val.clusterDim.y = 2;
      cluster.val.clusterDim.z = 1;
    }
    if (pdl)
      attributes[launch.numAttrs++] = programmaticLaunch();
    return cudaLaunchKernelExC(&launch, static_cast<const void *>(kernel),
                               arguments) == cudaSuccess;
  }
};

/// Waits for |stream| at most |seconds|: a kernel that hangs (a barrier
/// never completes) must end the program with a message, not the call.
void finishOrDie(cudaStream_t stream, const std::string &what, int seconds) {
  auto start = std::chrono::steady_clock::now();
  for (;;) {
    cudaError_t state = cudaStreamQuery(stream);
    if (state == cudaSuccess)
      return;
    if (state != cudaErrorNotReady)
      die(what + ": " + cudaGetErrorString(state));
    if (std::chrono::steady_clock::now() - start >
        std::chrono::seconds(seconds)) {
      std::printf("%s: still running after %d s (hang); stopping\n",
                  what.c_str(), seconds);
      std::exit(4);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

/// The kernel before the GEMM in --pairs: it writes the GEMM's a (a copy of
/// x, 16 bytes a thread), the way kiln's LayerNorm or elementwise kernels
/// write the next GEMM's input, and is launched as kiln launches its kernels
/// (programmatic dependent launch, griddepcontrol.wait first). With
/// |trigger| it lets the next kernel launch right after that wait.
struct Producer {
  cudaKernel_t kernel[2] = {nullptr, nullptr};
  int smCount = 0;

  void build() {
    std::string arch = deviceArch(&smCount);
    for (int trigger : {0, 1})
      kernel[trigger] = compileKernel("#define TRIGGER " +
                                          std::to_string(trigger) + "\n" + R"(
extern "C" __global__ void __launch_bounds__(256)
produce(const uint4 *__restrict__ x, uint4 *__restrict__ a, long long vectors) {
  asm volatile("griddepcontrol.wait;" ::: "memory");
#if TRIGGER
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
  for (long long i = blockIdx.x * 256ll + threadIdx.x; i < vectors;
       i += (long long)gridDim.x * 256)
    a[i] = x[i];
}
)",
                                      "produce", arch);
  }

  bool launch(const __half *x, __half *a, int64_t elements, bool trigger,
              cudaStream_t stream) const {
    long long vectors = elements / 8;
    void *arguments[] = {&x, &a, &vectors};
    cudaLaunchConfig_t launch{};
    launch.gridDim = dim3(vectorLoopBlocks(vectors, smCount));
    launch.blockDim = dim3(256);
    launch.stream = stream;
    cudaLaunchAttribute dependent = programmaticLaunch();
    launch.attrs = &dependent;
    launch.numAttrs = 1;
    return cudaLaunchKernelExC(&launch,
                               static_cast<const void *>(kernel[trigger]),
                               arguments) == cudaSuccess;
  }
};

struct ShapeCase {
  Shape shape;
  bool gelu;
};

} // namespace

int main(int argc, char **argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  programName = "kiln-probe-wgmma-gemm";
  // BERT-base and GPT-2 at 1024 tokens: QKV, the attention projection,
  // FFN1 (GELU) and FFN2; ViT-B/16 8x197's FFN1.
  std::vector<ShapeCase> cases = {{{1024, 2304, 768}, false},
                                  {{1024, 768, 768}, false},
                                  {{1024, 3072, 768}, true},
                                  {{1024, 768, 3072}, false},
                                  {{1576, 3072, 768}, true}};
  // The first five fit twice in a multiprocessor (blocksPerMultiprocessor);
  // the last three are clusters of two blocks sharing b's tile.
  std::vector<Config> configs = {{128, 64, 4},
                                 {64, 128, 4},
                                 {64, 96, 4},
                                 {128, 64, 4, true},
                                 {64, 128, 4, true},
                                 {128, 256, 4},
                                 {128, 192, 4},
                                 {128, 128, 5},
                                 {128, 96, 6},
                                 {128, 64, 6},
                                 {64, 256, 5},
                                 {64, 192, 6},
                                 {64, 128, 6},
                                 {64, 96, 8},
                                 {64, 64, 8},
                                 {128, 256, 4, true},
                                 {128, 192, 4, true},
                                 {128, 128, 5, true},
                                 {128, 96, 6, true},
                                 {64, 192, 6, true},
                                 {64, 128, 6, true},
                                 {64, 96, 8, true},
                                 {128, 192, 4, true, true},
                                 {128, 128, 5, true, true},
                                 {64, 96, 8, true, true}};
  std::string jsonPath;
  bool compileOnly = false, pairs = false;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--json" && i + 1 < argc) {
      jsonPath = argv[++i];
    } else if (arg == "--shapes" && i + 1 < argc) {
      cases.clear();
      std::stringstream list(argv[++i]);
      for (std::string item; std::getline(list, item, ',');) {
        bool gelu = item.size() > 5 && item.substr(item.size() - 5) == ":gelu";
        if (gelu)
          item.resize(item.size() - 5);
        cases.push_back({parseShapes(item).front(), gelu});
      }
    } else if (arg == "--compile-only") {
      compileOnly = true;
    } else if (arg == "--pairs") {
      pairs = true;
    } else if (arg == "--configs" && i + 1 < argc) {
      configs.clear();
      std::stringstream list(argv[++i]);
      for (std::string item; std::getline(list, item, ',');) {
        Config c{};
        int used = 0;
        int fields = std::sscanf(item.c_str(), "%dx%dx%d%n", &c.bm, &c.bn,
                                 &c.stages, &used);
        std::string flags = fields == 3 ? item.substr(size_t(used)) : "";
        c.staged = flags.find('s') != std::string::npos;
        c.cluster = flags.find('c') != std::string::npos;
        if (fields != 3 || flags.find_first_not_of("sc") != std::string::npos ||
            (c.bm != 64 && c.bm != 128) || c.bn < 16 || c.bn > 256 ||
            c.bn % 16 || c.stages < 2 || c.sharedBytes() > 227 * 1024)
          die("--configs wants BMxBNxSTAGES[s][c]: BM 64 or 128, BN a "
              "multiple of 16 up to 256, at least 2 stages within 227 KiB, s "
              "for stores through shared memory, c for a cluster of two "
              "blocks sharing b's tile: " +
              item);
        configs.push_back(c);
      }
    } else {
      std::fprintf(stderr,
                   "usage: kiln-probe-wgmma-gemm [--shapes M:N:K[:gelu],...] "
                   "[--configs BMxBNxSTAGES[s][c],...] [--json FILE] "
                   "[--pairs] [--compile-only]\n");
      return 2;
    }
  }
  if (compileOnly) {
    // Without a device: each config's kernels compile for sm_90a, and
    // ptxas tells their registers and spills.
    for (const Config &config : configs)
      for (int variant = 0; variant < (pairs ? 4 : 2); ++variant) {
        bool withGelu = variant % 2, pdl = variant >= 2;
        std::string log;
        compileCubin(kernelSource(config, withGelu, pdl), "gemm", "sm_90a",
                     {"--ptxas-options=-v"}, &log);
        std::string usage;
        for (const char *key :
             {"Used ", "bytes stack frame", "arning", "Performance"}) {
          size_t at = log.find(key);
          if (at != std::string::npos) {
            size_t line = log.rfind('\n', at);
            size_t end = log.find('\n', at);
            usage +=
                (usage.empty() ? "" : "; ") +
                log.substr(line == std::string::npos ? 0 : line + 1,
                           end - (line == std::string::npos ? 0 : line + 1));
          }
        }
        std::printf("%s%s%s: %s\n", config.name().c_str(),
                    withGelu ? " gelu" : "", pdl ? " pdl" : "", usage.c_str());
      }
    return 0;
  }
  Gpu gpu = setUpGpu();
  const cudaDeviceProp &properties = gpu.properties;
  if (properties.major != 9) {
    std::printf("skipped: wgmma needs sm_90 (this is sm_%d%d)\n",
                properties.major, properties.minor);
    return 3;
  }
  cudaStream_t stream = gpu.stream;
  cublasLtHandle_t lt = gpu.lt;
  void *workspace = gpu.workspace;
  constexpr size_t kWorkspace = Gpu::kWorkspace;
  GeluKernel gelu;
  gelu.build();

  Producer producer;
  if (pairs)
    producer.build();

  // One compiled kernel per (config, epilogue, programmatic launch).
  std::map<std::tuple<std::string, bool, bool>, cudaKernel_t> kernels;
  auto kernelFor = [&](const Config &config, bool withGelu, bool pdl) {
    auto key = std::make_tuple(config.name(), withGelu, pdl);
    auto found = kernels.find(key);
    if (found != kernels.end())
      return found->second;
    auto start = std::chrono::steady_clock::now();
    cudaKernel_t kernel =
        compileKernel(kernelSource(config, withGelu, pdl), "gemm", "sm_90a");
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    std::printf("compiled %s%s%s in %.2f s\n", config.name().c_str(),
                withGelu ? " gelu" : "", pdl ? " pdl" : "", seconds);
    check(cudaKernelSetAttributeForDevice(
              kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
              config.sharedBytes(), 0),
          "the shared memory size");
    kernels[key] = kernel;
    return kernel;
  };

  std::string head =
      "{\"program\": \"kiln-probe-wgmma-gemm\", \"device\": " +
      jsonString(properties.name) +
      ", \"sm_count\": " + std::to_string(properties.multiProcessorCount) +
      ", \"cublaslt_version\": " + std::to_string(cublasLtGetVersion()) +
      ", \"unit\": " + jsonString(kTimeCallsUnit) + ", \"shapes\": [";
  std::string rows;
  for (size_t index = 0; index < cases.size(); ++index) {
    const Shape &s = cases[index].shape;
    bool withGelu = cases[index].gelu;
    size_t bCount = size_t(s.k * s.n), yCount = size_t(s.m * s.n);
    // With GELU the bias spreads x over about [-3.5, 3.5] (see
    // kiln-probe-matmul-gelu); without, outputs are about unit-sized.
    GemmOperands operands = randomGemmOperands(s, withGelu ? 3.0 : 1.0);
    const std::vector<__half> &a = operands.a, &b = operands.b,
                              &bias = operands.bias;
    std::vector<__half> bT(bCount); // [N, K], K contiguous.
    for (int64_t kk = 0; kk < s.k; ++kk)
      for (int64_t nn = 0; nn < s.n; ++nn)
        bT[size_t(nn * s.k + kk)] = b[size_t(kk * s.n + nn)];
    __half *da = toDevice(a), *db = toDevice(b), *dbT = toDevice(bT),
           *dbias = toDevice(bias), *dlin = deviceHalves(yCount),
           *dref = deviceHalves(yCount), *dout = deviceHalves(yCount);

    LtGemm linear;
    linear.build(lt, s, CUBLASLT_EPILOGUE_BIAS, kWorkspace);
    double ltUs = linear.choose(stream, [&](const cublasLtMatmulAlgo_t &alg) {
      return linear.run(lt, alg, da, db, dbias, dlin, workspace, kWorkspace,
                        stream);
    });
    auto library = [&] {
      return linear.run(lt, linear.best, da, db, dbias, dlin, workspace,
                        kWorkspace, stream) &&
             (!withGelu || gelu.launch(dlin, dref, int64_t(yCount), stream));
    };
    double libraryUs = withGelu ? timeCalls(stream, library) : ltUs;
    if (!library() || cudaStreamSynchronize(stream) != cudaSuccess)
      die("cuBLASLt does not run");
    std::vector<float> reference =
        download(withGelu ? dref : dlin, yCount, stream);
    Sampled referenceCheck = sampledCheck(s, a, b, bias, reference, true);
    double referenceError =
        withGelu ? referenceCheck.erf : referenceCheck.linear;

    std::string shapeName = std::to_string(s.m) + "x" + std::to_string(s.n) +
                            "x" + std::to_string(s.k) +
                            (withGelu ? " gelu" : "");
    std::ostringstream configRows;
    double bestUs = -1;
    std::string bestName;
    for (size_t c = 0; c < configs.size(); ++c) {
      KilnGemm kiln{configs[c], kernelFor(configs[c], withGelu, false)};
      kiln.bind(da, dbT, s);
      check(cudaMemsetAsync(dout, 0xff, yCount * 2, stream), "poison");
      if (!kiln.launch(dbias, dout, s, stream))
        die("the kiln kernel " + configs[c].name() + " does not launch");
      finishOrDie(stream, shapeName + " " + configs[c].name(), 10);
      std::vector<float> out = download(dout, yCount, stream);
      Difference difference = compare(out, reference);
      // Against the fp64 function this shape computes.
      Sampled sampled = sampledCheck(s, a, b, bias, out, false);
      double sampledError = withGelu ? sampled.erf : sampled.linear;
      bool right = difference.relL2 <= 1e-2;
      double us = timeCalls(
          stream, [&] { return kiln.launch(dbias, dout, s, stream); });
      if (right && us >= 0 && (bestUs < 0 || us < bestUs)) {
        bestUs = us;
        bestName = configs[c].name();
      }
      std::printf("%s %s: %s us%s (vs %s rel-L2 %.2e, max %.2e; sampled "
                  "vs fp64 %.2e)\n",
                  shapeName.c_str(), configs[c].name().c_str(),
                  number(us, true).c_str(), right ? "" : " WRONG",
                  withGelu ? "lt+gelu" : "lt", difference.relL2,
                  difference.maxAbs, sampledError);
      configRows << (c ? ", " : "")
                 << "{\"config\": " << jsonString(configs[c].name())
                 << ", \"us\": " << number(us, true)
                 << ", \"right\": " << (right ? "true" : "false")
                 << ", \"rel_l2_vs_library\": " << number(difference.relL2)
                 << ", \"max_abs_vs_library\": " << number(difference.maxAbs)
                 << ", \"sampled_vs_fp64\": " << number(sampledError) << "}";
    }
    double flops = 2.0 * double(s.m) * double(s.n) * double(s.k);
    std::printf(
        "%s: %s %s us (%.0f TFLOP/s; lt alone %s us, sampled vs "
        "fp64 %.2e), kiln's best %s us (%s, %.0f TFLOP/s): ratio "
        "kiln / library %s\n",
        shapeName.c_str(), withGelu ? "lt+gelu" : "lt",
        number(libraryUs, true).c_str(), flops / libraryUs * 1e-6,
        number(ltUs, true).c_str(), referenceError,
        number(bestUs, true).c_str(), bestName.c_str(), flops / bestUs * 1e-6,
        number(bestUs > 0 && libraryUs > 0 ? bestUs / libraryUs : -1, true)
            .c_str());
    // --pairs: the producer kernel, then the GEMM, repeated, as in a
    // model's plan; kiln's GEMM launched plain, then as a programmatic
    // dependent (b's first slices loaded before the producer is done), then
    // so with a producer that lets it launch early.
    std::ostringstream pairRows;
    if (pairs) {
      __half *dx = toDevice(a);
      int64_t aCount = s.m * s.k;
      auto produce = [&](bool early) {
        return producer.launch(dx, da, aCount, early, stream);
      };
      double produceUs = timeCalls(stream, [&] { return produce(false); });
      double ltPairUs =
          timeCalls(stream, [&] { return produce(false) && library(); });
      double ltPairEarlyUs =
          timeCalls(stream, [&] { return produce(true) && library(); });
      std::printf("%s pairs: producer alone %s us; producer + %s %s us "
                  "(early trigger %s us)\n",
                  shapeName.c_str(), number(produceUs, true).c_str(),
                  withGelu ? "lt+gelu" : "lt", number(ltPairUs, true).c_str(),
                  number(ltPairEarlyUs, true).c_str());
      pairRows << ", \"pairs\": {\"producer_us\": " << number(produceUs, true)
               << ", \"library_pair_us\": " << number(ltPairUs, true)
               << ", \"library_pair_early_trigger_us\": "
               << number(ltPairEarlyUs, true) << ", \"configs\": [";
      for (size_t c = 0; c < configs.size(); ++c) {
        // Plain: the kernel without griddepcontrol (it never lets the next
        // producer launch early), launched as cuBLASLt's kernels are.
        KilnGemm plain{configs[c], kernelFor(configs[c], withGelu, false)};
        KilnGemm dependent{configs[c], kernelFor(configs[c], withGelu, true)};
        dependent.pdl = true;
        plain.bind(da, dbT, s);
        dependent.bind(da, dbT, s);
        auto pair = [&](bool pdl, bool early) {
          return produce(early) &&
                 (pdl ? dependent : plain).launch(dbias, dout, s, stream);
        };
        // a and the output poisoned first: a GEMM that read a before the
        // producer's writes were visible would not match (a real test with
        // the early trigger; without it the producer lets the GEMM launch
        // only as it exits). Every producer writes the same a, so a
        // producer overwriting a while the GEMM before it still reads it
        // would go unseen; its griddepcontrol.wait rules that out.
        double worst = 0;
        for (bool early : {false, true}) {
          check(cudaMemsetAsync(da, 0xff, size_t(aCount) * 2, stream),
                "poison");
          check(cudaMemsetAsync(dout, 0xff, yCount * 2, stream), "poison");
          if (!pair(true, early))
            die("the pair " + configs[c].name() + " does not launch");
          finishOrDie(stream, shapeName + " pair " + configs[c].name(), 10);
          worst = std::max(
              worst, compare(download(dout, yCount, stream), reference).relL2);
        }
        bool right = worst <= 1e-2;
        double plainUs = timeCalls(stream, [&] { return pair(false, false); });
        double pdlUs = timeCalls(stream, [&] { return pair(true, false); });
        double earlyUs = timeCalls(stream, [&] { return pair(true, true); });
        std::printf("%s pairs %s: plain %s us, programmatic %s us, early "
                    "trigger %s us%s (vs %s rel-L2 %.2e)\n",
                    shapeName.c_str(), configs[c].name().c_str(),
                    number(plainUs, true).c_str(), number(pdlUs, true).c_str(),
                    number(earlyUs, true).c_str(), right ? "" : " WRONG",
                    withGelu ? "lt+gelu" : "lt", worst);
        pairRows << (c ? ", " : "")
                 << "{\"config\": " << jsonString(configs[c].name())
                 << ", \"plain_us\": " << number(plainUs, true)
                 << ", \"programmatic_us\": " << number(pdlUs, true)
                 << ", \"programmatic_early_trigger_us\": "
                 << number(earlyUs, true)
                 << ", \"right\": " << (right ? "true" : "false")
                 << ", \"rel_l2_vs_library\": " << number(worst) << "}";
      }
      pairRows << "]}";
      cudaFree(dx);
    }
    std::ostringstream row;
    row << (index ? ", " : "") << "{\"m\": " << s.m << ", \"n\": " << s.n
        << ", \"k\": " << s.k << ", \"gelu\": " << (withGelu ? "true" : "false")
        << ", \"library_us\": " << number(libraryUs, true)
        << ", \"lt_us\": " << number(ltUs, true)
        << ", \"library_sampled_vs_fp64\": " << number(referenceError)
        << ", \"kiln_best_us\": " << number(bestUs, true)
        << ", \"kiln_best_config\": " << jsonString(bestName)
        << ", \"kiln_over_library\": "
        << number(bestUs > 0 && libraryUs > 0 ? bestUs / libraryUs : -1, true)
        << ", \"configs\": [" << configRows.str() << "]" << pairRows.str()
        << "}";
    rows += row.str();
    writeJson(jsonPath, head + rows + "]}\n");
    for (__half *pointer : {da, db, dbT, dbias, dlin, dref, dout})
      cudaFree(pointer);
  }
  return 0;
}
