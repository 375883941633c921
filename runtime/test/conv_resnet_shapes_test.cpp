// GPU test of the Conv algorithm choice at the shapes where ResNet-50's
// outputs went wrong: every distinct convolution of ResNet-50 at batch 32,
// f16, channels-last, with its bias, residual and relu epilogue as kiln
// fuses it, with the default (legacy) path, both APIs (auto) and the graph
// API forced, on random data; sampled outputs are checked against a
// double-precision host reference, and the session's algorithm log (every
// candidate with its error and time) is printed. On the H200 every case
// passes alone, with every candidate accepted by the gate: the whole-model
// failure needs the model (docs/architecture.md, "Convolution candidates").
#include "candidate_check.h"
#include "conv_artifact.h"
#include "float_formats.h"
#include "host_values.h"
#include "tensor_files.h"
#include "test_util.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>

using namespace kiln::testing;
using namespace kiln::artifact;

namespace {

/// A ResNet-50 convolution at batch 32 (f16, NHWC, bias; relu and residual
/// as given).
ConvShape resnet(const char *name, int64_t c, int64_t hw, int64_t k,
                 int64_t r, int64_t stride, bool residual, bool relu) {
  ConvShape shape{name, 32, c, hw, hw, k, r, r, r / 2, stride, 1, 1, true};
  shape.dtype = DType_F16;
  shape.channelsLast = true;
  shape.residual = residual;
  shape.relu = relu;
  return shape;
}

struct Case {
  ConvShape shape;
  const char *path; // KILN_CONV_PATH, or NULL for both APIs.
};

class ConvResNetShapesTest : public ::testing::TestWithParam<Case> {};

TEST_P(ConvResNetShapesTest, MatchesTheReference) {
  if (!hasCudaDevice())
    GTEST_SKIP() << "no CUDA device";
  const ConvShape &c = GetParam().shape;
  ArtifactBuilder builder;
  buildConvModel(builder.model, c);
  std::vector<uint8_t> bytes = builder.finish();
  kiln_model_t *model = nullptr;
  ASSERT_TRUE(isOk(kiln_model_load_from_memory(bytes.data(), bytes.size(),
                                               nullptr, &model)));
  std::unique_ptr<kiln_model_t, void (*)(kiln_model_t *)> modelOwner(
      model, kiln_model_release);
  kiln_session_t *session = nullptr;
  {
    EnvironmentOverride path("KILN_CONV_PATH", GetParam().path);
    kiln_status_t status = kiln_session_create(model, nullptr, &session);
    if (GetParam().path && status &&
        kiln_status_code(status) == KILN_STATUS_INCOMPATIBLE) {
      // No graph plan at all for this shape: nothing to check on this path.
      std::string message = kiln_status_message(status);
      kiln_status_free(status);
      GTEST_SKIP() << message;
    }
    ASSERT_TRUE(isOk(status));
  }
  std::unique_ptr<kiln_session_t, void (*)(kiln_session_t *)> sessionOwner(
      session, kiln_session_release);
  kiln_step_profile_t step;
  ASSERT_TRUE(isOk(kiln_session_step_profile(session, 0, &step)));
  const char *log = nullptr;
  ASSERT_TRUE(isOk(kiln_session_algorithm_log(session, &log)));
  std::cout << log;

  // Random operands (the same generator as the gate, other seeds), laid out
  // as the step reads them (NHWC), and the reference at sampled outputs.
  int64_t outElements = c.n * c.k * c.outH() * c.outW();
  auto random = [](size_t count, uint64_t seed, double scale) {
    std::vector<float> values(count);
    uint64_t state = seed;
    for (float &value : values) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      value = float((double(state >> 11) * 0x1.0p-53 * 2 - 1) * scale);
    }
    return values;
  };
  std::vector<float> x = random(size_t(c.n * c.c * c.h * c.w), 71, 1.0);
  std::vector<float> w = random(size_t(c.k * c.c * c.r * c.s), 72,
                                1.0 / std::sqrt(double(c.c * c.r * c.s)));
  std::vector<float> bias = random(size_t(c.k), 73, 0.5);
  std::vector<float> z = random(size_t(outElements), 74, 1.0);
  // Round to f16 so that the host computes with what the device holds.
  auto rounded = [&](std::vector<float> values, std::vector<uint8_t> *bytes) {
    *bytes = encode(values, c.dtype);
    for (size_t i = 0; i < values.size(); ++i) {
      uint16_t bits;
      std::memcpy(&bits, &(*bytes)[2 * i], 2);
      values[i] = kiln::runtime::halfToFloat(bits);
    }
    return values;
  };
  std::vector<uint8_t> xBytes, wBytes, biasBytes, zBytes;
  x = rounded(x, &xBytes);
  w = rounded(w, &wBytes);
  bias = rounded(bias, &biasBytes);
  z = rounded(z, &zBytes);
  struct Binding {
    const char *name;
    std::vector<uint8_t> *bytes;
  } inputs[] = {{"x", &xBytes}, {"w", &wBytes}, {"b", &biasBytes},
                {"z", &zBytes}};
  for (const Binding &input : inputs) {
    if (input.bytes == &zBytes && !c.residual)
      continue;
    kiln_tensor_t tensor =
        kiln_host_tensor(input.bytes->data(), input.bytes->size());
    ASSERT_TRUE(isOk(kiln_session_bind_input(session, input.name, &tensor)));
  }
  std::vector<uint8_t> result(size_t(outElements) * 2, 0xff);
  kiln_tensor_t tensor = kiln_host_tensor(result.data(), result.size());
  ASSERT_TRUE(isOk(kiln_session_bind_output(session, "y", &tensor)));
  ASSERT_TRUE(isOk(kiln_session_run(session, nullptr)));
  ASSERT_EQ(cudaStreamSynchronize(nullptr), cudaSuccess);

  // The convolution as a table, which the reference reads.
  ConvT native;
  native.n = c.n, native.c = c.c, native.h = c.h, native.width = c.w;
  native.k = c.k, native.r = c.r, native.s = c.s;
  native.pad_h = native.pad_w = c.pad;
  native.stride_h = native.stride_w = c.stride;
  native.out_h = c.outH(), native.out_w = c.outW();
  native.layout = ConvLayout_NHWC;
  native.activation = c.relu ? ConvActivation_Relu : ConvActivation_None;
  flatbuffers::FlatBufferBuilder table;
  table.Finish(Conv::Pack(table, &native));
  const Conv *conv = flatbuffers::GetRoot<Conv>(table.GetBufferPointer());
  kiln::runtime::ConvOperandValues values{
      x.data(), w.data(), bias.data(), c.residual ? z.data() : nullptr};
  std::vector<size_t> positions =
      kiln::runtime::samplePositions(size_t(outElements), 4096, 75);
  std::vector<float> want, got;
  for (size_t position : positions) {
    want.push_back(float(kiln::runtime::convReferenceAt(*conv, values,
                                                        position)));
    uint16_t bits;
    std::memcpy(&bits, &result[2 * position], 2);
    got.push_back(kiln::runtime::halfToFloat(bits));
  }
  kiln::runtime::Agreement agreement = kiln::runtime::compareValues(
      got.data(), want.data(), got.size(),
      kiln::runtime::toleranceFor(DType_F16, DType_F16, false));
  EXPECT_TRUE(agreement.ok) << c.name << " with " << step.algorithm << ": "
                            << agreement.describe();
}

std::vector<Case> cases() {
  // torchvision's ResNet-50 (v1.5: the stride in the 3x3), every distinct
  // convolution with the epilogue kiln fuses into it.
  const ConvShape shapes[] = {
      resnet("stem", 3, 224, 64, 7, 2, false, true),
      resnet("l1_reduce", 64, 56, 64, 1, 1, false, true),
      resnet("l1_3x3", 64, 56, 64, 3, 1, false, true),
      resnet("l1_expand_residual", 64, 56, 256, 1, 1, true, true),
      resnet("l1_downsample", 64, 56, 256, 1, 1, false, false),
      resnet("l1_reduce256", 256, 56, 64, 1, 1, false, true),
      resnet("l2_reduce", 256, 56, 128, 1, 1, false, true),
      resnet("l2_3x3_stride2", 128, 56, 128, 3, 2, false, true),
      resnet("l2_expand_residual", 128, 28, 512, 1, 1, true, true),
      resnet("l2_downsample", 256, 56, 512, 1, 2, false, false),
      resnet("l2_reduce512", 512, 28, 128, 1, 1, false, true),
      resnet("l2_3x3", 128, 28, 128, 3, 1, false, true),
      resnet("l3_reduce", 512, 28, 256, 1, 1, false, true),
      resnet("l3_3x3_stride2", 256, 28, 256, 3, 2, false, true),
      resnet("l3_expand_residual", 256, 14, 1024, 1, 1, true, true),
      resnet("l3_downsample", 512, 28, 1024, 1, 2, false, false),
      resnet("l3_reduce1024", 1024, 14, 256, 1, 1, false, true),
      resnet("l3_3x3", 256, 14, 256, 3, 1, false, true),
      resnet("l4_reduce", 1024, 14, 512, 1, 1, false, true),
      resnet("l4_3x3_stride2", 512, 14, 512, 3, 2, false, true),
      resnet("l4_expand_residual", 512, 7, 2048, 1, 1, true, true),
      resnet("l4_downsample", 1024, 14, 2048, 1, 2, false, false),
      resnet("l4_reduce2048", 2048, 7, 512, 1, 1, false, true),
      resnet("l4_3x3", 512, 7, 512, 3, 1, false, true),
  };
  std::vector<Case> all;
  for (const ConvShape &shape : shapes) {
    all.push_back({shape, nullptr});
    all.push_back({shape, "auto"});
    all.push_back({shape, "graph"});
  }
  return all;
}

std::string caseName(const ::testing::TestParamInfo<Case> &info) {
  return std::string(info.param.shape.name) + "_" +
         (info.param.path ? info.param.path : "default");
}

INSTANTIATE_TEST_SUITE_P(Batch32, ConvResNetShapesTest,
                         ::testing::ValuesIn(cases()), caseName);

} // namespace
