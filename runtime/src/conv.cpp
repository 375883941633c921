// Conv steps through cuDNN's convolution API: NCHW or NHWC descriptors,
// groups, the fastest algorithm that fits the stream's workspace (timed as
// the step runs), bias by cudnnAddTensor or, with a residual/relu epilogue,
// everything in one cudnnConvolutionBiasActivationForward.
#include "conv.h"
#include "gpu_timing.h"
#include "status.h"

#include <string>
#include <vector>

namespace kiln::runtime {

using namespace kiln::artifact;

ConvPlan::~ConvPlan() {
  for (cudnnTensorDescriptor_t desc : {xDesc, yDesc, biasDesc})
    if (desc)
      cudnnDestroyTensorDescriptor(desc);
  if (wDesc)
    cudnnDestroyFilterDescriptor(wDesc);
  if (activationDesc)
    cudnnDestroyActivationDescriptor(activationDesc);
  if (convDesc)
    cudnnDestroyConvolutionDescriptor(convDesc);
}

static cudnnDataType_t cudnnType(DType dtype) {
  switch (dtype) {
  case DType_F16:
    return CUDNN_DATA_HALF;
  case DType_BF16:
    return CUDNN_DATA_BFLOAT16;
  default:
    return CUDNN_DATA_FLOAT;
  }
}

static kiln_status_t makeTensor(cudnnTensorDescriptor_t *desc,
                                cudnnTensorFormat_t format,
                                cudnnDataType_t type, int64_t n, int64_t c,
                                int64_t h, int64_t w, const char *what) {
  KILN_RETURN_IF_ERROR(cudnnStatus(cudnnCreateTensorDescriptor(desc),
                                   "cudnnCreateTensorDescriptor"));
  return cudnnStatus(cudnnSetTensor4dDescriptor(*desc, format, type, int(n),
                                                int(c), int(h), int(w)),
                     std::string("describing ") + what);
}

kiln_status_t ConvPlan::create(const Conv &conv, DType dtype) {
  cudnnDataType_t type = cudnnType(dtype);
  size_t element = dtypeSize(dtype);
  // The validator bounds every tensor below 2^31 elements.
  operandBytes[0] =
      size_t(conv.n() * conv.c() * conv.h() * conv.width()) * element;
  operandBytes[1] =
      size_t(conv.k() * (conv.c() / conv.groups()) * conv.r() * conv.s()) *
      element;
  operandBytes[2] = conv.bias() >= 0 ? size_t(conv.k()) * element : 0;
  operandBytes[3] =
      size_t(conv.n() * conv.k() * conv.out_h() * conv.out_w()) * element;
  hasResidual = conv.residual() >= 0;
  relu = conv.activation() == ConvActivation_Relu;
  operandBytes[4] = hasResidual ? operandBytes[3] : 0;
  // Dims are given as N, C, H, W (K, C, R, S) in either layout; the format
  // says how they lie in memory.
  cudnnTensorFormat_t format = conv.layout() == ConvLayout_NHWC
                                   ? CUDNN_TENSOR_NHWC
                                   : CUDNN_TENSOR_NCHW;
  KILN_RETURN_IF_ERROR(makeTensor(&xDesc, format, type, conv.n(), conv.c(),
                                  conv.h(), conv.width(), "x"));
  KILN_RETURN_IF_ERROR(makeTensor(&yDesc, format, type, conv.n(), conv.k(),
                                  conv.out_h(), conv.out_w(), "out"));
  if (conv.bias() >= 0)
    KILN_RETURN_IF_ERROR(
        makeTensor(&biasDesc, format, type, 1, conv.k(), 1, 1, "the bias"));
  KILN_RETURN_IF_ERROR(cudnnStatus(cudnnCreateFilterDescriptor(&wDesc),
                                   "cudnnCreateFilterDescriptor"));
  KILN_RETURN_IF_ERROR(cudnnStatus(
      cudnnSetFilter4dDescriptor(wDesc, type, format, int(conv.k()),
                                 int(conv.c() / conv.groups()), int(conv.r()),
                                 int(conv.s())),
      "describing w"));
  KILN_RETURN_IF_ERROR(cudnnStatus(cudnnCreateConvolutionDescriptor(&convDesc),
                                   "cudnnCreateConvolutionDescriptor"));
  // Accumulate in fp32 for every dtype (cuDNN's PSEUDO_HALF/BFLOAT16 configs).
  KILN_RETURN_IF_ERROR(cudnnStatus(
      cudnnSetConvolution2dDescriptor(
          convDesc, int(conv.pad_h()), int(conv.pad_w()), int(conv.stride_h()),
          int(conv.stride_w()), int(conv.dilation_h()), int(conv.dilation_w()),
          CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT),
      "describing the convolution"));
  KILN_RETURN_IF_ERROR(
      cudnnStatus(cudnnSetConvolutionGroupCount(convDesc, int(conv.groups())),
                  "setting the group count"));
  // f32 without TF32 must not use tensor cores (CUDNN_DEFAULT_MATH would).
  keepFmaMath = dtype == DType_F32 && !conv.allow_tf32();
  cudnnMathType_t math =
      dtype == DType_F32 ? (keepFmaMath ? CUDNN_FMA_MATH : CUDNN_DEFAULT_MATH)
                         : CUDNN_TENSOR_OP_MATH;
  KILN_RETURN_IF_ERROR(cudnnStatus(cudnnSetConvolutionMathType(convDesc, math),
                                   "setting the math type"));
  // With a bias, the fused call is a candidate even without an epilogue
  // (IDENTITY activation): it saves cudnnAddTensor's pass over the output.
  if (conv.bias() >= 0) {
    KILN_RETURN_IF_ERROR(
        cudnnStatus(cudnnCreateActivationDescriptor(&activationDesc),
                    "cudnnCreateActivationDescriptor"));
    KILN_RETURN_IF_ERROR(cudnnStatus(
        cudnnSetActivationDescriptor(
            activationDesc,
            relu ? CUDNN_ACTIVATION_RELU : CUDNN_ACTIVATION_IDENTITY,
            CUDNN_PROPAGATE_NAN, 0.0),
        "describing the activation"));
  }
  int n = 0, c = 0, h = 0, w = 0;
  KILN_RETURN_IF_ERROR(cudnnStatus(cudnnGetConvolution2dForwardOutputDim(
                                       convDesc, xDesc, wDesc, &n, &c, &h, &w),
                                   "computing the output shape"));
  if (n != conv.n() || c != conv.k() || h != conv.out_h() || w != conv.out_w())
    return Error(KILN_STATUS_DATA_LOSS)
           << "cuDNN computes an output of [" << n << ", " << c << ", " << h
           << ", " << w << "], the step says [" << conv.n() << ", " << conv.k()
           << ", " << conv.out_h() << ", " << conv.out_w() << "]";
  return nullptr;
}

namespace {
/// How many of cuDNN's ranked algorithms are timed as the step runs.
constexpr int kTimedAlgorithms = 4;

const char *algorithmText(cudnnConvolutionFwdAlgo_t algo) {
  switch (algo) {
  case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM:
    return "implicit_gemm";
  case CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM:
    return "implicit_precomp_gemm";
  case CUDNN_CONVOLUTION_FWD_ALGO_GEMM:
    return "gemm";
  case CUDNN_CONVOLUTION_FWD_ALGO_DIRECT:
    return "direct";
  case CUDNN_CONVOLUTION_FWD_ALGO_FFT:
    return "fft";
  case CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING:
    return "fft_tiling";
  case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD:
    return "winograd";
  case CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED:
    return "winograd_nonfused";
  default:
    return "unknown";
  }
}

} // namespace

std::string ConvPlan::algorithmName() const {
  return std::string(algorithmText(algorithm)) + (fused ? "+fused" : "");
}

kiln_status_t ConvPlan::chooseAlgorithm(cudnnHandle_t handle,
                                        const ConvPointers &scratch,
                                        void *workspace, size_t workspaceBytes,
                                        cudaStream_t stream) {
  KILN_RETURN_IF_ERROR(
      cudnnStatus(cudnnSetStream(handle, stream), "cudnnSetStream"));
  constexpr int kMaxAlgorithms = CUDNN_CONVOLUTION_FWD_ALGO_COUNT;
  cudnnConvolutionFwdAlgoPerf_t results[kMaxAlgorithms];
  int found = 0;
  // Only algorithms that fit the workspace are tried; results come fastest
  // first.
  KILN_RETURN_IF_ERROR(
      cudnnStatus(cudnnFindConvolutionForwardAlgorithmEx(
                      handle, xDesc, scratch.x, wDesc, scratch.w, convDesc,
                      yDesc, scratch.out, kMaxAlgorithms, &found, results,
                      workspaceBytes ? workspace : nullptr, workspaceBytes),
                  "cudnnFindConvolutionForwardAlgorithmEx"));
  std::vector<const cudnnConvolutionFwdAlgoPerf_t *> ranked;
  for (int i = 0; i < found && int(ranked.size()) < kTimedAlgorithms; ++i)
    if (results[i].status == CUDNN_STATUS_SUCCESS &&
        results[i].memory <= workspaceBytes)
      ranked.push_back(&results[i]);
  if (ranked.empty())
    return Error(KILN_STATUS_INCOMPATIBLE)
           << "cuDNN has no algorithm for this convolution within a "
           << workspaceBytes << "-byte workspace";

  // The median GPU time of |perf| run as the step runs, or a negative value
  // when cuDNN refuses it (a fused call it does not support). Replayed from
  // a graph: enqueued directly, a call spends tens of microseconds on the
  // host, which events around it would count (and did: the choice fell on
  // algorithms several times slower on the GPU).
  auto timeOne = [&](const cudnnConvolutionFwdAlgoPerf_t &perf, bool fusedCall,
                     float *median) -> kiln_status_t {
    *median = -1;
    // IDENTITY (no relu: the bias, and the residual if any) fuses only in
    // the precomputed implicit GEMM.
    if (fusedCall && !relu &&
        perf.algo != CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM)
      return nullptr;
    if (!keepFmaMath)
      KILN_RETURN_IF_ERROR(
          cudnnStatus(cudnnSetConvolutionMathType(convDesc, perf.mathType),
                      "setting the math type"));
    if (kiln_status_t refused =
            run(handle, scratch, perf.algo, perf.memory, fusedCall, workspace)) {
      kiln_status_free(refused); // Not this algorithm; the next may do.
      return nullptr;
    }
    return timeCandidate(stream, [&] {
      return run(handle, scratch, perf.algo, perf.memory, fusedCall,
                 workspace);
    }, median);
  };
  const cudnnConvolutionFwdAlgoPerf_t *best = nullptr;
  float bestTime = 0;
  // Every candidate fused (when there is a bias) and unfused; the fastest
  // wins, fused first on ties.
  for (bool fusedCall : {true, false}) {
    if (fusedCall && !activationDesc)
      continue;
    for (const cudnnConvolutionFwdAlgoPerf_t *perf : ranked) {
      float time = -1;
      KILN_RETURN_IF_ERROR(timeOne(*perf, fusedCall, &time));
      if (time >= 0 && (!best || time < bestTime)) {
        best = perf;
        bestTime = time;
        fused = fusedCall;
      }
    }
  }
  if (!best)
    return Error(KILN_STATUS_INCOMPATIBLE)
           << "no cuDNN algorithm runs this convolution";
  algorithm = best->algo;
  algorithmWorkspace = best->memory;
  // Keep the math type the timing used (tensor cores or not), except that
  // f32 without TF32 stays on FMA.
  if (!keepFmaMath)
    KILN_RETURN_IF_ERROR(
        cudnnStatus(cudnnSetConvolutionMathType(convDesc, best->mathType),
                    "setting the chosen math type"));
  KILN_RETURN_IF_ERROR(
      enqueue(handle, scratch, workspace, workspaceBytes, stream));
  return cudaStatus(cudaStreamSynchronize(stream),
                    "running the chosen convolution algorithm");
}

kiln_status_t ConvPlan::run(cudnnHandle_t handle, const ConvPointers &pointers,
                            cudnnConvolutionFwdAlgo_t algo,
                            size_t algoWorkspace, bool fusedCall,
                            void *workspace) const {
  const float one = 1.0f, zero = 0.0f;
  void *scratch = algoWorkspace ? workspace : nullptr;
  if (fusedCall)
    // y = act(conv(x) + alpha2 * z + bias); without a residual z is y,
    // scaled by 0.
    return cudnnStatus(
        cudnnConvolutionBiasActivationForward(
            handle, &one, xDesc, pointers.x, wDesc, pointers.w, convDesc, algo,
            scratch, algoWorkspace, hasResidual ? &one : &zero, yDesc,
            hasResidual ? pointers.residual : pointers.out, biasDesc,
            pointers.bias, activationDesc, yDesc, pointers.out),
        "cudnnConvolutionBiasActivationForward");
  KILN_RETURN_IF_ERROR(cudnnStatus(
      cudnnConvolutionForward(handle, &one, xDesc, pointers.x, wDesc,
                              pointers.w, convDesc, algo, scratch,
                              algoWorkspace, &zero, yDesc, pointers.out),
      "cudnnConvolutionForward"));
  if (biasDesc)
    KILN_RETURN_IF_ERROR(
        cudnnStatus(cudnnAddTensor(handle, &one, biasDesc, pointers.bias, &one,
                                   yDesc, pointers.out),
                    "cudnnAddTensor (bias)"));
  if (hasResidual)
    KILN_RETURN_IF_ERROR(
        cudnnStatus(cudnnAddTensor(handle, &one, yDesc, pointers.residual,
                                   &one, yDesc, pointers.out),
                    "cudnnAddTensor (residual)"));
  if (!relu)
    return nullptr;
  return cudnnStatus(cudnnActivationForward(handle, activationDesc, &one,
                                            yDesc, pointers.out, &zero, yDesc,
                                            pointers.out),
                     "cudnnActivationForward (relu)");
}

kiln_status_t ConvPlan::enqueue(cudnnHandle_t handle,
                                const ConvPointers &pointers, void *workspace,
                                size_t workspaceBytes,
                                cudaStream_t stream) const {
  if (algorithmWorkspace > workspaceBytes)
    return Error(KILN_STATUS_INTERNAL)
           << "the convolution algorithm needs " << algorithmWorkspace
           << " bytes of workspace, the stream has " << workspaceBytes;
  KILN_RETURN_IF_ERROR(
      cudnnStatus(cudnnSetStream(handle, stream), "cudnnSetStream"));
  return run(handle, pointers, algorithm, algorithmWorkspace, fused,
             workspace);
}

} // namespace kiln::runtime
