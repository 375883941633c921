// Tests that the manifest validator checks Conv steps: buffer sizes against
// the dims, the output window, dtypes, read-only outputs and the fused
// epilogue.
#include "artifact_reader.h"
#include "conv_artifact.h"
#include "test_util.h"

#include <functional>

using namespace kiln::testing;
using namespace kiln::runtime;
using namespace kiln::artifact;

namespace {

const ConvShape kShape{"sample", 2, 8, 9, 7, 16, 3, 3, 1, 1, 1, 1, true};

/// Builds the one-conv model, lets |mutate| damage it, and reads it.
kiln_status_t readMutated(const std::function<void(ModelT &)> &mutate,
                          const ConvShape &shape = kShape) {
  ArtifactBuilder builder;
  buildConvModel(builder.model, shape);
  mutate(builder.model);
  std::vector<uint8_t> bytes = builder.finish();
  Artifact artifact;
  return readArtifact(bytes.data(), bytes.size(), "conv.kiln", &artifact);
}

ConvT &conv(ModelT &model) { return *model.entry_points[0]->steps[0]->conv; }

TEST(ConvManifestTest, SamplesAreValid) {
  EXPECT_TRUE(isOk(readMutated([](ModelT &) {})));
  ConvShape grouped{"grouped", 1, 16, 12, 12, 16, 3, 3, 1, 2, 1, 16, false};
  EXPECT_TRUE(isOk(readMutated([](ModelT &) {}, grouped)));
  ConvShape half = kShape;
  half.dtype = DType_F16;
  EXPECT_TRUE(isOk(readMutated([](ModelT &) {}, half)));
}

TEST(ConvManifestTest, StepWithoutConv) {
  EXPECT_TRUE(isError(
      readMutated([](ModelT &m) { m.entry_points[0]->steps[0]->conv.reset(); }),
      KILN_STATUS_DATA_LOSS,
      "step 0 ('conv_sample'): a Conv step without conv"));
}

TEST(ConvManifestTest, Sizes) {
  EXPECT_TRUE(isError(readMutated([](ModelT &m) { conv(m).k = 0; }),
                      KILN_STATUS_DATA_LOSS, "invalid conv sizes"));
  EXPECT_TRUE(isError(readMutated([](ModelT &m) { conv(m).groups = 3; }),
                      KILN_STATUS_DATA_LOSS, "invalid conv sizes"));
  EXPECT_TRUE(isError(readMutated([](ModelT &m) { conv(m).pad_w = -1; }),
                      KILN_STATUS_DATA_LOSS, "invalid conv sizes"));
  EXPECT_TRUE(isError(readMutated([](ModelT &m) { conv(m).out_h = 8; }),
                      KILN_STATUS_DATA_LOSS,
                      "conv output [8, 7] but the window gives [9, 7]"));
  EXPECT_TRUE(isError(readMutated([](ModelT &m) { conv(m).stride_w = 2; }),
                      KILN_STATUS_DATA_LOSS, "the window gives [9, 4]"));
  EXPECT_TRUE(isError(readMutated([](ModelT &m) {
                        conv(m).n = int64_t(1) << 20;
                        conv(m).c = int64_t(1) << 12;
                      }),
                      KILN_STATUS_DATA_LOSS, "2^31 elements or more"));
}

TEST(ConvManifestTest, BuffersMatchTheDims) {
  // Shapes of the x, w or bias buffers that the dims do not give.
  EXPECT_TRUE(isError(readMutated([](ModelT &m) {
                        conv(m).h = 11;
                        conv(m).out_h = 11;
                      }),
                      KILN_STATUS_DATA_LOSS,
                      "conv x buffer 0 holds 4032 bytes, but the "
                      "convolution's dims give 1232 elements"));
  EXPECT_TRUE(isError(readMutated([](ModelT &m) { conv(m).w = 0; }),
                      KILN_STATUS_DATA_LOSS, "conv w buffer 0 holds"));
  EXPECT_TRUE(isError(readMutated([](ModelT &m) { conv(m).bias = 1; }),
                      KILN_STATUS_DATA_LOSS, "conv bias buffer 1 holds"));
  EXPECT_TRUE(isError(readMutated([](ModelT &m) { conv(m).bias = -2; }),
                      KILN_STATUS_DATA_LOSS, "conv bias buffer -2"));
  EXPECT_TRUE(isError(readMutated([](ModelT &m) { conv(m).x = 40; }),
                      KILN_STATUS_DATA_LOSS,
                      "conv x buffer 40 is not a buffer"));
}

TEST(ConvManifestTest, OutputIsWritable) {
  // Writing an input (x and out the same size with k = c, 1x1, no pad).
  ConvShape square{"square", 1, 4, 5, 5, 4, 1, 1};
  EXPECT_TRUE(isError(readMutated([](ModelT &m) { conv(m).out = 0; }, square),
                      KILN_STATUS_DATA_LOSS,
                      "conv out buffer 0 is an input or weight, which are "
                      "read-only"));
}

TEST(ConvManifestTest, Dtypes) {
  EXPECT_TRUE(isError(readMutated([](ModelT &m) {
                        auto &buffer = *m.entry_points[0]->buffers[2];
                        buffer.dtype = DType_I32; // The bias, same size.
                        m.entry_points[0]->inputs[2]->dtype = DType_I32;
                      }),
                      KILN_STATUS_DATA_LOSS,
                      "conv operands have different dtypes"));
  EXPECT_TRUE(isError(readMutated([](ModelT &m) {
                        for (auto &buffer : m.entry_points[0]->buffers)
                          buffer->dtype = DType_I32;
                        for (auto &tensor : m.entry_points[0]->inputs)
                          tensor->dtype = DType_I32;
                        m.entry_points[0]->outputs[0]->dtype = DType_I32;
                      }),
                      KILN_STATUS_DATA_LOSS,
                      "conv dtype must be f32, f16 or bf16"));
}

TEST(ConvManifestTest, Epilogue) {
  ConvShape fused = kShape;
  fused.residual = fused.relu = true;
  EXPECT_TRUE(isOk(readMutated([](ModelT &) {}, fused)));
  // The residual must be shaped like out (buffer 0 is x) and be a buffer.
  EXPECT_TRUE(isError(readMutated([](ModelT &m) { conv(m).residual = 0; },
                                  fused),
                      KILN_STATUS_DATA_LOSS, "conv residual buffer 0 holds"));
  EXPECT_TRUE(isError(readMutated([](ModelT &m) { conv(m).residual = -3; },
                                  fused),
                      KILN_STATUS_DATA_LOSS,
                      "conv residual buffer -3 is not a buffer"));
  EXPECT_TRUE(isError(
      readMutated([](ModelT &m) {
        conv(m).activation = static_cast<ConvActivation>(7);
      }),
      KILN_STATUS_DATA_LOSS, "unknown conv activation 7"));
  // cuDNN's fused call needs a bias.
  ConvShape noBias = kShape;
  noBias.bias = false;
  noBias.relu = true;
  EXPECT_TRUE(isError(readMutated([](ModelT &) {}, noBias),
                      KILN_STATUS_DATA_LOSS,
                      "a conv with a residual or an activation needs a bias"));
}

} // namespace
