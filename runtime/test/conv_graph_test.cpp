// Unit tests of the cuDNN graph path's pure logic and descriptor building
// (no GPU needed: tensors, the convolution and pointwise operations finalise
// without a handle): NCHW/NHWC strides, declined patterns, KILN_CONV_PATH.
#include "conv.h"
#include "conv_graph_operations.h"
#include "test_util.h"

using namespace kiln::runtime;
using namespace kiln::testing;

namespace {

TEST(ConvGraphLayout, NchwStridesAreRowMajor) {
  GraphTensorLayout layout = graphTensorLayout(false, 2, 3, 5, 7);
  EXPECT_EQ(layout.dims, (std::array<int64_t, 4>{2, 3, 5, 7}));
  EXPECT_EQ(layout.strides, (std::array<int64_t, 4>{105, 35, 7, 1}));
}

TEST(ConvGraphLayout, NhwcKeepsNchwDimsWithChannelsLastStrides) {
  // x [n=2, c=3, h=5, w=7] stored as [2, 5, 7, 3].
  GraphTensorLayout layout = graphTensorLayout(true, 2, 3, 5, 7);
  EXPECT_EQ(layout.dims, (std::array<int64_t, 4>{2, 3, 5, 7}));
  EXPECT_EQ(layout.strides, (std::array<int64_t, 4>{105, 1, 21, 3}));
  // Filter [k=8, c=3, r=3, s=3] stored KRSC.
  GraphTensorLayout filter = graphTensorLayout(true, 8, 3, 3, 3);
  EXPECT_EQ(filter.strides, (std::array<int64_t, 4>{27, 1, 9, 3}));
  // Bias [1, k, 1, 1]: channel stride 1 in both layouts.
  EXPECT_EQ(graphTensorLayout(true, 1, 16, 1, 1).strides[1], 1);
  EXPECT_EQ(graphTensorLayout(false, 1, 16, 1, 1).strides[1], 1);
}

TEST(ConvGraphLayout, EveryElementHasItsOwnOffset) {
  // The strides of both layouts map the dims onto 0..count-1 exactly once.
  for (bool channelsLast : {false, true}) {
    GraphTensorLayout layout = graphTensorLayout(channelsLast, 2, 3, 4, 5);
    std::vector<int> hits(120, 0);
    for (int64_t n = 0; n < 2; ++n)
      for (int64_t c = 0; c < 3; ++c)
        for (int64_t h = 0; h < 4; ++h)
          for (int64_t w = 0; w < 5; ++w)
            ++hits[size_t(n * layout.strides[0] + c * layout.strides[1] +
                          h * layout.strides[2] + w * layout.strides[3])];
    for (int hit : hits)
      EXPECT_EQ(hit, 1) << (channelsLast ? "NHWC" : "NCHW");
  }
}

ConvGraphShape bottleneck() {
  ConvGraphShape shape;
  shape.n = 4;
  shape.c = 64;
  shape.h = shape.w = shape.outH = shape.outW = 14;
  shape.k = 256;
  shape.channelsLast = true;
  shape.bias = shape.residual = shape.relu = true;
  shape.type = CUDNN_DATA_HALF;
  return shape;
}

TEST(ConvGraphOperations, DeclinesGroupedConvolutions) {
  ConvGraphShape shape = bottleneck();
  EXPECT_EQ(graphUnsupportedReason(shape), "");
  shape.groups = 4;
  EXPECT_NE(graphUnsupportedReason(shape).find("groups=4"), std::string::npos);
  ConvOperations operations;
  EXPECT_TRUE(isError(buildConvOperations(shape, &operations),
                      KILN_STATUS_INCOMPATIBLE, "grouped"));
}

int64_t readInt64(const BackendDescriptor &descriptor,
                  cudnnBackendAttributeName_t attribute) {
  int64_t value = -1, count = 0;
  EXPECT_TRUE(isOk(
      descriptor.getAttribute(attribute, CUDNN_TYPE_INT64, 1, &count, &value)));
  return value;
}

TEST(ConvGraphOperations, BuildsConvBiasResidualReluChain) {
  ConvOperations operations;
  ASSERT_TRUE(isOk(buildConvOperations(bottleneck(), &operations)));
  // conv, + bias, + residual, relu.
  EXPECT_EQ(operations.operations.size(), 4u);
  // x, w, bias, residual, then each operation's output: three float
  // virtual tensors and y.
  ASSERT_EQ(operations.tensors.size(), 8u);
  std::vector<int64_t> ids;
  for (const BackendDescriptor &tensor : operations.tensors)
    ids.push_back(readInt64(tensor, CUDNN_ATTR_TENSOR_UNIQUE_ID));
  EXPECT_EQ(
      ids, (std::vector<int64_t>{kGraphX, kGraphW, kGraphBias, kGraphResidual,
                                 kGraphFirstVirtual + 1, kGraphFirstVirtual + 2,
                                 kGraphFirstVirtual + 3, kGraphY}));
  for (size_t i = 0; i < operations.tensors.size(); ++i) {
    bool isVirtual = false;
    cudnnDataType_t type = CUDNN_DATA_INT8;
    int64_t count = 0;
    ASSERT_TRUE(isOk(operations.tensors[i].getAttribute(
        CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &count,
        &isVirtual)));
    ASSERT_TRUE(isOk(operations.tensors[i].getAttribute(
        CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &count, &type)));
    bool intermediate = i >= 4 && i < 7;
    EXPECT_EQ(isVirtual, intermediate) << "tensor " << i;
    EXPECT_EQ(type, intermediate ? CUDNN_DATA_FLOAT : CUDNN_DATA_HALF)
        << "tensor " << i;
  }
  // y: NCHW-ordered dims with NHWC strides.
  int64_t dims[4] = {0}, strides[4] = {0}, count = 0;
  ASSERT_TRUE(isOk(operations.tensors.back().getAttribute(
      CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, 4, &count, dims)));
  ASSERT_EQ(count, 4);
  ASSERT_TRUE(isOk(operations.tensors.back().getAttribute(
      CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, 4, &count, strides)));
  EXPECT_EQ(std::vector<int64_t>(dims, dims + 4),
            (std::vector<int64_t>{4, 256, 14, 14}));
  EXPECT_EQ(std::vector<int64_t>(strides, strides + 4),
            (std::vector<int64_t>{14 * 14 * 256, 1, 14 * 256, 256}));
}

TEST(ConvGraphOperations, ConvAloneWritesYDirectly) {
  ConvGraphShape shape = bottleneck();
  shape.bias = shape.residual = shape.relu = false;
  shape.channelsLast = false;
  shape.type = CUDNN_DATA_FLOAT;
  shape.r = shape.s = 7;
  shape.padH = shape.padW = 3;
  shape.strideH = shape.strideW = 2;
  shape.outH = shape.outW = 7;
  ConvOperations operations;
  ASSERT_TRUE(isOk(buildConvOperations(shape, &operations)));
  EXPECT_EQ(operations.operations.size(), 1u);
  ASSERT_EQ(operations.tensors.size(), 3u);
  EXPECT_EQ(readInt64(operations.tensors[2], CUDNN_ATTR_TENSOR_UNIQUE_ID),
            kGraphY);
  // The convolution descriptor kept the strides and pads.
  int64_t values[2] = {0, 0}, count = 0;
  ASSERT_TRUE(isOk(operations.descriptors[0].getAttribute(
      CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, 2, &count,
      values)));
  EXPECT_EQ(values[0], 2);
  EXPECT_EQ(values[1], 2);
  ASSERT_TRUE(isOk(operations.descriptors[0].getAttribute(
      CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, 2, &count,
      values)));
  EXPECT_EQ(values[0], 3);
}

TEST(ConvPath, ParsesTheEnvironmentValue) {
  ConvPath path = ConvPath::Graph;
  EXPECT_TRUE(isOk(parseConvPath(nullptr, &path)));
  EXPECT_EQ(path, ConvPath::Legacy); // The default.
  EXPECT_TRUE(isOk(parseConvPath("", &path)));
  EXPECT_EQ(path, ConvPath::Legacy);
  EXPECT_TRUE(isOk(parseConvPath("auto", &path)));
  EXPECT_EQ(path, ConvPath::Any);
  EXPECT_TRUE(isOk(parseConvPath("legacy", &path)));
  EXPECT_EQ(path, ConvPath::Legacy);
  EXPECT_TRUE(isOk(parseConvPath("graph", &path)));
  EXPECT_EQ(path, ConvPath::Graph);
  EXPECT_TRUE(isError(parseConvPath("fast", &path),
                      KILN_STATUS_INVALID_ARGUMENT,
                      "KILN_CONV_PATH is 'fast'"));
}

} // namespace
