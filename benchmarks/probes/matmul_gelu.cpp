// kiln-probe-matmul-gelu: would an exact (erf) GELU fused into its GEMM pay?
//
// BERT-style FFNs compute gelu(x W + b) with the erf GELU. cuBLASLt's GELU
// epilogue is the tanh form, which differs from erf's by up to 4.7e-4 (5%
// of the value where GELU is small, x near -2.7), so kiln runs cuBLASLt's
// bias epilogue and a separate GELU kernel: BERT-base at 8x128 spends 60 us
// of 0.61 ms there on the H100 (2026-12-07). cuDNN's graph API can fuse
// matmul -> + bias -> GELU_FWD (erf) in one runtime-compiled engine. This
// program measures, per shape, side by side in one process:
//   lt+gelu   cuBLASLt (bias epilogue, the fastest of its first 8 heuristic
//             algorithms) then an erf GELU kernel (NVRTC, 16-byte vectors),
//             what kiln runs today;
//   lt        the cuBLASLt call alone (the floor of any fusion);
//   lt-tanh   cuBLASLt with its tanh GELU_BIAS epilogue (the cost of an
//             epilogue, not the same function);
//   cudnn     cuDNN's fused graph, the fastest of the plans heuristics mode
//             A proposes (at most 5);
// each timed as CUDA-graph replays of 20 calls (median of 7 replays), and
// the fused output checked against lt+gelu (rel-L2, max |diff|), which is
// itself checked against a host fp64 reference at 997 sampled elements.
// Prints one line per shape and path, and --json FILE the whole record.
// Usage: kiln-probe-matmul-gelu [--shapes M:N:K,...] [--json FILE]
#include "conv_graph_descriptors.h"
#include "status.h"

#include <cublasLt.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <cudnn.h>
#include <nvrtc.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace kiln::runtime;

namespace {

[[noreturn]] void die(const std::string &what) {
  std::fprintf(stderr, "kiln-probe-matmul-gelu: %s\n", what.c_str());
  std::exit(1);
}
void check(cudaError_t error, const char *what) {
  if (error != cudaSuccess)
    die(std::string(what) + ": " + cudaGetErrorString(error));
}
void check(cublasStatus_t status, const char *what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    die(std::string(what) + ": cuBLAS status " + std::to_string(int(status)));
}
/// A kiln status: NULL passes, else its message is returned (and freed).
std::string message(kiln_status_t status) {
  if (!status)
    return "";
  std::string text = kiln_status_message(status);
  kiln_status_free(status);
  return text;
}

struct Shape {
  int64_t m, n, k;
};

/// Median of 7 replays of a CUDA graph holding 20 calls of |enqueue|, per
/// call, in microseconds; negative when the calls fail or do not capture.
double timeCalls(cudaStream_t stream, const std::function<bool()> &enqueue) {
  constexpr int kCalls = 20, kReplays = 7;
  for (int i = 0; i < 3; ++i) // Warm up uncaptured (runtime compilation).
    if (!enqueue())
      return -1;
  if (cudaStreamSynchronize(stream) != cudaSuccess)
    return -1;
  cudaGraph_t graph = nullptr;
  if (cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) !=
      cudaSuccess)
    return -1;
  bool captured = true;
  for (int i = 0; i < kCalls && captured; ++i)
    captured = enqueue();
  if (cudaStreamEndCapture(stream, &graph) != cudaSuccess || !captured) {
    cudaGetLastError();
    if (graph)
      cudaGraphDestroy(graph);
    return -1;
  }
  cudaGraphExec_t exec = nullptr;
  check(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
  cudaEvent_t start, stop;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  check(cudaGraphLaunch(exec, stream), "cudaGraphLaunch"); // Warm.
  std::vector<double> times;
  for (int r = 0; r < kReplays; ++r) {
    check(cudaEventRecord(start, stream), "cudaEventRecord");
    check(cudaGraphLaunch(exec, stream), "cudaGraphLaunch");
    check(cudaEventRecord(stop, stream), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    times.push_back(1e3 * ms / kCalls);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

// --- the erf GELU kernel (what kiln's pointwise template computes: fp32
// math on f16 storage, 16-byte vectors) --------------------------------------
const char *kGeluSource = R"(
#include <cuda_fp16.h>
struct __align__(16) half8 { __half v[8]; };
extern "C" __global__ void __launch_bounds__(256)
gelu_erf(const half8 *__restrict__ x, half8 *__restrict__ y, long long count) {
  for (long long i = blockIdx.x * 256ll + threadIdx.x; i < count;
       i += (long long)gridDim.x * 256) {
    half8 in = x[i], out;
#pragma unroll
    for (int j = 0; j < 8; ++j) {
      float v = __half2float(in.v[j]);
      out.v[j] = __float2half_rn(0.5f * v * (1.0f + erff(v * 0.70710678f)));
    }
    y[i] = out;
  }
}
)";

struct GeluKernel {
  cudaLibrary_t library = nullptr;
  cudaKernel_t kernel = nullptr;
  int smCount = 0;

  void build() {
    int device = 0, major = 0, minor = 0;
    check(cudaGetDevice(&device), "cudaGetDevice");
    check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor,
                                 device),
          "compute capability");
    check(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor,
                                 device),
          "compute capability");
    check(cudaDeviceGetAttribute(&smCount, cudaDevAttrMultiProcessorCount,
                                 device),
          "multiprocessor count");
    nvrtcProgram program;
    if (nvrtcCreateProgram(&program, kGeluSource, "gelu.cu", 0, nullptr,
                           nullptr) != NVRTC_SUCCESS)
      die("nvrtcCreateProgram");
    std::string arch = "--gpu-architecture=sm_" + std::to_string(major) +
                       std::to_string(minor);
    const char *home = std::getenv("CUDA_HOME");
    std::string include =
        std::string("-I") + (home ? std::string(home) + "/include"
                                  : std::string(KILN_CUDA_INCLUDE_DIR));
    const char *options[] = {arch.c_str(), include.c_str(), "--std=c++17"};
    if (nvrtcCompileProgram(program, 3, options) != NVRTC_SUCCESS) {
      size_t size = 0;
      nvrtcGetProgramLogSize(program, &size);
      std::string log(size, '\0');
      nvrtcGetProgramLog(program, log.data());
      die("the GELU kernel does not compile: " + log);
    }
    size_t size = 0;
    nvrtcGetCUBINSize(program, &size);
    std::vector<char> cubin(size);
    nvrtcGetCUBIN(program, cubin.data());
    nvrtcDestroyProgram(&program);
    check(cudaLibraryLoadData(&library, cubin.data(), nullptr, nullptr, 0,
                              nullptr, nullptr, 0),
          "cudaLibraryLoadData");
    check(cudaLibraryGetKernel(&kernel, library, "gelu_erf"),
          "cudaLibraryGetKernel");
  }
  bool launch(const __half *x, __half *y, int64_t elements,
              cudaStream_t stream) const {
    long long vectors = elements / 8;
    int blocks = int(std::min<long long>((vectors + 255) / 256, 8ll * smCount));
    void *arguments[] = {&x, &y, &vectors};
    return cudaLaunchKernel(static_cast<const void *>(kernel), dim3(blocks),
                            dim3(256), arguments, 0, stream) == cudaSuccess;
  }
};

// --- cuBLASLt: row-major out[M, N] = a[M, K] x b[K, N] + bias[N] ----------
struct LtGemm {
  cublasLtMatmulDesc_t operation = nullptr;
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, ld = nullptr;
  std::vector<cublasLtMatmulAlgo_t> algorithms;
  cublasLtMatmulAlgo_t best{};

  /// Column-major view: cuBLASLt's A is b ([N, K] col-major = b row-major),
  /// its B is a, its D out^T.
  void build(cublasLtHandle_t handle, const Shape &s,
             cublasLtEpilogue_t epilogue, size_t workspaceBytes) {
    check(cublasLtMatmulDescCreate(&operation, CUBLAS_COMPUTE_32F, CUDA_R_32F),
          "cublasLtMatmulDescCreate");
    check(cublasLtMatmulDescSetAttribute(operation,
                                         CUBLASLT_MATMUL_DESC_EPILOGUE,
                                         &epilogue, sizeof(epilogue)),
          "the epilogue");
    check(cublasLtMatrixLayoutCreate(&la, CUDA_R_16F, s.n, s.k, s.n),
          "layout b");
    check(cublasLtMatrixLayoutCreate(&lb, CUDA_R_16F, s.k, s.m, s.k),
          "layout a");
    check(cublasLtMatrixLayoutCreate(&ld, CUDA_R_16F, s.n, s.m, s.n),
          "layout out");
    cublasLtMatmulPreference_t preference;
    check(cublasLtMatmulPreferenceCreate(&preference), "preference");
    uint64_t workspace = workspaceBytes;
    check(cublasLtMatmulPreferenceSetAttribute(
              preference, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace,
              sizeof(workspace)),
          "workspace");
    cublasLtMatmulHeuristicResult_t results[8] = {};
    int found = 0;
    check(cublasLtMatmulAlgoGetHeuristic(handle, operation, la, lb, ld, ld,
                                         preference, 8, results, &found),
          "cublasLtMatmulAlgoGetHeuristic");
    cublasLtMatmulPreferenceDestroy(preference);
    for (int i = 0; i < found; ++i)
      if (results[i].state == CUBLAS_STATUS_SUCCESS &&
          results[i].workspaceSize <= workspaceBytes)
        algorithms.push_back(results[i].algo);
    if (algorithms.empty())
      die("cuBLASLt has no algorithm");
    best = algorithms.front();
  }
  bool run(cublasLtHandle_t handle, const cublasLtMatmulAlgo_t &algorithm,
           const __half *a, const __half *b, const __half *bias, __half *out,
           void *workspace, size_t workspaceBytes, cudaStream_t stream) {
    if (bias && cublasLtMatmulDescSetAttribute(
                    operation, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias,
                    sizeof(bias)) != CUBLAS_STATUS_SUCCESS)
      return false;
    const float alpha = 1.0f, beta = 0.0f;
    return cublasLtMatmul(handle, operation, &alpha, b, la, a, lb, &beta, out,
                          ld, out, ld, &algorithm, workspace, workspaceBytes,
                          stream) == CUBLAS_STATUS_SUCCESS;
  }
  /// The fastest of the heuristic's algorithms, as kiln's runtime chooses.
  double choose(cudaStream_t stream,
                const std::function<bool(const cublasLtMatmulAlgo_t &)> &run) {
    double fastest = -1;
    for (const cublasLtMatmulAlgo_t &algorithm : algorithms) {
      double time = timeCalls(stream, [&] { return run(algorithm); });
      if (time >= 0 && (fastest < 0 || time < fastest)) {
        fastest = time;
        best = algorithm;
      }
    }
    return fastest;
  }
};

// --- cuDNN: y = gelu_erf(a x b + bias), one operation graph --------------
enum : int64_t { kA = 1, kB = 2, kBias = 3, kY = 4, kProduct = 10, kSum = 11 };

struct CudnnFused {
  std::vector<BackendDescriptor> keep; // Tensors and descriptors.
  std::vector<BackendDescriptor> operations;
  BackendDescriptor graph;
  struct Plan {
    BackendDescriptor plan;
    int64_t workspace = 0, rank = -1; // Rank in the heuristics' list.
  };
  std::vector<Plan> plans;
  std::string problem; // Why there is no plan, when there is none.

  std::string tensor(int64_t id, std::vector<int64_t> dims,
                     std::vector<int64_t> strides, cudnnDataType_t type,
                     bool isVirtual) {
    keep.emplace_back();
    BackendDescriptor &t = keep.back();
    std::string error = message(t.create(CUDNN_BACKEND_TENSOR_DESCRIPTOR,
                                         "tensor " + std::to_string(id)));
    if (error.empty())
      error = message(t.setDataType(CUDNN_ATTR_TENSOR_DATA_TYPE, type));
    if (error.empty())
      error = message(t.setInt64s(CUDNN_ATTR_TENSOR_DIMENSIONS, dims));
    if (error.empty())
      error = message(t.setInt64s(CUDNN_ATTR_TENSOR_STRIDES, strides));
    if (error.empty())
      error = message(t.setInt64(CUDNN_ATTR_TENSOR_UNIQUE_ID, id));
    if (error.empty())
      error = message(t.setInt64(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, 16));
    if (error.empty())
      error = message(t.set(CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1,
                            &isVirtual));
    if (error.empty())
      error = message(t.finalize());
    return error;
  }
  std::string pointwise(cudnnPointwiseMode_t mode, const BackendDescriptor &x,
                        const BackendDescriptor *b,
                        const BackendDescriptor &y) {
    keep.emplace_back();
    BackendDescriptor &descriptor = keep.back();
    std::string error = message(
        descriptor.create(CUDNN_BACKEND_POINTWISE_DESCRIPTOR, "pointwise"));
    if (error.empty())
      error = message(descriptor.set(CUDNN_ATTR_POINTWISE_MODE,
                                     CUDNN_TYPE_POINTWISE_MODE, 1, &mode));
    if (error.empty())
      error = message(descriptor.setDataType(CUDNN_ATTR_POINTWISE_MATH_PREC,
                                             CUDNN_DATA_FLOAT));
    if (error.empty())
      error = message(descriptor.finalize());
    operations.emplace_back();
    BackendDescriptor &op = operations.back();
    if (error.empty())
      error = message(op.create(CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR,
                                "pointwise operation"));
    if (error.empty())
      error = message(op.setDescriptor(
          CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, descriptor));
    if (error.empty())
      error =
          message(op.setDescriptor(CUDNN_ATTR_OPERATION_POINTWISE_XDESC, x));
    if (error.empty() && b)
      error =
          message(op.setDescriptor(CUDNN_ATTR_OPERATION_POINTWISE_BDESC, *b));
    if (error.empty())
      error =
          message(op.setDescriptor(CUDNN_ATTR_OPERATION_POINTWISE_YDESC, y));
    if (error.empty())
      error = message(op.finalize());
    return error;
  }

  /// Builds the graph and up to 5 plans of heuristics mode A; false with
  /// |problem| set when cuDNN refuses.
  bool build(cudnnHandle_t handle, const Shape &s, size_t workspaceLimit) {
    keep.reserve(16);
    operations.reserve(4);
    int64_t m = s.m, n = s.n, k = s.k;
    std::string error =
        tensor(kA, {1, m, k}, {m * k, k, 1}, CUDNN_DATA_HALF, false);
    if (error.empty())
      error = tensor(kB, {1, k, n}, {k * n, n, 1}, CUDNN_DATA_HALF, false);
    if (error.empty())
      error = tensor(kBias, {1, 1, n}, {n, n, 1}, CUDNN_DATA_HALF, false);
    if (error.empty())
      error =
          tensor(kProduct, {1, m, n}, {m * n, n, 1}, CUDNN_DATA_FLOAT, true);
    if (error.empty())
      error = tensor(kSum, {1, m, n}, {m * n, n, 1}, CUDNN_DATA_FLOAT, true);
    if (error.empty())
      error = tensor(kY, {1, m, n}, {m * n, n, 1}, CUDNN_DATA_HALF, false);
    if (!error.empty())
      return problem = error, false;
    BackendDescriptor &a = keep[0], &b = keep[1], &bias = keep[2],
                      &product = keep[3], &sum = keep[4], &y = keep[5];
    keep.emplace_back();
    BackendDescriptor &matmul = keep.back();
    error = message(matmul.create(CUDNN_BACKEND_MATMUL_DESCRIPTOR, "matmul"));
    if (error.empty())
      error = message(
          matmul.setDataType(CUDNN_ATTR_MATMUL_COMP_TYPE, CUDNN_DATA_FLOAT));
    if (error.empty())
      error = message(matmul.finalize());
    operations.emplace_back();
    BackendDescriptor &op = operations.back();
    if (error.empty())
      error = message(op.create(CUDNN_BACKEND_OPERATION_MATMUL_DESCRIPTOR,
                                "matmul operation"));
    if (error.empty())
      error = message(op.setDescriptor(CUDNN_ATTR_OPERATION_MATMUL_ADESC, a));
    if (error.empty())
      error = message(op.setDescriptor(CUDNN_ATTR_OPERATION_MATMUL_BDESC, b));
    if (error.empty())
      error =
          message(op.setDescriptor(CUDNN_ATTR_OPERATION_MATMUL_CDESC, product));
    if (error.empty())
      error =
          message(op.setDescriptor(CUDNN_ATTR_OPERATION_MATMUL_DESC, matmul));
    if (error.empty())
      error = message(op.finalize());
    if (error.empty())
      error = pointwise(CUDNN_POINTWISE_ADD, product, &bias, sum);
    if (error.empty())
      error = pointwise(CUDNN_POINTWISE_GELU_FWD, sum, nullptr, y);
    if (error.empty())
      error = message(
          graph.create(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, "graph"));
    if (error.empty())
      error = message(graph.set(CUDNN_ATTR_OPERATIONGRAPH_HANDLE,
                                CUDNN_TYPE_HANDLE, 1, &handle));
    std::vector<cudnnBackendDescriptor_t> raw;
    for (const BackendDescriptor &operation : operations)
      raw.push_back(operation.get());
    if (error.empty())
      error = message(graph.set(CUDNN_ATTR_OPERATIONGRAPH_OPS,
                                CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                int64_t(raw.size()), raw.data()));
    if (error.empty())
      error = message(graph.finalize());
    if (!error.empty())
      return problem = error, false;

    BackendDescriptor heuristics;
    cudnnBackendHeurMode_t mode = CUDNN_HEUR_MODE_A;
    error = message(
        heuristics.create(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, "heuristics"));
    if (error.empty())
      error = message(heuristics.setDescriptor(
          CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, graph));
    if (error.empty())
      error = message(heuristics.set(CUDNN_ATTR_ENGINEHEUR_MODE,
                                     CUDNN_TYPE_HEUR_MODE, 1, &mode));
    if (error.empty())
      error = message(heuristics.finalize());
    int64_t available = 0;
    if (error.empty())
      error = message(heuristics.getAttribute(CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                              CUDNN_TYPE_BACKEND_DESCRIPTOR, 0,
                                              &available, nullptr));
    if (!error.empty())
      return problem = error, false;
    int64_t wanted = std::min<int64_t>(available, 10), returned = 0;
    std::vector<BackendDescriptor> configs;
    std::vector<cudnnBackendDescriptor_t> configHandles;
    if (wanted > 0)
      error =
          message(createDescriptors(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, wanted,
                                    "engine config", &configs, &configHandles));
    if (error.empty() && wanted > 0)
      error = message(heuristics.getAttribute(
          CUDNN_ATTR_ENGINEHEUR_RESULTS, CUDNN_TYPE_BACKEND_DESCRIPTOR, wanted,
          &returned, configHandles.data()));
    if (!error.empty())
      return problem = error, false;
    std::string refusals;
    for (int64_t i = 0; i < std::min(returned, wanted) && plans.size() < 5;
         ++i) {
      Plan plan;
      std::string refused = message(
          plan.plan.create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, "plan"));
      if (refused.empty())
        refused = message(plan.plan.set(CUDNN_ATTR_EXECUTION_PLAN_HANDLE,
                                        CUDNN_TYPE_HANDLE, 1, &handle));
      if (refused.empty())
        refused = message(plan.plan.setDescriptor(
            CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, configs[size_t(i)]));
      if (refused.empty())
        refused = message(plan.plan.finalize());
      int64_t read = 0;
      if (refused.empty())
        refused = message(plan.plan.getAttribute(
            CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE, CUDNN_TYPE_INT64, 1,
            &read, &plan.workspace));
      if (refused.empty() && size_t(plan.workspace) > workspaceLimit)
        refused = "workspace " + std::to_string(plan.workspace);
      if (!refused.empty()) {
        refusals += (refusals.empty() ? "" : "; ") + refused;
        continue;
      }
      plan.rank = i;
      plans.push_back(std::move(plan));
    }
    if (plans.empty())
      problem = "heuristics mode A proposed " + std::to_string(available) +
                " configs, none finalised: " + refusals;
    return !plans.empty();
  }
  bool run(cudnnHandle_t handle, const Plan &plan, const __half *a,
           const __half *b, const __half *bias, __half *y, void *workspace,
           cudaStream_t stream) {
    // The fence of ConvGraph::execute: a plan's first kernel may be a
    // programmatic dependent launch that starts before earlier work ends.
    if (cudaMemsetAsync(workspace, 0, 4, stream) != cudaSuccess)
      return false;
    int64_t ids[] = {kA, kB, kBias, kY};
    void *pointers[] = {const_cast<__half *>(a), const_cast<__half *>(b),
                        const_cast<__half *>(bias), y};
    BackendDescriptor pack;
    std::string error =
        message(pack.create(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, "pack"));
    if (error.empty())
      error = message(pack.set(CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS,
                               CUDNN_TYPE_INT64, 4, ids));
    if (error.empty())
      error = message(pack.set(CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS,
                               CUDNN_TYPE_VOID_PTR, 4, pointers));
    if (error.empty())
      error = message(pack.set(CUDNN_ATTR_VARIANT_PACK_WORKSPACE,
                               CUDNN_TYPE_VOID_PTR, 1, &workspace));
    if (error.empty())
      error = message(pack.finalize());
    return error.empty() &&
           cudnnBackendExecute(handle, plan.plan.get(), pack.get()) ==
               CUDNN_STATUS_SUCCESS;
  }
};

// --- data and comparison --------------------------------------------------
std::vector<__half> randomHalves(size_t count, double scale, uint32_t seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<__half> values(count);
  for (__half &value : values)
    value = __float2half_rn(float(uniform(generator) * scale));
  return values;
}
std::vector<float> download(const __half *device, size_t count) {
  std::vector<__half> host(count);
  check(cudaMemcpy(host.data(), device, count * sizeof(__half),
                   cudaMemcpyDeviceToHost),
        "download");
  std::vector<float> values(count);
  for (size_t i = 0; i < count; ++i)
    values[i] = __half2float(host[i]);
  return values;
}
struct Difference {
  double relL2 = 0, maxAbs = 0;
};
Difference compare(const std::vector<float> &x, const std::vector<float> &ref) {
  double error = 0, norm = 0, worst = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    double d = double(x[i]) - double(ref[i]);
    if (!std::isfinite(d))
      return {INFINITY, INFINITY};
    error += d * d;
    norm += double(ref[i]) * double(ref[i]);
    worst = std::max(worst, std::fabs(d));
  }
  return {std::sqrt(error / std::max(norm, 1e-300)), worst};
}

std::string number(double value) {
  if (!std::isfinite(value))
    return "null";
  std::ostringstream text;
  text.precision(6);
  text << value;
  return text.str();
}

} // namespace

int main(int argc, char **argv) {
  std::vector<Shape> shapes = {{1024, 3072, 768},  // BERT-base 8x128 FFN1
                               {1576, 3072, 768},  // ViT-B/16 8x197 FFN1
                               {256, 3072, 768},   // BERT-base 2x128
                               {4096, 3072, 768}}; // BERT-base 32x128
  std::string jsonPath;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--json" && i + 1 < argc) {
      jsonPath = argv[++i];
    } else if (arg == "--shapes" && i + 1 < argc) {
      shapes.clear();
      std::stringstream list(argv[++i]);
      for (std::string item; std::getline(list, item, ',');) {
        Shape s{};
        if (std::sscanf(item.c_str(), "%ld:%ld:%ld", &s.m, &s.n, &s.k) != 3 ||
            s.m <= 0 || s.n % 8 || s.k % 8 || (s.m * s.n) % 8)
          die("--shapes wants M:N:K with N and K multiples of 8: " + item);
        shapes.push_back(s);
      }
    } else {
      std::fprintf(stderr, "usage: kiln-probe-matmul-gelu [--shapes M:N:K,...] "
                           "[--json FILE]\n");
      return 2;
    }
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("skipped: no CUDA device\n");
    return 3;
  }
  cudaDeviceProp properties{};
  check(cudaGetDeviceProperties(&properties, 0), "cudaGetDeviceProperties");
  cudaStream_t stream;
  check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking),
        "cudaStreamCreate");
  cublasLtHandle_t lt;
  check(cublasLtCreate(&lt), "cublasLtCreate");
  cudnnHandle_t dnn;
  if (cudnnCreate(&dnn) != CUDNN_STATUS_SUCCESS)
    die("cudnnCreate");
  if (cudnnSetStream(dnn, stream) != CUDNN_STATUS_SUCCESS)
    die("cudnnSetStream");
  GeluKernel gelu;
  gelu.build();
  constexpr size_t kWorkspace = size_t(64) << 20;
  void *workspace = nullptr;
  check(cudaMalloc(&workspace, kWorkspace), "cudaMalloc");

  std::ostringstream json;
  json << "{\"program\": \"kiln-probe-matmul-gelu\", \"device\": \""
       << properties.name << "\", \"cudnn_version\": " << cudnnGetVersion()
       << ", \"cublaslt_version\": " << cublasLtGetVersion()
       << ", \"unit\": \"us per call (median of 7 graph replays of 20 calls)\""
       << ", \"shapes\": [";
  for (size_t index = 0; index < shapes.size(); ++index) {
    const Shape &s = shapes[index];
    size_t aCount = size_t(s.m * s.k), bCount = size_t(s.k * s.n),
           yCount = size_t(s.m * s.n);
    std::vector<__half> a = randomHalves(aCount, 1.0, 1),
                        b = randomHalves(bCount, 1.0 / std::sqrt(s.k), 2),
                        bias = randomHalves(size_t(s.n), 0.5, 3);
    __half *da, *db, *dbias, *dlin, *dref, *dtanh, *dfused;
    for (auto [pointer, count] :
         std::initializer_list<std::pair<__half **, size_t>>{
             {&da, aCount},
             {&db, bCount},
             {&dbias, size_t(s.n)},
             {&dlin, yCount},
             {&dref, yCount},
             {&dtanh, yCount},
             {&dfused, yCount}})
      check(cudaMalloc(pointer, count * sizeof(__half)), "cudaMalloc");
    check(cudaMemcpy(da, a.data(), aCount * 2, cudaMemcpyHostToDevice), "a");
    check(cudaMemcpy(db, b.data(), bCount * 2, cudaMemcpyHostToDevice), "b");
    check(
        cudaMemcpy(dbias, bias.data(), size_t(s.n) * 2, cudaMemcpyHostToDevice),
        "bias");

    LtGemm linear, tanhGelu;
    linear.build(lt, s, CUBLASLT_EPILOGUE_BIAS, kWorkspace);
    tanhGelu.build(lt, s, CUBLASLT_EPILOGUE_GELU_BIAS, kWorkspace);
    double ltUs = linear.choose(stream, [&](const cublasLtMatmulAlgo_t &alg) {
      return linear.run(lt, alg, da, db, dbias, dlin, workspace, kWorkspace,
                        stream);
    });
    double tanhUs =
        tanhGelu.choose(stream, [&](const cublasLtMatmulAlgo_t &alg) {
          return tanhGelu.run(lt, alg, da, db, dbias, dtanh, workspace,
                              kWorkspace, stream);
        });
    auto linearThenGelu = [&] {
      return linear.run(lt, linear.best, da, db, dbias, dlin, workspace,
                        kWorkspace, stream) &&
             gelu.launch(dlin, dref, int64_t(yCount), stream);
    };
    double ltGeluUs = timeCalls(stream, linearThenGelu);
    check(cudaStreamSynchronize(stream), "lt+gelu");
    std::vector<float> reference = download(dref, yCount);

    // lt+gelu against the definition at 997 sampled elements (fp64).
    double sampleWorst = 0;
    for (size_t t = 0; t < 997; ++t) {
      size_t at = (t * 7919u * 104729u) % yCount, row = at / size_t(s.n),
             col = at % size_t(s.n);
      double sum = __half2float(bias[col]);
      for (int64_t kk = 0; kk < s.k; ++kk)
        sum += double(__half2float(a[row * size_t(s.k) + size_t(kk)])) *
               double(__half2float(b[size_t(kk) * size_t(s.n) + col]));
      // cuBLASLt rounds x W + b to f16 before the GELU kernel reads it.
      double x = __half2float(__float2half_rn(float(sum)));
      double exact = 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
      sampleWorst = std::max(sampleWorst, std::fabs(exact - reference[at]) /
                                              (std::fabs(exact) + 1e-2));
    }

    CudnnFused fused;
    double fusedUs = -1;
    int64_t fusedPlan = -1;
    Difference fusedDiff{INFINITY, INFINITY};
    std::vector<double> planUs;
    if (fused.build(dnn, s, kWorkspace)) {
      for (const CudnnFused::Plan &plan : fused.plans) {
        double us = timeCalls(stream, [&] {
          return fused.run(dnn, plan, da, db, dbias, dfused, workspace, stream);
        });
        planUs.push_back(us);
        if (us >= 0 && (fusedUs < 0 || us < fusedUs)) {
          fusedUs = us;
          fusedPlan = int64_t(&plan - fused.plans.data());
        }
      }
      if (fusedPlan >= 0) {
        check(cudaMemset(dfused, 0xff, yCount * 2), "poison");
        bool ran = fused.run(dnn, fused.plans[size_t(fusedPlan)], da, db, dbias,
                             dfused, workspace, stream);
        check(cudaStreamSynchronize(stream), "cudnn");
        if (ran)
          fusedDiff = compare(download(dfused, yCount), reference);
      }
    }
    Difference tanhDiff = compare(download(dtanh, yCount), reference);

    std::printf("M=%ld N=%ld K=%ld: lt+gelu %.2f us (lt %.2f, gelu %.2f; "
                "sampled error %.2e), lt-tanh %.2f us (vs erf: rel-L2 %.2e, "
                "max %.2e), cudnn %s\n",
                s.m, s.n, s.k, ltGeluUs, ltUs, ltGeluUs - ltUs, sampleWorst,
                tanhUs, tanhDiff.relL2, tanhDiff.maxAbs,
                fusedUs >= 0
                    ? (number(fusedUs) + " us (config " +
                       std::to_string(fused.plans[size_t(fusedPlan)].rank) +
                       " of heuristics A; " +
                       std::to_string(fused.plans.size()) +
                       " plans; vs lt+gelu rel-L2 " + number(fusedDiff.relL2) +
                       ", max " + number(fusedDiff.maxAbs) + ")")
                          .c_str()
                    : ("none: " + fused.problem).c_str());
    json << (index ? ", " : "") << "{\"m\": " << s.m << ", \"n\": " << s.n
         << ", \"k\": " << s.k << ", \"lt_gelu_us\": " << number(ltGeluUs)
         << ", \"lt_us\": " << number(ltUs)
         << ", \"lt_tanh_us\": " << number(tanhUs)
         << ", \"cudnn_fused_us\": " << number(fusedUs)
         << ", \"cudnn_plans_us\": [";
    for (size_t p = 0; p < planUs.size(); ++p)
      json << (p ? ", " : "") << number(planUs[p]);
    json << "], \"cudnn_problem\": \"";
    for (char c : fused.problem)
      json << (c == '"' || c == '\\' ? "'" : std::string(1, c));
    json << "\", \"lt_gelu_sampled_relative_error\": " << number(sampleWorst)
         << ", \"cudnn_vs_lt_gelu_rel_l2\": " << number(fusedDiff.relL2)
         << ", \"cudnn_vs_lt_gelu_max_abs\": " << number(fusedDiff.maxAbs)
         << ", \"tanh_vs_erf_rel_l2\": " << number(tanhDiff.relL2)
         << ", \"tanh_vs_erf_max_abs\": " << number(tanhDiff.maxAbs) << "}";
    for (__half *pointer : {da, db, dbias, dlin, dref, dtanh, dfused})
      cudaFree(pointer);
  }
  json << "]}\n";
  if (!jsonPath.empty()) {
    std::ofstream file(jsonPath);
    file << json.str();
    if (!file)
      die("cannot write " + jsonPath);
  }
  cudaFree(workspace);
  return 0;
}
