// Tests that every bad index or size in an otherwise valid manifest is an error
// naming it.
#include "artifact_builder.h"
#include "artifact_reader.h"
#include "kiln/artifact_format.h"
#include "test_util.h"

#include <functional>

using namespace kiln::testing;
using namespace kiln::runtime;
using namespace kiln::artifact;

namespace {

/// Builds the sample, lets |mutate| damage its manifest, and reads it.
kiln_status_t readMutated(const std::function<void(ModelT &)> &mutate,
                          const SampleOptions &options = {}) {
  ArtifactBuilder builder;
  buildSample(builder, options);
  mutate(builder.model);
  std::vector<uint8_t> bytes = builder.finish(builder.model.format_version);
  Artifact artifact;
  return readArtifact(bytes.data(), bytes.size(), "test.kiln", &artifact);
}

EntryPointT &entry(ModelT &model) { return *model.entry_points[0]; }
StepT &launch(ModelT &model) { return *entry(model).steps.back(); }
GemmT &gemm(ModelT &model) { return *entry(model).steps[0]->gemm; }

TEST(ManifestValidatorTest, SampleIsValid) {
  EXPECT_TRUE(isOk(readMutated([](ModelT &) {})));
  SampleOptions streams;
  streams.twoStreams = true;
  EXPECT_TRUE(isOk(readMutated([](ModelT &) {}, streams)));
}

TEST(ManifestValidatorTest, StepIndices) {
  EXPECT_TRUE(isError(readMutated([](ModelT &m) { launch(m).kernel = 5; }),
                      KILN_STATUS_DATA_LOSS,
                      "step 1 ('kernel_scale_add'): kernel 5"));
  EXPECT_TRUE(isError(readMutated([](ModelT &m) {
                        launch(m).args = {3, 99};
                      }),
                      KILN_STATUS_DATA_LOSS,
                      "argument buffer 99 is not a buffer"));
  EXPECT_TRUE(isError(readMutated([](ModelT &m) { launch(m).stream = 1; }),
                      KILN_STATUS_DATA_LOSS, "stream 1"));
  EXPECT_TRUE(isError(readMutated([](ModelT &m) { launch(m).grid = {}; }),
                      KILN_STATUS_DATA_LOSS, "grid must have 1 to 3 dims"));
  EXPECT_TRUE(isError(readMutated([](ModelT &m) {
                        launch(m).block = {64, 0, 1};
                      }),
                      KILN_STATUS_DATA_LOSS, "block[1] = 0"));
  EXPECT_TRUE(isError(readMutated([](ModelT &m) {
                        launch(m).kind = static_cast<StepKind>(42);
                      }),
                      KILN_STATUS_DATA_LOSS, "invalid step kind 42"));
  EXPECT_TRUE(isError(readMutated([](ModelT &m) { launch(m).outputs = 3; }),
                      KILN_STATUS_DATA_LOSS,
                      "3 outputs among 2 kernel arguments"));
  EXPECT_TRUE(isError(readMutated([](ModelT &m) {
                        launch(m).args = {4, 0};
                      }),
                      KILN_STATUS_DATA_LOSS,
                      "output buffer 0 is an input or weight"));
}

TEST(ManifestValidatorTest, EventIndices) {
  SampleOptions streams;
  streams.twoStreams = true;
  EXPECT_TRUE(isError(
      readMutated([](ModelT &m) { entry(m).steps[1]->event = 3; }, streams),
      KILN_STATUS_DATA_LOSS, "event 3 but there are 1"));
  EXPECT_TRUE(isError(
      readMutated([](ModelT &m) { entry(m).num_streams = 1000; }, streams),
      KILN_STATUS_DATA_LOSS, "beyond the runtime's limits"));
}

TEST(ManifestValidatorTest, GemmOperands) {
  EXPECT_TRUE(isError(readMutated([](ModelT &m) { gemm(m).a = 17; }),
                      KILN_STATUS_DATA_LOSS,
                      "gemm a buffer 17 is not a buffer"));
  EXPECT_TRUE(isError(readMutated([](ModelT &m) { gemm(m).k = 9; }),
                      KILN_STATUS_DATA_LOSS, "too few for its 4x9 matrices"));
  EXPECT_TRUE(isError(readMutated([](ModelT &m) {
                        gemm(m).batch = 2;
                        gemm(m).stride_a = 32;
                      }),
                      KILN_STATUS_DATA_LOSS, "gemm a buffer 0"));
  EXPECT_TRUE(isError(readMutated([](ModelT &m) { gemm(m).bias = -1; }),
                      KILN_STATUS_DATA_LOSS, "gemm bias buffer -1"));
  EXPECT_TRUE(isError(readMutated([](ModelT &m) { gemm(m).out = 1; }),
                      KILN_STATUS_DATA_LOSS, "read-only"));
  EXPECT_TRUE(isError(readMutated([](ModelT &m) { gemm(m).m = 0; }),
                      KILN_STATUS_DATA_LOSS, "invalid gemm sizes"));
  EXPECT_TRUE(
      isError(readMutated([](ModelT &m) { entry(m).steps[0]->gemm.reset(); }),
              KILN_STATUS_DATA_LOSS, "a Gemm step without gemm"));
}

// cuBLASLt's dtype combinations: one type throughout, or f16/bf16 a and b
// with an f32 out (a fused cast), whose bias is f32 too.
TEST(ManifestValidatorTest, GemmDTypes) {
  auto halfInputs = [](ModelT &m, DType type) {
    entry(m).buffers[0]->dtype = type;
    entry(m).buffers[0]->bytes /= 2; // The input's exact size.
    entry(m).inputs[0]->dtype = type;
    entry(m).buffers[1]->dtype = type;
    m.weight_buffers[0]->dtype = type;
  };
  EXPECT_TRUE(isOk(readMutated([&](ModelT &m) { halfInputs(m, DType_F16); })));
  EXPECT_TRUE(isOk(readMutated([&](ModelT &m) { halfInputs(m, DType_BF16); })));
  EXPECT_TRUE(isError(
      readMutated([](ModelT &m) { entry(m).buffers[3]->dtype = DType_F16; }),
      KILN_STATUS_DATA_LOSS,
      "step 0 ('gemm_0'): gemm a and b are F32 but out is F16"));
  EXPECT_TRUE(isError(readMutated([&](ModelT &m) {
                        halfInputs(m, DType_F16);
                        entry(m).buffers[3]->dtype = DType_BF16;
                      }),
                      KILN_STATUS_DATA_LOSS,
                      "gemm a and b are F16 but out is BF16"));
  EXPECT_TRUE(isError(readMutated([&](ModelT &m) {
                        halfInputs(m, DType_F16);
                        entry(m).buffers[1]->dtype = DType_F32;
                        m.weight_buffers[0]->dtype = DType_F32;
                      }),
                      KILN_STATUS_DATA_LOSS, "gemm a is F16 but b is F32"));
  EXPECT_TRUE(isError(readMutated([&](ModelT &m) {
                        halfInputs(m, DType_F16);
                        entry(m).buffers[2]->dtype = DType_F16;
                        m.weight_buffers[1]->dtype = DType_F16;
                      }),
                      KILN_STATUS_DATA_LOSS,
                      "gemm bias is F16 but out is F32; with a fused cast"));
}

TEST(ManifestValidatorTest, Buffers) {
  EXPECT_TRUE(
      isError(readMutated([](ModelT &m) { entry(m).buffers[3]->offset = 256; }),
              KILN_STATUS_DATA_LOSS, "outside the 256-byte activation arena"));
  EXPECT_TRUE(isError(
      readMutated([](ModelT &m) { entry(m).buffers[1]->offset = 1 << 20; }),
      KILN_STATUS_DATA_LOSS, "weight arena"));
  EXPECT_TRUE(
      isError(readMutated([](ModelT &m) { entry(m).buffers[0]->io_index = 4; }),
              KILN_STATUS_DATA_LOSS, "io_index 4"));
  EXPECT_TRUE(isError(readMutated([](ModelT &m) {
                        entry(m).buffers[3]->dtype = static_cast<DType>(200);
                      }),
                      KILN_STATUS_DATA_LOSS, "invalid dtype 200"));
  EXPECT_TRUE(isError(readMutated([](ModelT &m) {
                        auto alias = makeBuffer(BufferKind_Alias, {4, 16});
                        alias->alias_of = 5; // Itself.
                        entry(m).buffers.push_back(std::move(alias));
                      }),
                      KILN_STATUS_DATA_LOSS, "cycle"));
  EXPECT_TRUE(isError(readMutated([](ModelT &m) {
                        auto alias = makeBuffer(BufferKind_Alias, {64, 16});
                        alias->alias_of = 3;
                        entry(m).buffers.push_back(std::move(alias));
                      }),
                      KILN_STATUS_DATA_LOSS, "views buffer 3"));
}

// A slice view: an alias of part of a buffer from a 256-byte-aligned offset
// (summed along its alias chain) that must end within the buffer.
TEST(ManifestValidatorTest, SliceViews) {
  auto sliceOf = [](uint32_t viewed, std::vector<int64_t> shape,
                    uint64_t offset) {
    auto alias = makeBuffer(BufferKind_Alias, std::move(shape), offset);
    alias->alias_of = viewed;
    return alias;
  };
  // Slice views are format 4's (kSliceViewsFormatVersion).
  auto views = [&](std::vector<std::unique_ptr<BufferT>> slices) {
    return readMutated([&](ModelT &m) {
      m.format_version = kiln::artifact::kSliceViewsFormatVersion;
      for (auto &slice : slices)
        entry(m).buffers.push_back(std::move(slice));
    });
  };
  auto one = [&](uint32_t viewed, std::vector<int64_t> shape, uint64_t offset) {
    std::vector<std::unique_ptr<BufferT>> slices;
    slices.push_back(sliceOf(viewed, std::move(shape), offset));
    return slices;
  };
  // Buffer 1 is the [8, 16] f32 weight: 512 bytes.
  EXPECT_TRUE(isOk(views(one(1, {4, 16}, 256))));
  EXPECT_TRUE(isError(views(one(1, {4, 16}, 512)), KILN_STATUS_DATA_LOSS,
                      "an alias of 256 bytes at offset 512 views buffer 1 of "
                      "512"));
  EXPECT_TRUE(isError(views(one(1, {1, 16}, 64)), KILN_STATUS_DATA_LOSS,
                      "offset 64 is not a multiple"));
  // Through a chain (buffer 5 the first slice): 256 + 256 bytes in.
  std::vector<std::unique_ptr<BufferT>> chain = one(1, {4, 16}, 256);
  chain.push_back(sliceOf(5, {2, 16}, 256));
  EXPECT_TRUE(isError(views(std::move(chain)), KILN_STATUS_DATA_LOSS,
                      "at offset 512 views buffer 1"));
  EXPECT_TRUE(isError(views(one(1, {1, 16}, uint64_t(1) << 56)),
                      KILN_STATUS_DATA_LOSS, "alias offsets beyond"));
  // A runtime before format 4 would read the view at its buffer's start: a
  // slice view in an older format, or format 4 without one, is damage.
  EXPECT_TRUE(isError(readMutated([&](ModelT &m) {
                        entry(m).buffers.push_back(sliceOf(1, {4, 16}, 256));
                      }),
                      KILN_STATUS_DATA_LOSS,
                      "format 1 with slice views (format 4 has them"));
  EXPECT_TRUE(isError(views({}), KILN_STATUS_DATA_LOSS,
                      "format 4 without slice views"));
  // Format 4 may have bounds-checked kernels (as format 3 may).
  EXPECT_TRUE(isOk(readMutated([&](ModelT &m) {
    m.format_version = kiln::artifact::kSliceViewsFormatVersion;
    m.bounds_checks = true;
    entry(m).buffers.push_back(sliceOf(1, {4, 16}, 256));
  })));
}

TEST(ManifestValidatorTest, Signatures) {
  EXPECT_TRUE(
      isError(readMutated([](ModelT &m) { entry(m).inputs[0]->buffer = 40; }),
              KILN_STATUS_DATA_LOSS, "input 0 ('x'): buffer 40"));
  EXPECT_TRUE(isError(
      readMutated([](ModelT &m) { entry(m).outputs[0]->buffer = 3; }),
      KILN_STATUS_DATA_LOSS, "output 0 ('y'): buffer 3 does not match"));
  EXPECT_TRUE(isError(readMutated([](ModelT &m) {
                        entry(m).inputs[0]->shape = {4, -8};
                      }),
                      KILN_STATUS_DATA_LOSS,
                      "input 0 ('x'): dimension 1 is -8"));
  EXPECT_TRUE(
      isError(readMutated([](ModelT &m) { entry(m).outputs[0]->name = ""; }),
              KILN_STATUS_DATA_LOSS, "duplicate name"));
}

TEST(ManifestValidatorTest, KernelsAndWeights) {
  EXPECT_TRUE(isError(
      readMutated([](ModelT &m) { m.kernels[0]->images[0]->section = 9; }),
      KILN_STATUS_DATA_LOSS, "kernel 0 ('scale_add'): image section 9"));
  EXPECT_TRUE(
      isError(readMutated([](ModelT &m) { m.kernels[0]->ptx_section = 3; }),
              KILN_STATUS_DATA_LOSS, "ptx_section 3"));
  EXPECT_TRUE(
      isError(readMutated([](ModelT &m) { m.kernels[0]->images.clear(); }),
              KILN_STATUS_DATA_LOSS, "neither cubins nor PTX"));
  EXPECT_TRUE(isError(readMutated([](ModelT &m) { m.weights[0]->buffer = 2; }),
                      KILN_STATUS_DATA_LOSS, "weight 0: buffer 2"));
  EXPECT_TRUE(isError(readMutated([](ModelT &m) { m.weights[1]->section = 1; }),
                      KILN_STATUS_DATA_LOSS,
                      "weight 1: section 1 is not a section of 64 bytes"));
  EXPECT_TRUE(
      isError(readMutated([](ModelT &m) { m.weights[1]->section = -1; }),
              KILN_STATUS_DATA_LOSS,
              "neither an inline section nor an external range"));
  EXPECT_TRUE(isError(
      readMutated([](ModelT &m) { m.weight_buffers[1]->offset = 1024; }),
      KILN_STATUS_DATA_LOSS, "weight buffer 1: not a weight inside"));
}

TEST(ManifestValidatorTest, ArenaSizesAreCapped) {
  // Sizes near 2^64 would wrap when rounded up or multiplied per stream.
  EXPECT_TRUE(isError(readMutated([](ModelT &m) {
                        entry(m).activation_arena_bytes = UINT64_MAX;
                      }),
                      KILN_STATUS_DATA_LOSS,
                      "('main'): an activation arena of 18446744073709551615 "
                      "bytes is beyond the runtime's limit"));
  EXPECT_TRUE(isError(readMutated([](ModelT &m) {
                        entry(m).workspace_bytes = UINT64_MAX - 100;
                      }),
                      KILN_STATUS_DATA_LOSS, "a workspace of"));
  EXPECT_TRUE(
      isError(readMutated([](ModelT &m) { m.weight_arena_bytes = UINT64_MAX; }),
              KILN_STATUS_DATA_LOSS, "a weight arena of"));
  EXPECT_TRUE(isError(readMutated([](ModelT &m) {
                        m.weight_arena_bytes = (uint64_t(1) << 48) + 256;
                      }),
                      KILN_STATUS_DATA_LOSS, "beyond the runtime's limit"));
  EXPECT_TRUE(isOk(readMutated(
      [](ModelT &m) { entry(m).workspace_bytes = uint64_t(1) << 48; })));
}

TEST(ManifestValidatorTest, ArenaOffsetsAre256ByteAligned) {
  EXPECT_TRUE(isError(
      readMutated([](ModelT &m) { entry(m).buffers[3]->offset = 16; }),
      KILN_STATUS_DATA_LOSS, "buffer 3: offset 16 is not a multiple of 256"));
  EXPECT_TRUE(isError(
      readMutated([](ModelT &m) { entry(m).buffers[2]->offset = 772; }),
      KILN_STATUS_DATA_LOSS, "buffer 2: offset 772 is not a multiple of 256"));
  EXPECT_TRUE(
      isError(readMutated([](ModelT &m) { m.weight_buffers[1]->offset = 772; }),
              KILN_STATUS_DATA_LOSS,
              "weight buffer 1: offset 772 is not a multiple of 256"));
  // Offsets of inputs and outputs are unused, so not checked.
  EXPECT_TRUE(
      isOk(readMutated([](ModelT &m) { entry(m).buffers[0]->offset = 4; })));
}

// Buffer shapes are checked with checked arithmetic: a negative or huge
// dimension is damage, whatever the bytes field says.
TEST(ManifestValidatorTest, BufferShapes) {
  EXPECT_TRUE(isError(readMutated([](ModelT &m) {
                        entry(m).buffers[3]->shape = {4, -5};
                      }),
                      KILN_STATUS_DATA_LOSS, "buffer 3: dimension 1 is -5"));
  EXPECT_TRUE(isError(
      readMutated([](ModelT &m) { entry(m).buffers[3]->shape = {INT64_MIN}; }),
      KILN_STATUS_DATA_LOSS, "buffer 3: dimension 0 is -9223372036854775808"));
  EXPECT_TRUE(
      isError(readMutated([](ModelT &m) {
                entry(m).buffers[3]->shape = {1 << 30, 1 << 30, 1 << 30};
              }),
              KILN_STATUS_DATA_LOSS,
              "buffer 3: a tensor of more than 281474976710656 bytes"));
  EXPECT_TRUE(isError(readMutated([](ModelT &m) {
                        entry(m).buffers[3]->shape = {4, 17};
                      }),
                      KILN_STATUS_DATA_LOSS,
                      "buffer 3: 256 bytes, but its shape and dtype need 272"));
  EXPECT_TRUE(isError(
      readMutated([](ModelT &m) { m.weight_buffers[1]->shape = {-16}; }),
      KILN_STATUS_DATA_LOSS, "weight buffer 1: dimension 0 is -16"));
}

// CUDA's limits: blocks of at most 1024 x 1024 x 64 and 1024 threads, grids
// of at most (2^31 - 1) x 65535 x 65535.
TEST(ManifestValidatorTest, LaunchGeometryWithinCUDALimits) {
  auto withBlock = [](std::vector<uint32_t> block) {
    return readMutated([&](ModelT &m) { launch(m).block = block; });
  };
  auto withGrid = [](std::vector<uint32_t> grid) {
    return readMutated([&](ModelT &m) { launch(m).grid = grid; });
  };
  EXPECT_TRUE(isOk(withBlock({1024})));
  EXPECT_TRUE(isOk(withBlock({16, 1, 64})));
  EXPECT_TRUE(isError(withBlock({(1u << 31) - 1}), KILN_STATUS_DATA_LOSS,
                      "block[0] = 2147483647 is outside CUDA's range [1, "
                      "1024]"));
  EXPECT_TRUE(
      isError(withBlock({1025}), KILN_STATUS_DATA_LOSS, "block[0] = 1025"));
  EXPECT_TRUE(isError(withBlock({1, 1, 65}), KILN_STATUS_DATA_LOSS,
                      "block[2] = 65 is outside CUDA's range [1, 64]"));
  EXPECT_TRUE(isError(withBlock({64, 32}), KILN_STATUS_DATA_LOSS,
                      "block of 2048 threads is more than CUDA's 1024"));
  EXPECT_TRUE(isOk(withGrid({(1u << 31) - 1, 65535, 65535})));
  EXPECT_TRUE(isError(withGrid({1u << 31}), KILN_STATUS_DATA_LOSS,
                      "grid[0] = 2147483648"));
  EXPECT_TRUE(isError(withGrid({1, 65536}), KILN_STATUS_DATA_LOSS,
                      "grid[1] = 65536 is outside CUDA's range [1, 65535]"));
  EXPECT_TRUE(isError(withGrid({1, 1, 65536}), KILN_STATUS_DATA_LOSS,
                      "grid[2] = 65536"));
}

// The manifest, not a probe of the cubin, gives a kernel's parameter count:
// every launch of one kernel must pass the same number of arguments.
TEST(ManifestValidatorTest, OneArgumentCountPerKernel) {
  ArtifactBuilder builder;
  buildSample(builder);
  Artifact artifact;
  std::vector<uint8_t> bytes = builder.finish();
  ASSERT_TRUE(
      isOk(readArtifact(bytes.data(), bytes.size(), "test.kiln", &artifact)));
  EXPECT_EQ(kernelParameterCounts(*artifact.manifest),
            std::vector<uint32_t>{2});
  EXPECT_TRUE(isError(readMutated([](ModelT &m) {
                        auto again = std::make_unique<StepT>();
                        again->kind = StepKind_Launch;
                        again->kernel = launch(m).kernel;
                        again->grid = launch(m).grid;
                        again->block = launch(m).block;
                        again->args = {3};
                        entry(m).steps.push_back(std::move(again));
                      }),
                      KILN_STATUS_DATA_LOSS,
                      "kernel 0 is launched with 1 arguments here and 2 "
                      "elsewhere"));
}

} // namespace
