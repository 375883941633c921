// A Conv step's tensors and operations in cuDNN's backend API: one
// convolution forward and its pointwise epilogue, every descriptor
// finalised in dependency order (tensors, then the descriptors the
// operations reference, then the operations).
#include "conv_graph_operations.h"
#include "status.h"

namespace kiln::runtime {

using namespace kiln::artifact;

ConvGraphShape ConvGraphShape::of(const Conv &conv, DType dtype) {
  ConvGraphShape shape;
  shape.n = conv.n();
  shape.c = conv.c();
  shape.h = conv.h();
  shape.w = conv.width();
  shape.k = conv.k();
  shape.r = conv.r();
  shape.s = conv.s();
  shape.padH = conv.pad_h();
  shape.padW = conv.pad_w();
  shape.strideH = conv.stride_h();
  shape.strideW = conv.stride_w();
  shape.dilationH = conv.dilation_h();
  shape.dilationW = conv.dilation_w();
  shape.groups = conv.groups();
  shape.outH = conv.out_h();
  shape.outW = conv.out_w();
  shape.channelsLast = conv.layout() == ConvLayout_NHWC;
  shape.bias = conv.bias() >= 0;
  shape.residual = conv.residual() >= 0;
  shape.relu = conv.activation() == ConvActivation_Relu;
  shape.type = dtype == DType_F16    ? CUDNN_DATA_HALF
               : dtype == DType_BF16 ? CUDNN_DATA_BFLOAT16
                                     : CUDNN_DATA_FLOAT;
  return shape;
}

GraphTensorLayout graphTensorLayout(bool channelsLast, int64_t n, int64_t c,
                                    int64_t h, int64_t w) {
  GraphTensorLayout layout;
  layout.dims = {n, c, h, w};
  if (channelsLast) // Memory order N, H, W, C.
    layout.strides = {h * w * c, 1, w * c, c};
  else
    layout.strides = {c * h * w, h * w, w, 1};
  return layout;
}

std::string graphUnsupportedReason(const ConvGraphShape &shape) {
  if (shape.groups != 1)
    return "the graph path builds no grouped convolutions (groups=" +
           std::to_string(shape.groups) + ")";
  if (!shape.bias && (shape.residual || shape.relu))
    return "an epilogue without a bias";
  return "";
}

namespace {
constexpr int64_t kByteAlignment = 16; // Arena offsets: 256; user buffers: 16.

kiln_status_t makeTensor(int64_t id, const GraphTensorLayout &layout,
                         cudnnDataType_t type, bool isVirtual,
                         const std::string &what, BackendDescriptor *tensor) {
  KILN_RETURN_IF_ERROR(
      tensor->create(CUDNN_BACKEND_TENSOR_DESCRIPTOR, "tensor " + what));
  KILN_RETURN_IF_ERROR(tensor->setDataType(CUDNN_ATTR_TENSOR_DATA_TYPE, type));
  KILN_RETURN_IF_ERROR(tensor->set(CUDNN_ATTR_TENSOR_DIMENSIONS,
                                   CUDNN_TYPE_INT64, 4, layout.dims.data()));
  KILN_RETURN_IF_ERROR(tensor->set(CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64,
                                   4, layout.strides.data()));
  KILN_RETURN_IF_ERROR(tensor->setInt64(CUDNN_ATTR_TENSOR_UNIQUE_ID, id));
  KILN_RETURN_IF_ERROR(
      tensor->setInt64(CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, kByteAlignment));
  KILN_RETURN_IF_ERROR(tensor->set(CUDNN_ATTR_TENSOR_IS_VIRTUAL,
                                   CUDNN_TYPE_BOOLEAN, 1, &isVirtual));
  return tensor->finalize();
}

kiln_status_t makeConvolution(const ConvGraphShape &shape,
                              BackendDescriptor *convolution) {
  KILN_RETURN_IF_ERROR(convolution->create(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR,
                                           "the convolution descriptor"));
  KILN_RETURN_IF_ERROR(
      convolution->setInt64(CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, 2));
  // fp32 accumulation for every dtype, as the legacy path.
  KILN_RETURN_IF_ERROR(convolution->setDataType(
      CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_DATA_FLOAT));
  cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION; // ONNX Conv.
  KILN_RETURN_IF_ERROR(convolution->set(CUDNN_ATTR_CONVOLUTION_CONV_MODE,
                                        CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode));
  // ONNX pads are symmetric here (the validator's Conv table has one pad a
  // dim), so pre- and post-paddings are equal.
  KILN_RETURN_IF_ERROR(convolution->setInt64s(
      CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, {shape.padH, shape.padW}));
  KILN_RETURN_IF_ERROR(convolution->setInt64s(
      CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, {shape.padH, shape.padW}));
  KILN_RETURN_IF_ERROR(convolution->setInt64s(
      CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, {shape.strideH, shape.strideW}));
  KILN_RETURN_IF_ERROR(convolution->setInt64s(
      CUDNN_ATTR_CONVOLUTION_DILATIONS, {shape.dilationH, shape.dilationW}));
  return convolution->finalize();
}

} // namespace

kiln_status_t
makePointwiseOperation(cudnnPointwiseMode_t mode, const std::string &what,
                       const BackendDescriptor &x, const BackendDescriptor *b,
                       const BackendDescriptor &y, ConvOperations *operations) {
  BackendDescriptor pointwise;
  KILN_RETURN_IF_ERROR(pointwise.create(CUDNN_BACKEND_POINTWISE_DESCRIPTOR,
                                        "the pointwise descriptor of " + what));
  KILN_RETURN_IF_ERROR(pointwise.set(CUDNN_ATTR_POINTWISE_MODE,
                                     CUDNN_TYPE_POINTWISE_MODE, 1, &mode));
  KILN_RETURN_IF_ERROR(
      pointwise.setDataType(CUDNN_ATTR_POINTWISE_MATH_PREC, CUDNN_DATA_FLOAT));
  KILN_RETURN_IF_ERROR(pointwise.finalize());

  BackendDescriptor operation;
  KILN_RETURN_IF_ERROR(operation.create(
      CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR, "the operation " + what));
  KILN_RETURN_IF_ERROR(operation.setDescriptor(
      CUDNN_ATTR_OPERATION_POINTWISE_PW_DESCRIPTOR, pointwise));
  KILN_RETURN_IF_ERROR(
      operation.setDescriptor(CUDNN_ATTR_OPERATION_POINTWISE_XDESC, x));
  if (b)
    KILN_RETURN_IF_ERROR(
        operation.setDescriptor(CUDNN_ATTR_OPERATION_POINTWISE_BDESC, *b));
  KILN_RETURN_IF_ERROR(
      operation.setDescriptor(CUDNN_ATTR_OPERATION_POINTWISE_YDESC, y));
  // y = op(alpha1 * x, alpha2 * b), both 1.
  const float one = 1.0f;
  KILN_RETURN_IF_ERROR(operation.set(CUDNN_ATTR_OPERATION_POINTWISE_ALPHA1,
                                     CUDNN_TYPE_FLOAT, 1, &one));
  if (b)
    KILN_RETURN_IF_ERROR(operation.set(CUDNN_ATTR_OPERATION_POINTWISE_ALPHA2,
                                       CUDNN_TYPE_FLOAT, 1, &one));
  KILN_RETURN_IF_ERROR(operation.finalize());
  operations->descriptors.push_back(std::move(pointwise));
  operations->operations.push_back(std::move(operation));
  return nullptr;
}

kiln_status_t buildConvOperations(const ConvGraphShape &shape,
                                  ConvOperations *operations) {
  *operations = ConvOperations();
  std::string unsupported = graphUnsupportedReason(shape);
  if (!unsupported.empty())
    return Error(KILN_STATUS_INCOMPATIBLE) << unsupported;
  // Indices into operations->tensors (it grows, so no references are kept).
  std::vector<BackendDescriptor> &tensors = operations->tensors;
  auto addTensor = [&](int64_t id, const GraphTensorLayout &layout,
                       cudnnDataType_t type, bool isVirtual,
                       const std::string &what, size_t *index) {
    *index = tensors.size();
    tensors.emplace_back();
    return makeTensor(id, layout, type, isVirtual, what, &tensors.back());
  };
  GraphTensorLayout outLayout = graphTensorLayout(
      shape.channelsLast, shape.n, shape.k, shape.outH, shape.outW);
  size_t x = 0, w = 0, bias = 0, residual = 0;
  KILN_RETURN_IF_ERROR(addTensor(
      kGraphX,
      graphTensorLayout(shape.channelsLast, shape.n, shape.c, shape.h, shape.w),
      shape.type, false, "x", &x));
  KILN_RETURN_IF_ERROR(
      addTensor(kGraphW,
                graphTensorLayout(shape.channelsLast, shape.k,
                                  shape.c / shape.groups, shape.r, shape.s),
                shape.type, false, "w", &w));
  if (shape.bias)
    KILN_RETURN_IF_ERROR(addTensor(
        kGraphBias, graphTensorLayout(shape.channelsLast, 1, shape.k, 1, 1),
        shape.type, false, "bias", &bias));
  if (shape.residual)
    KILN_RETURN_IF_ERROR(addTensor(kGraphResidual, outLayout, shape.type, false,
                                   "residual", &residual));

  // Each operation writes y when it is the last, else a float virtual
  // tensor the next one reads.
  int stages = 1 + int(shape.bias) + int(shape.residual) + int(shape.relu);
  int stage = 0;
  auto nextOutput = [&](size_t *index) {
    bool last = ++stage == stages;
    return last ? addTensor(kGraphY, outLayout, shape.type, false, "y", index)
                : addTensor(kGraphFirstVirtual + stage, outLayout,
                            CUDNN_DATA_FLOAT, true,
                            "intermediate " + std::to_string(stage), index);
  };

  BackendDescriptor convolution;
  KILN_RETURN_IF_ERROR(makeConvolution(shape, &convolution));
  size_t current = 0;
  KILN_RETURN_IF_ERROR(nextOutput(&current));
  BackendDescriptor conv;
  KILN_RETURN_IF_ERROR(
      conv.create(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR,
                  "the convolution forward operation"));
  KILN_RETURN_IF_ERROR(conv.setDescriptor(
      CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, tensors[x]));
  KILN_RETURN_IF_ERROR(conv.setDescriptor(
      CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, tensors[w]));
  KILN_RETURN_IF_ERROR(conv.setDescriptor(
      CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, tensors[current]));
  KILN_RETURN_IF_ERROR(conv.setDescriptor(
      CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, convolution));
  // y = alpha * conv(x, w) + beta * y: float scalars for float compute.
  const float alpha = 1.0f, beta = 0.0f;
  KILN_RETURN_IF_ERROR(conv.set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA,
                                CUDNN_TYPE_FLOAT, 1, &alpha));
  KILN_RETURN_IF_ERROR(conv.set(CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA,
                                CUDNN_TYPE_FLOAT, 1, &beta));
  KILN_RETURN_IF_ERROR(conv.finalize());
  operations->descriptors.push_back(std::move(convolution));
  operations->operations.push_back(std::move(conv));

  auto addPointwise = [&](cudnnPointwiseMode_t mode, const std::string &what,
                          const size_t *operand) -> kiln_status_t {
    size_t output = 0;
    KILN_RETURN_IF_ERROR(nextOutput(&output));
    KILN_RETURN_IF_ERROR(makePointwiseOperation(
        mode, what, tensors[current], operand ? &tensors[*operand] : nullptr,
        tensors[output], operations));
    current = output;
    return nullptr;
  };
  if (shape.bias)
    KILN_RETURN_IF_ERROR(addPointwise(CUDNN_POINTWISE_ADD, "+ bias", &bias));
  if (shape.residual)
    KILN_RETURN_IF_ERROR(
        addPointwise(CUDNN_POINTWISE_ADD, "+ residual", &residual));
  if (shape.relu)
    KILN_RETURN_IF_ERROR(
        addPointwise(CUDNN_POINTWISE_RELU_FWD, "relu", nullptr));
  return nullptr;
}

} // namespace kiln::runtime
