#include "probe_support.h"

#include "gpu_timing.h"
#include "status.h"

#include <nvrtc.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>

namespace kiln::probes {

using namespace kiln::runtime;

const char *programName = "kiln-probe";

void die(const std::string &what) {
  std::fprintf(stderr, "%s: %s\n", programName, what.c_str());
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
std::string message(kiln_status_t status) {
  if (!status)
    return "";
  std::string text = kiln_status_message(status);
  kiln_status_free(status);
  return text;
}

std::vector<Shape> parseShapes(const std::string &list) {
  std::vector<Shape> shapes;
  std::stringstream items(list);
  for (std::string item; std::getline(items, item, ',');) {
    Shape s{};
    if (std::sscanf(item.c_str(), "%ld:%ld:%ld", &s.m, &s.n, &s.k) != 3 ||
        s.m <= 0 || s.n <= 0 || s.k <= 0 || s.n % 8 || s.k % 8)
      die("--shapes wants M:N:K, positive, with N and K multiples of 8: " +
          item);
    shapes.push_back(s);
  }
  return shapes;
}

const char *const kTimeCallsUnit =
    "us per call (kiln's candidate timing: median of 7 timings of 5 replays "
    "of a graph of 20 calls, behind a held stream)";

double timeCalls(cudaStream_t stream, const std::function<bool()> &enqueue) {
  constexpr int kCalls = 20;
  for (int i = 0; i < 2; ++i) // Warm up (runtime compilation, lazy loading).
    if (!enqueue() || cudaStreamSynchronize(stream) != cudaSuccess)
      return -1;
  float median = -1;
  kiln_status_t status = timeCandidate(
      stream,
      [&]() -> kiln_status_t {
        for (int i = 0; i < kCalls; ++i)
          if (!enqueue())
            return Error(KILN_STATUS_INTERNAL) << "a call failed";
        return nullptr;
      },
      &median, /*timings=*/7, /*replays=*/5);
  if (status) {
    std::fprintf(stderr, "timing: %s\n", message(status).c_str());
    return -1;
  }
  return median < 0 ? -1 : 1e3 * double(median) / kCalls;
}

Gpu setUpGpu() {
  Gpu gpu;
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::printf("skipped: no CUDA device\n");
    std::exit(3);
  }
  check(cudaGetDeviceProperties(&gpu.properties, 0), "cudaGetDeviceProperties");
  check(cudaStreamCreateWithFlags(&gpu.stream, cudaStreamNonBlocking),
        "cudaStreamCreate");
  check(cublasLtCreate(&gpu.lt), "cublasLtCreate");
  check(cudaMalloc(&gpu.workspace, Gpu::kWorkspace), "cudaMalloc");
  return gpu;
}

__half *deviceHalves(size_t count) {
  __half *pointer = nullptr;
  check(cudaMalloc(&pointer, count * sizeof(__half)), "cudaMalloc");
  return pointer;
}

__half *toDevice(const std::vector<__half> &values) {
  __half *pointer = deviceHalves(values.size());
  check(cudaMemcpy(pointer, values.data(), values.size() * sizeof(__half),
                   cudaMemcpyHostToDevice),
        "upload");
  // A pageable copy may return before it lands, and the probes' streams
  // do not wait for the legacy one.
  check(cudaDeviceSynchronize(), "upload");
  return pointer;
}

void writeJson(const std::string &path, const std::string &text) {
  if (path.empty())
    return;
  std::ofstream file(path);
  file << text;
  if (!file)
    die("cannot write " + path);
}

std::string deviceArch(int *smCount) {
  int device = 0, major = 0, minor = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  check(
      cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device),
      "compute capability");
  check(
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device),
      "compute capability");
  if (smCount)
    check(
        cudaDeviceGetAttribute(smCount, cudaDevAttrMultiProcessorCount, device),
        "multiprocessor count");
  return "sm_" + std::to_string(major) + std::to_string(minor);
}

std::vector<char> compileCubin(const std::string &source, const char *name,
                               const std::string &arch,
                               const std::vector<std::string> &extraOptions,
                               std::string *log) {
  nvrtcProgram program;
  if (nvrtcCreateProgram(&program, source.c_str(), "probe.cu", 0, nullptr,
                         nullptr) != NVRTC_SUCCESS)
    die("nvrtcCreateProgram");
  const char *home = std::getenv("CUDA_HOME");
  std::vector<std::string> options = {
      "--gpu-architecture=" + arch,
      std::string("-I") + (home ? std::string(home) + "/include"
                                : std::string(KILN_CUDA_INCLUDE_DIR)),
      "--std=c++17"};
  options.insert(options.end(), extraOptions.begin(), extraOptions.end());
  std::vector<const char *> pointers;
  for (const std::string &option : options)
    pointers.push_back(option.c_str());
  bool compiled = nvrtcCompileProgram(program, int(pointers.size()),
                                      pointers.data()) == NVRTC_SUCCESS;
  size_t size = 0;
  nvrtcGetProgramLogSize(program, &size);
  std::string text(size, '\0');
  nvrtcGetProgramLog(program, text.data());
  if (!compiled)
    die(std::string(name) + " does not compile: " + text);
  if (log)
    *log = text;
  nvrtcGetCUBINSize(program, &size);
  std::vector<char> cubin(size);
  nvrtcGetCUBIN(program, cubin.data());
  nvrtcDestroyProgram(&program);
  return cubin;
}

cudaKernel_t compileKernel(const std::string &source, const char *name,
                           const std::string &arch,
                           const std::vector<std::string> &extraOptions) {
  std::vector<char> cubin =
      compileCubin(source, name, arch, extraOptions, nullptr);
  cudaLibrary_t library = nullptr; // Kept loaded for the program's life.
  check(cudaLibraryLoadData(&library, cubin.data(), nullptr, nullptr, 0,
                            nullptr, nullptr, 0),
        "cudaLibraryLoadData");
  cudaKernel_t kernel = nullptr;
  check(cudaLibraryGetKernel(&kernel, library, name), "cudaLibraryGetKernel");
  return kernel;
}

namespace {
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

} // namespace

void GeluKernel::build() {
  std::string arch = deviceArch(&smCount);
  kernel = compileKernel(kGeluSource, "gelu_erf", arch);
}

unsigned vectorLoopBlocks(long long vectors, int smCount) {
  return unsigned(std::min<long long>((vectors + 255) / 256, 8ll * smCount));
}

bool GeluKernel::launch(const __half *x, __half *y, int64_t elements,
                        cudaStream_t stream) const {
  long long vectors = elements / 8;
  void *arguments[] = {&x, &y, &vectors};
  return cudaLaunchKernel(static_cast<const void *>(kernel),
                          dim3(vectorLoopBlocks(vectors, smCount)), dim3(256),
                          arguments, 0, stream) == cudaSuccess;
}

Sampled sampledCheck(const Shape &s, const std::vector<__half> &a,
                     const std::vector<__half> &b,
                     const std::vector<__half> &bias,
                     const std::vector<float> &out, bool roundX) {
  Sampled worst;
  size_t count = size_t(s.m * s.n);
  for (size_t t = 0; t < 997; ++t) {
    size_t at = (t * 7919u * 104729u) % count, row = at / size_t(s.n),
           col = at % size_t(s.n);
    double x = __half2float(bias[col]);
    for (int64_t kk = 0; kk < s.k; ++kk)
      x += double(__half2float(a[row * size_t(s.k) + size_t(kk)])) *
           double(__half2float(b[size_t(kk) * size_t(s.n) + col]));
    if (roundX)
      x = __half2float(__float2half_rn(float(x)));
    double erfGelu = 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
    double tanhGelu =
        0.5 * x *
        (1.0 + std::tanh(std::sqrt(2.0 / M_PI) * (x + 0.044715 * x * x * x)));
    worst.erf = std::max(worst.erf, std::fabs(erfGelu - out[at]) /
                                        (std::fabs(erfGelu) + 1e-2));
    worst.tanh = std::max(worst.tanh, std::fabs(tanhGelu - out[at]) /
                                          (std::fabs(tanhGelu) + 1e-2));
    worst.linear =
        std::max(worst.linear, std::fabs(x - out[at]) / (std::fabs(x) + 1e-2));
  }
  return worst;
}

/// Column-major view: cuBLASLt's A is b ([N, K] col-major = b row-major),
/// its B is a, its D out^T.
void LtGemm::build(cublasLtHandle_t handle, const Shape &s,
                   cublasLtEpilogue_t epilogue, size_t workspaceBytes) {
  check(cublasLtMatmulDescCreate(&operation, CUBLAS_COMPUTE_32F, CUDA_R_32F),
        "cublasLtMatmulDescCreate");
  check(cublasLtMatmulDescSetAttribute(operation, CUBLASLT_MATMUL_DESC_EPILOGUE,
                                       &epilogue, sizeof(epilogue)),
        "the epilogue");
  check(cublasLtMatrixLayoutCreate(&la, CUDA_R_16F, s.n, s.k, s.n), "layout b");
  check(cublasLtMatrixLayoutCreate(&lb, CUDA_R_16F, s.k, s.m, s.k), "layout a");
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

bool LtGemm::run(cublasLtHandle_t handle, const cublasLtMatmulAlgo_t &algorithm,
                 const __half *a, const __half *b, const __half *bias,
                 __half *out, void *workspace, size_t workspaceBytes,
                 cudaStream_t stream) {
  if (bias && cublasLtMatmulDescSetAttribute(
                  operation, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias,
                  sizeof(bias)) != CUBLAS_STATUS_SUCCESS)
    return false;
  const float alpha = 1.0f, beta = 0.0f;
  return cublasLtMatmul(handle, operation, &alpha, b, la, a, lb, &beta, out, ld,
                        out, ld, &algorithm, workspace, workspaceBytes,
                        stream) == CUBLAS_STATUS_SUCCESS;
}

double
LtGemm::choose(cudaStream_t stream,
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

std::vector<__half> randomHalves(size_t count, double scale, uint32_t seed) {
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  std::vector<__half> values(count);
  for (__half &value : values)
    value = __float2half_rn(float(uniform(generator) * scale));
  return values;
}

GemmOperands randomGemmOperands(const Shape &s, double biasScale) {
  return {randomHalves(size_t(s.m * s.k), 1.0, 1),
          randomHalves(size_t(s.k * s.n), 1.0 / std::sqrt(double(s.k)), 2),
          randomHalves(size_t(s.n), biasScale, 3)};
}

std::vector<float> download(const __half *device, size_t count,
                            cudaStream_t stream) {
  std::vector<__half> host(count);
  check(cudaMemcpyAsync(host.data(), device, count * sizeof(__half),
                        cudaMemcpyDeviceToHost, stream),
        "download");
  check(cudaStreamSynchronize(stream), "download");
  std::vector<float> values(count);
  for (size_t i = 0; i < count; ++i)
    values[i] = __half2float(host[i]);
  return values;
}

Difference compare(const std::vector<float> &x, const std::vector<float> &ref) {
  double error = 0, norm = 0, worst = 0, worstRelative = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    double d = double(x[i]) - double(ref[i]);
    if (!std::isfinite(d))
      return {};
    error += d * d;
    norm += double(ref[i]) * double(ref[i]);
    worst = std::max(worst, std::fabs(d));
    worstRelative =
        std::max(worstRelative, std::fabs(d) / (std::fabs(ref[i]) + 1e-2));
  }
  return {std::sqrt(error / std::max(norm, 1e-300)), worst, worstRelative};
}

std::string number(double value, bool time) {
  if (!std::isfinite(value) || (time && value < 0))
    return "null";
  std::ostringstream text;
  text.precision(6);
  text << value;
  return text.str();
}

std::string jsonString(const std::string &text) {
  std::string quoted = "\"";
  for (char c : text)
    quoted += c == '"' || c == '\\' ? '\'' : (unsigned char)c < 0x20 ? ' ' : c;
  return quoted + "\"";
}

} // namespace kiln::probes
