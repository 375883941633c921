// Test helper: a one-step cuDNN Conv artifact (see conv_artifact.h).
#include "conv_artifact.h"

#include "kiln/artifact_format.h"

namespace kiln::testing {

using namespace kiln::artifact;

void buildConvModel(ModelT &model, const ConvShape &shape) {
  auto entry = std::make_unique<EntryPointT>();
  entry->name = "main";
  size_t element = shape.dtype == DType_F32 ? 4 : 2;
  auto addTensor = [&](const char *name, std::vector<int64_t> dims,
                       BufferKind kind, uint32_t index) {
    auto buffer = makeBuffer(kind, dims, 0, index);
    buffer->dtype = shape.dtype;
    buffer->bytes = buffer->bytes / 4 * element;
    auto signature = std::make_unique<TensorSignatureT>();
    signature->name = name;
    signature->dtype = shape.dtype;
    signature->shape = dims;
    signature->buffer = entry->buffers.size();
    (kind == BufferKind_Input ? entry->inputs : entry->outputs)
        .push_back(std::move(signature));
    entry->buffers.push_back(std::move(buffer));
    return uint32_t(entry->buffers.size() - 1);
  };
  // Dims [a, b, c, d] in NCHW order, as the layout lays them out.
  auto laidOut = [&](int64_t a, int64_t b, int64_t c, int64_t d) {
    return shape.channelsLast ? std::vector<int64_t>{a, c, d, b}
                              : std::vector<int64_t>{a, b, c, d};
  };
  auto conv = std::make_unique<ConvT>();
  conv->layout = shape.channelsLast ? ConvLayout_NHWC : ConvLayout_NCHW;
  conv->x = addTensor("x", laidOut(shape.n, shape.c, shape.h, shape.w),
                      BufferKind_Input, 0);
  conv->w = addTensor("w",
                      laidOut(shape.k, shape.c / shape.groups, shape.r, shape.s),
                      BufferKind_Input, 1);
  if (shape.bias)
    conv->bias = addTensor("b", {shape.k}, BufferKind_Input, 2);
  if (shape.residual)
    conv->residual = addTensor(
        "z", laidOut(shape.n, shape.k, shape.outH(), shape.outW()),
        BufferKind_Input, shape.bias ? 3 : 2);
  if (shape.relu)
    conv->activation = ConvActivation_Relu;
  conv->out = addTensor("y", laidOut(shape.n, shape.k, shape.outH(), shape.outW()),
                        BufferKind_Output, 0);
  conv->n = shape.n, conv->c = shape.c, conv->h = shape.h,
  conv->width = shape.w;
  conv->k = shape.k, conv->r = shape.r, conv->s = shape.s;
  conv->pad_h = conv->pad_w = shape.pad;
  conv->stride_h = conv->stride_w = shape.stride;
  conv->dilation_h = conv->dilation_w = shape.dilation;
  conv->groups = shape.groups;
  conv->out_h = shape.outH(), conv->out_w = shape.outW();
  entry->num_streams = 1;
  entry->workspace_bytes = 4 << 20;
  auto step = std::make_unique<StepT>();
  step->kind = StepKind_Conv;
  step->name = std::string("conv_") + shape.name;
  step->onnx_nodes = {"/conv/Conv"};
  step->conv = std::move(conv);
  entry->steps.push_back(std::move(step));
  model.entry_points.push_back(std::move(entry));
}

} // namespace kiln::testing
