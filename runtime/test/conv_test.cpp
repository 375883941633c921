// GPU tests of Conv steps through cuDNN: padding, strides, dilation, groups
// (depthwise), bias, the fused relu and residual epilogue, f16/bf16, NHWC,
// and a graph replay with new inputs.
#include "conv_artifact.h"
#include "host_values.h"
#include "tensor_files.h"
#include "test_util.h"

#include <algorithm>
#include <cmath>

using namespace kiln::testing;
using namespace kiln::artifact;

namespace {

/// Values on a 1/8 grid in [-1, 1]: exact in f16 and bf16.
std::vector<float> pattern(size_t count, double phase) {
  std::vector<float> values(count);
  for (size_t i = 0; i < count; ++i)
    values[i] = float(std::round(8 * std::sin(0.37 * double(i) + phase)) / 8);
  return values;
}

/// |values| of NCHW-ordered dims [a, b, c, d] in NHWC order ([a, c, d, b]),
/// or unchanged when |channelsLast| is false.
std::vector<float> laidOut(const std::vector<float> &values, bool channelsLast,
                           int64_t a, int64_t b, int64_t c, int64_t d) {
  if (!channelsLast)
    return values;
  std::vector<float> out(values.size());
  for (int64_t i = 0; i < a; ++i)
    for (int64_t j = 0; j < b; ++j)
      for (int64_t k = 0; k < c; ++k)
        for (int64_t l = 0; l < d; ++l)
          out[((i * c + k) * d + l) * b + j] =
              values[((i * b + j) * c + k) * d + l];
  return out;
}

/// ONNX Conv on the CPU (NCHW, groups, zero padding), then + z and relu
/// when the shape has them, in double.
std::vector<float> reference(const ConvShape &c, const std::vector<float> &x,
                             const std::vector<float> &w,
                             const std::vector<float> &bias,
                             const std::vector<float> &z) {
  int64_t outH = c.outH(), outW = c.outW(), cg = c.c / c.groups,
          kg = c.k / c.groups;
  std::vector<float> out(c.n * c.k * outH * outW);
  for (int64_t n = 0; n < c.n; ++n)
    for (int64_t k = 0; k < c.k; ++k)
      for (int64_t oh = 0; oh < outH; ++oh)
        for (int64_t ow = 0; ow < outW; ++ow) {
          double sum = c.bias ? bias[k] : 0.0;
          int64_t group = k / kg;
          for (int64_t ci = 0; ci < cg; ++ci)
            for (int64_t r = 0; r < c.r; ++r)
              for (int64_t s = 0; s < c.s; ++s) {
                int64_t ih = oh * c.stride - c.pad + r * c.dilation;
                int64_t iw = ow * c.stride - c.pad + s * c.dilation;
                if (ih < 0 || ih >= c.h || iw < 0 || iw >= c.w)
                  continue;
                int64_t channel = group * cg + ci;
                sum += double(x[((n * c.c + channel) * c.h + ih) * c.w + iw]) *
                       w[((k * cg + ci) * c.r + r) * c.s + s];
              }
          size_t at = ((n * c.k + k) * outH + oh) * outW + ow;
          if (c.residual)
            sum += z[at];
          if (c.relu)
            sum = std::max(sum, 0.0);
          out[at] = float(sum);
        }
  return out;
}

class ConvTest : public ::testing::TestWithParam<ConvShape> {};

TEST_P(ConvTest, MatchesTheCpu) {
  if (!hasCudaDevice())
    GTEST_SKIP() << "no CUDA device";
  const ConvShape &c = GetParam();
  ArtifactBuilder builder;
  buildConvModel(builder.model, c);
  std::vector<uint8_t> bytes = builder.finish();
  kiln_model_t *model = nullptr;
  ASSERT_TRUE(isOk(kiln_model_load_from_memory(bytes.data(), bytes.size(),
                                               nullptr, &model)));
  kiln_session_t *session = nullptr;
  ASSERT_TRUE(isOk(kiln_session_create(model, nullptr, &session)));

  std::vector<float> w = pattern(c.k * (c.c / c.groups) * c.r * c.s, 1.0);
  std::vector<float> bias = pattern(c.k, 2.0);
  std::vector<uint8_t> wBytes = encode(laidOut(w, c.channelsLast, c.k,
                                               c.c / c.groups, c.r, c.s),
                                       c.dtype),
                       biasBytes = encode(bias, c.dtype);
  kiln_tensor_t tensor = kiln_host_tensor(wBytes.data(), wBytes.size());
  ASSERT_TRUE(isOk(kiln_session_bind_input(session, "w", &tensor)));
  if (c.bias) {
    tensor = kiln_host_tensor(biasBytes.data(), biasBytes.size());
    ASSERT_TRUE(isOk(kiln_session_bind_input(session, "b", &tensor)));
  }
  int64_t outElements = c.n * c.k * c.outH() * c.outW();
  std::vector<float> z = pattern(outElements, 3.0);
  std::vector<uint8_t> zBytes = encode(
      laidOut(z, c.channelsLast, c.n, c.k, c.outH(), c.outW()), c.dtype);
  if (c.residual) {
    tensor = kiln_host_tensor(zBytes.data(), zBytes.size());
    ASSERT_TRUE(isOk(kiln_session_bind_input(session, "z", &tensor)));
  }
  kiln::run::HostTensor result;
  result.dtype = toApi(c.dtype);
  result.dims = {outElements};
  result.data.assign(outElements * kiln_dtype_size(result.dtype), 0xff);
  tensor = kiln_host_tensor(result.data.data(), result.data.size());
  ASSERT_TRUE(isOk(kiln_session_bind_output(session, "y", &tensor)));

  // Two runs with different x: the second replays the captured graph.
  std::vector<uint8_t> xBytes;
  for (double phase : {0.0, 0.5}) {
    std::vector<float> x = pattern(c.n * c.c * c.h * c.w, phase);
    xBytes = encode(laidOut(x, c.channelsLast, c.n, c.c, c.h, c.w), c.dtype);
    tensor = kiln_host_tensor(xBytes.data(), xBytes.size());
    ASSERT_TRUE(isOk(kiln_session_bind_input(session, "x", &tensor)));
    ASSERT_TRUE(isOk(kiln_session_run(session, nullptr)));
    ASSERT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);
    std::vector<float> expected = laidOut(reference(c, x, w, bias, z),
                                          c.channelsLast, c.n, c.k, c.outH(),
                                          c.outW());
    double tolerance = c.dtype == DType_F32 ? 1e-5 : 1e-2;
    for (int64_t i = 0; i < outElements; ++i)
      ASSERT_NEAR(result.at(i), expected[i],
                  tolerance * (1 + std::fabs(expected[i])))
          << "at " << i << " (run with phase " << phase << ")";
  }
  kiln_session_release(session);
  kiln_model_release(model);
}

ConvShape withDtype(ConvShape shape, const char *name, DType dtype,
                    bool channelsLast = false) {
  shape.name = name;
  shape.dtype = dtype;
  shape.channelsLast = channelsLast;
  return shape;
}

ConvShape withEpilogue(ConvShape shape, const char *name, bool residual) {
  shape.name = name;
  shape.residual = residual;
  shape.relu = true;
  return shape;
}

// name, n, c, h, w, k, r, s, pad, stride, dilation, groups, bias
const ConvShape kResidual3x3{"pad1_bias", 2, 8, 9, 7, 16,  3,
                             3,           1, 1, 1, 1, true};

INSTANTIATE_TEST_SUITE_P(
    Cases, ConvTest,
    ::testing::Values(
        kResidual3x3,
        ConvShape{"stem_7x7_stride2", 2, 3, 23, 20, 8, 7, 7, 3, 2, 1, 1, false},
        ConvShape{"pointwise_1x1", 1, 32, 6, 5, 24, 1, 1, 0, 1, 1, 1, true},
        ConvShape{"grouped_dilated", 2, 8, 11, 10, 12, 3, 3, 2, 1, 2, 4, true},
        ConvShape{"depthwise_stride2", 1, 16, 12, 13, 16, 3, 3, 1, 2, 1, 16,
                  true},
        withDtype(kResidual3x3, "f16", DType_F16),
        withDtype(kResidual3x3, "bf16", DType_BF16),
        withDtype(kResidual3x3, "nhwc_f32", DType_F32, true),
        withDtype(kResidual3x3, "nhwc_f16", DType_F16, true),
        withDtype(ConvShape{"", 2, 3, 23, 20, 8, 7, 7, 3, 2, 1, 1, false},
                  "nhwc_stem_f16", DType_F16, true),
        withDtype(ConvShape{"", 2, 32, 6, 5, 24, 1, 1, 0, 1, 1, 1, true},
                  "nhwc_pointwise_bf16", DType_BF16, true),
        withEpilogue(kResidual3x3, "relu_f32", false),
        withEpilogue(kResidual3x3, "residual_relu_f32", true),
        withEpilogue(withDtype(kResidual3x3, "", DType_F16, true),
                     "nhwc_residual_relu_f16", true),
        withEpilogue(withDtype(kResidual3x3, "", DType_BF16, true),
                     "nhwc_relu_bf16", false),
        withEpilogue(withDtype(ConvShape{"", 4, 64, 14, 14, 256, 1, 1, 0, 1,
                                         1, 1, true},
                               "", DType_F16, true),
                     "nhwc_bottleneck_residual_relu_f16", true)),
    [](const ::testing::TestParamInfo<ConvShape> &info) {
      return std::string(info.param.name);
    });

} // namespace
