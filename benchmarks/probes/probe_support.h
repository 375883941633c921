// What the probes (benchmarks/probes) share: error exits, kiln's candidate
// timing, NVRTC kernels, cuBLASLt's row-major GEMM with a bias epilogue,
// f16 data, comparisons and JSON text.
#ifndef KILN_BENCHMARKS_PROBES_PROBE_SUPPORT_H
#define KILN_BENCHMARKS_PROBES_PROBE_SUPPORT_H

#include "kiln/runtime.h"

#include <cublasLt.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace kiln::probes {

/// The program's name, which die() puts first; main sets it.
extern const char *programName;

[[noreturn]] void die(const std::string &what);
void check(cudaError_t error, const char *what);
void check(cublasStatus_t status, const char *what);
/// A kiln status: NULL passes, else its message is returned (and freed).
std::string message(kiln_status_t status);

struct Shape {
  int64_t m, n, k;
};
/// "M:N:K,..." with M, N, K positive and N and K multiples of 8; dies with
/// a usage message naming |item| otherwise.
std::vector<Shape> parseShapes(const std::string &list);

/// Per call, in microseconds: the median of 7 timings of a CUDA graph of
/// 20 calls of |enqueue|, each timing 5 replays queued behind a held stream
/// (kiln's own candidate timing, gpu_timing.h, so that launch latency is
/// not counted); negative when the calls fail or do not capture.
double timeCalls(cudaStream_t stream, const std::function<bool()> &enqueue);
/// What timeCalls measures, for the probes' JSON "unit".
extern const char *const kTimeCallsUnit;

/// What every probe sets up on device 0: its properties, a non-blocking
/// stream, a cuBLASLt handle and a 64 MiB workspace. Without a device it
/// prints `skipped: no CUDA device` and exits 3.
struct Gpu {
  static constexpr size_t kWorkspace = size_t(64) << 20;
  cudaDeviceProp properties{};
  cudaStream_t stream = nullptr;
  cublasLtHandle_t lt = nullptr;
  void *workspace = nullptr;
};
Gpu setUpGpu();

/// A device buffer of |count| f16 values; one holding |values| (the copy
/// has landed when it returns). Dies when CUDA refuses.
__half *deviceHalves(size_t count);
__half *toDevice(const std::vector<__half> &values);

/// Writes |text| to |path| (when not empty; dies when it cannot). The
/// probes call it after every shape, so that a later failure keeps these.
void writeJson(const std::string &path, const std::string &text);

/// The current device's "sm_XY" and its multiprocessor count.
std::string deviceArch(int *smCount = nullptr);

/// |source| compiled by NVRTC for |arch| (with the toolkit's headers,
/// C++17 and |extraOptions|): the cubin, and NVRTC's log in |*log|; dies
/// with the log (naming |name|) when it does not compile.
std::vector<char> compileCubin(const std::string &source, const char *name,
                               const std::string &arch,
                               const std::vector<std::string> &extraOptions,
                               std::string *log);

/// |name| from |source| compiled by NVRTC for |arch| (with the toolkit's
/// headers, C++17 and |extraOptions|) and loaded; dies with NVRTC's log when
/// it does not compile.
cudaKernel_t compileKernel(const std::string &source, const char *name,
                           const std::string &arch,
                           const std::vector<std::string> &extraOptions = {});

// --- the erf GELU kernel (what kiln's pointwise template computes: fp32
// math on f16 storage, 16-byte vectors) --------------------------------------
/// Blocks of 256 threads for a grid-stride loop over |vectors| 16-byte
/// vectors: one vector a thread, at most 8 blocks per multiprocessor.
unsigned vectorLoopBlocks(long long vectors, int smCount);

struct GeluKernel {
  cudaKernel_t kernel = nullptr;
  int smCount = 0;

  void build();
  /// y = gelu_erf(x) over |elements| (a multiple of 8) f16 values.
  bool launch(const __half *x, __half *y, int64_t elements,
              cudaStream_t stream) const;
};

/// The sampled fp64 check: the largest |out - f(x)| / (|f(x)| + 1e-2) over
/// 997 elements of x = a b + bias (a [M, K], b [K, N], both row-major), for
/// f the erf GELU, the tanh GELU and the identity; x is rounded to f16
/// first when |roundX| (what the GELU kernel after cuBLASLt reads).
struct Sampled {
  double erf = 0, tanh = 0, linear = 0;
};
Sampled sampledCheck(const Shape &s, const std::vector<__half> &a,
                     const std::vector<__half> &b,
                     const std::vector<__half> &bias,
                     const std::vector<float> &out, bool roundX);

// --- cuBLASLt: row-major out[M, N] = a[M, K] x b[K, N] + bias[N] ----------
struct LtGemm {
  cublasLtMatmulDesc_t operation = nullptr;
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, ld = nullptr;
  std::vector<cublasLtMatmulAlgo_t> algorithms;
  cublasLtMatmulAlgo_t best{};

  /// The descriptors and the heuristic's first 8 algorithms (those within
  /// |workspaceBytes|); dies when there is none.
  void build(cublasLtHandle_t handle, const Shape &s,
             cublasLtEpilogue_t epilogue, size_t workspaceBytes);
  bool run(cublasLtHandle_t handle, const cublasLtMatmulAlgo_t &algorithm,
           const __half *a, const __half *b, const __half *bias, __half *out,
           void *workspace, size_t workspaceBytes, cudaStream_t stream);
  /// The fastest of the heuristic's algorithms, as kiln's runtime chooses:
  /// sets |best| and returns its time (timeCalls).
  double choose(cudaStream_t stream,
                const std::function<bool(const cublasLtMatmulAlgo_t &)> &run);
};

// --- data, comparison and JSON ---------------------------------------------
/// |count| f16 values uniform in [-scale, scale], from |seed|.
std::vector<__half> randomHalves(size_t count, double scale, uint32_t seed);
/// A GEMM's operands for |s|, the same for every probe: a [M, K] in [-1, 1],
/// b [K, N] scaled by 1/sqrt(K) (so that a b is about unit-sized) and a bias
/// row [N] in [-biasScale, biasScale].
struct GemmOperands {
  std::vector<__half> a, b, bias;
};
GemmOperands randomGemmOperands(const Shape &s, double biasScale);
/// |count| f16 values from the device, as floats (synchronises |stream|).
std::vector<float> download(const __half *device, size_t count,
                            cudaStream_t stream);

/// How |x| differs from |ref|: rel-L2, the largest |difference| and the
/// largest |difference| / (|ref| + 1e-2), which small values (where
/// erf and tanh GELU differ most, relatively) dominate. Infinite when |x|
/// holds a non-finite value.
struct Difference {
  double relL2 = INFINITY, maxAbs = INFINITY, maxRelative = INFINITY;
};
Difference compare(const std::vector<float> &x, const std::vector<float> &ref);

/// A JSON number; null for a non-finite value or, with |time|, a negative
/// one (a failed timing).
std::string number(double value, bool time = false);
std::string jsonString(const std::string &text);

} // namespace kiln::probes

#endif // KILN_BENCHMARKS_PROBES_PROBE_SUPPORT_H
