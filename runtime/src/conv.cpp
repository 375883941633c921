// Conv steps through cuDNN: the legacy convolution API's NCHW or NHWC
// descriptors (groups; bias by cudnnAddTensor or, with a residual/relu
// epilogue, everything in one cudnnConvolutionBiasActivationForward), or
// the chosen graph-API plan (conv_graph.h). conv_choice.cpp chooses.
#include "conv.h"
#include "status.h"

#include <cstring>
#include <sstream>
#include <string>

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

kiln_status_t parseConvPath(const char *text, ConvPath *path) {
  *path = ConvPath::Legacy; // The default (conv.h says why).
  if (!text || !*text)
    return nullptr;
  if (std::strcmp(text, "auto") == 0) {
    *path = ConvPath::Any;
    return nullptr;
  }
  if (std::strcmp(text, "legacy") == 0) {
    *path = ConvPath::Legacy;
    return nullptr;
  }
  if (std::strcmp(text, "graph") == 0) {
    *path = ConvPath::Graph;
    return nullptr;
  }
  return Error(KILN_STATUS_INVALID_ARGUMENT)
         << "KILN_CONV_PATH is '" << text
         << "'; it must be legacy, graph or auto (or unset: legacy)";
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
  convTable = &conv;
  operandType = dtype;
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
  graphShape = ConvGraphShape::of(conv, dtype);
  std::ostringstream key;
  key << conv.n() << ',' << conv.c() << ',' << conv.h() << ',' << conv.width()
      << ',' << conv.k() << ',' << conv.r() << ',' << conv.s() << ",p"
      << conv.pad_h() << ',' << conv.pad_w() << ",s" << conv.stride_h() << ','
      << conv.stride_w() << ",d" << conv.dilation_h() << ','
      << conv.dilation_w() << ",g" << conv.groups() << ",o" << conv.out_h()
      << ',' << conv.out_w() << ",l" << int(conv.layout()) << ",t" << int(dtype)
      << ",b" << (conv.bias() >= 0) << hasResidual << int(conv.activation())
      << conv.allow_tf32();
  identity = key.str();
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
  mathType = dtype == DType_F32
                 ? (keepFmaMath ? CUDNN_FMA_MATH : CUDNN_DEFAULT_MATH)
                 : CUDNN_TENSOR_OP_MATH;
  KILN_RETURN_IF_ERROR(
      cudnnStatus(cudnnSetConvolutionMathType(convDesc, mathType),
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
  if (graph)
    return graph->execute(handle, 0, pointers, workspace);
  return run(handle, pointers, algorithm, algorithmWorkspace, fused,
             workspace);
}

} // namespace kiln::runtime
