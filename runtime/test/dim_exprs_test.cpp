// Tests of run-time extents (format version 3): parsing and
// evaluating extent expressions, the validator's checks of ranges, dim
// expressions and launches with a run-time element count, and the run-time
// shapes a session keeps (range checks, shapes, bytes, grids).
#include "artifact_builder.h"
#include "artifact_reader.h"
#include "dim_exprs.h"
#include "run_time_shapes.h"
#include "test_util.h"

#include "kiln/artifact_format.h"

#include <functional>

using namespace kiln::testing;
using namespace kiln::runtime;
using namespace kiln::artifact;

namespace {

TEST(DimExpressionTest, ParsesAndEvaluatesTheCompilersPrintedForm) {
  std::vector<std::string> names = {"batch", "seq", "a b"};
  std::string why;
  std::optional<DimExpression> expression =
      DimExpression::parse("batch*seq*12 + seq - 1", names, &why);
  ASSERT_TRUE(expression) << why;
  EXPECT_EQ(expression->evaluate({2, 77, 1}), 2 * 77 * 12 + 77 - 1);
  EXPECT_EQ(expression->dimsUsed(), (std::vector<uint32_t>{0, 1}));
  std::optional<DimExpression> quoted =
      DimExpression::parse("-\"a b\"*2 + 10", names, &why);
  ASSERT_TRUE(quoted) << why;
  EXPECT_EQ(quoted->evaluate({1, 1, 3}), 4);
  EXPECT_EQ(DimExpression::parse("768", names, &why)->evaluate({}), 768);
  // Overflow is no value, never a wrong one.
  EXPECT_FALSE(DimExpression::parse("batch*4611686018427387904", names, &why)
                   ->evaluate({4, 1, 1}));
}

TEST(DimExpressionTest, RejectsMalformedTextAndUnknownNames) {
  std::vector<std::string> names = {"batch"};
  std::string why;
  EXPECT_FALSE(DimExpression::parse("batch*", names, &why));
  EXPECT_EQ(why, "a factor is missing");
  EXPECT_FALSE(DimExpression::parse("seq + 1", names, &why));
  EXPECT_EQ(why, "'seq' is not a ranged dim");
  EXPECT_FALSE(DimExpression::parse("batch / 2", names, &why));
  EXPECT_EQ(why, "unexpected '/'");
  EXPECT_FALSE(DimExpression::parse("\"batch", names, &why));
  EXPECT_FALSE(DimExpression::parse("99999999999999999999", names, &why));
}

/// The sample with a ranged batch (1..4; the sample's 4 rows are its
/// maximum): x, h and y take their dim 0 from it, the Gemm its M and the
/// launch its count.
void makeRanged(ModelT &model) {
  model.format_version = kDynamicShapesFormatVersion;
  auto range = std::make_unique<DimRangeT>();
  range->name = "batch";
  range->lo = 1;
  range->hi = 4;
  range->opt = 2;
  model.dim_ranges.push_back(std::move(range));
  EntryPointT &entry = *model.entry_points[0];
  for (auto &buffer : entry.buffers)
    if (buffer->kind != BufferKind_Weight && buffer->shape.size() == 2 &&
        buffer->shape[0] == kSampleM)
      buffer->dim_exprs = {"batch", std::to_string(buffer->shape[1])};
  for (auto *list : {&entry.inputs, &entry.outputs})
    for (auto &tensor : *list)
      tensor->dim_exprs = entry.buffers[tensor->buffer]->dim_exprs;
  for (auto &step : entry.steps)
    if (step->gemm)
      step->gemm->m_expr = "batch";
  auto extents = std::make_unique<LaunchExtentsT>();
  extents->element_count = "batch*16";
  extents->dim_args = {"batch"};
  extents->units_per_block = 256;
  entry.steps.back()->run_time_extents = std::move(extents);
}

kiln_status_t readRanged(const std::function<void(ModelT &)> &mutate) {
  ArtifactBuilder builder;
  buildSample(builder);
  makeRanged(builder.model);
  mutate(builder.model);
  std::vector<uint8_t> bytes = builder.finish(builder.model.format_version);
  Artifact artifact;
  return readArtifact(bytes.data(), bytes.size(), "test.kiln", &artifact);
}

EntryPointT &entry(ModelT &model) { return *model.entry_points[0]; }
LaunchExtentsT &launch(ModelT &model) {
  return *entry(model).steps.back()->run_time_extents;
}
BufferT &input(ModelT &model) {
  return *entry(model).buffers[entry(model).inputs[0]->buffer];
}

TEST(DimExprsManifestTest, RangedSampleIsValid) {
  EXPECT_TRUE(isOk(readRanged([](ModelT &) {})));
}

TEST(DimExprsManifestTest, RangesMatchTheFormatVersion) {
  EXPECT_TRUE(isError(readRanged([](ModelT &m) { m.dim_ranges.clear(); }),
                      KILN_STATUS_DATA_LOSS,
                      "format 3 without ranged dims"));
  EXPECT_TRUE(isError(readRanged([](ModelT &m) {
                        m.dim_ranges[0]->lo = 3;
                      }),
                      KILN_STATUS_DATA_LOSS,
                      "ranged dim 'batch': 3..4:2 is not 1 <= lo <= opt <= "
                      "hi"));
  EXPECT_TRUE(isError(readRanged([](ModelT &m) {
                        m.dim_ranges[0]->name = "";
                      }),
                      KILN_STATUS_DATA_LOSS, "ranged dim 0 has no name"));
}

TEST(DimExprsManifestTest, RejectsMalformedExpressionsAndUnknownDims) {
  EXPECT_TRUE(isError(readRanged([](ModelT &m) {
                        input(m).dim_exprs[0] = "batch*";
                      }),
                      KILN_STATUS_DATA_LOSS,
                      "dim 0 'batch*' is not an extent of the ranged dims: a "
                      "factor is missing"));
  EXPECT_TRUE(isError(readRanged([](ModelT &m) {
                        input(m).dim_exprs[0] = "seq";
                      }),
                      KILN_STATUS_DATA_LOSS,
                      "dim 0 'seq' is not an extent of the ranged dims: 'seq' "
                      "is not a ranged dim"));
  // At the range's maximum (4) batch*2 is 8 rows, more than the buffer's 4.
  EXPECT_TRUE(isError(readRanged([](ModelT &m) {
                        input(m).dim_exprs[0] = "batch*2";
                      }),
                      KILN_STATUS_DATA_LOSS,
                      "dim 0 'batch*2' does not fit its size 4"));
  EXPECT_TRUE(isError(readRanged([](ModelT &m) {
                        input(m).dim_exprs[1] = "7";
                      }),
                      KILN_STATUS_DATA_LOSS, "dim 1 '7' does not fit"));
  EXPECT_TRUE(isError(readRanged([](ModelT &m) {
                        input(m).dim_exprs.pop_back();
                      }),
                      KILN_STATUS_DATA_LOSS, "1 dim expressions for 2 dims"));
}

TEST(DimExprsManifestTest, ChecksLaunchCounts) {
  EXPECT_TRUE(isError(readRanged([](ModelT &m) {
                        launch(m).element_count = "batch*16 +";
                      }),
                      KILN_STATUS_DATA_LOSS,
                      "element_count 'batch*16 +' is not an extent"));
  EXPECT_TRUE(isError(readRanged([](ModelT &m) { launch(m).dim_args = {}; }),
                      KILN_STATUS_DATA_LOSS,
                      "dim_args do not hold every ranged dim element_count "
                      "'batch*16' names"));
  EXPECT_TRUE(isError(readRanged([](ModelT &m) {
                        launch(m).dim_args = {"batch", "batch"};
                      }),
                      KILN_STATUS_DATA_LOSS,
                      "dim_args are not distinct ranged dims in manifest "
                      "order"));
  EXPECT_TRUE(
      isError(readRanged([](ModelT &m) { launch(m).dim_args = {"seq"}; }),
              KILN_STATUS_DATA_LOSS,
              "dim_args are not distinct ranged dims in manifest "
              "order"));
  EXPECT_TRUE(isError(readRanged([](ModelT &m) {
                        launch(m).units_per_block = 0;
                      }),
                      KILN_STATUS_DATA_LOSS, "units_per_block is 0"));
  EXPECT_TRUE(isError(readRanged([](ModelT &m) {
                        launch(m).element_count = "";
                      }),
                      KILN_STATUS_DATA_LOSS,
                      "run-time extents without an element_count"));
}

/// A bucket of the sample's launch for counts up to |maxCount|, on the
/// step's own kernel.
std::unique_ptr<LaunchBucketT> bucketUpTo(ModelT &model, uint64_t maxCount) {
  auto bucket = std::make_unique<LaunchBucketT>();
  bucket->max_count = maxCount;
  bucket->kernel = entry(model).steps.back()->kernel;
  bucket->grid = 2;
  bucket->block = 64;
  bucket->units_per_block = 16;
  return bucket;
}

TEST(DimExprsManifestTest, ChecksLaunchBuckets) {
  EXPECT_TRUE(isOk(readRanged([](ModelT &m) {
    launch(m).buckets.push_back(bucketUpTo(m, 16));
    launch(m).buckets.push_back(bucketUpTo(m, 32));
  })));
  EXPECT_TRUE(isError(readRanged([](ModelT &m) {
                        launch(m).buckets.push_back(bucketUpTo(m, 32));
                        launch(m).buckets.push_back(bucketUpTo(m, 32));
                      }),
                      KILN_STATUS_DATA_LOSS,
                      "bucket 1: max_count 32 is not above the previous "
                      "bucket's"));
  EXPECT_TRUE(isError(readRanged([](ModelT &m) {
                        launch(m).buckets.push_back(bucketUpTo(m, 16));
                        launch(m).buckets.back()->kernel = 99;
                      }),
                      KILN_STATUS_DATA_LOSS,
                      "bucket 0: kernel 99 but there "
                      "are"));
  EXPECT_TRUE(isError(readRanged([](ModelT &m) {
                        launch(m).buckets.push_back(bucketUpTo(m, 16));
                        launch(m).buckets.back()->units_per_block = 0;
                      }),
                      KILN_STATUS_DATA_LOSS,
                      "bucket 0: grid 2, block 64 and 0 units per block"));
  EXPECT_TRUE(isError(readRanged([](ModelT &m) {
                        launch(m).buckets.push_back(bucketUpTo(m, 16));
                        launch(m).buckets.back()->block = 2048;
                      }),
                      KILN_STATUS_DATA_LOSS, "bucket 0: grid 2, block 2048"));
}

GemmT &gemm(ModelT &model) {
  for (auto &step : entry(model).steps)
    if (step->gemm)
      return *step->gemm;
  ADD_FAILURE() << "the sample has no Gemm step";
  return *entry(model).steps.front()->gemm;
}

TEST(DimExprsManifestTest, ChecksLibraryExtents) {
  EXPECT_TRUE(isError(readRanged([](ModelT &m) { gemm(m).m_expr = "batch +"; }),
                      KILN_STATUS_DATA_LOSS,
                      "m_expr 'batch +' is not an extent of the ranged dims"));
  EXPECT_TRUE(isError(readRanged([](ModelT &m) { gemm(m).m_expr = "seq"; }),
                      KILN_STATUS_DATA_LOSS, "'seq' is not a ranged dim"));
  // At the range's maximum (4) batch*2 is 8 rows, not the step's m of 4.
  EXPECT_TRUE(isError(readRanged([](ModelT &m) { gemm(m).m_expr = "batch*2"; }),
                      KILN_STATUS_DATA_LOSS,
                      "m_expr 'batch*2' is not 4 at the ranges' maximum"));
  EXPECT_TRUE(isError(readRanged([](ModelT &m) {
                        gemm(m).batch = 2;
                        gemm(m).m = 2;
                        gemm(m).m_expr = "batch - 2";
                      }),
                      KILN_STATUS_DATA_LOSS,
                      "a gemm with m_expr 'batch - 2' has batch 2"));
}

} // namespace

namespace {

/// The ranged sample's run-time shapes (RunTimeShapes, what a session
/// keeps): range checks, and the shapes, bytes, grid and dim parameters at
/// the values set.
class RunTimeShapesTest : public ::testing::Test {
protected:
  void SetUp() override {
    ArtifactBuilder builder;
    buildSample(builder);
    makeRanged(builder.model);
    bytes = builder.finish(builder.model.format_version);
    ASSERT_TRUE(isOk(readArtifact(bytes.data(), bytes.size(), "test.kiln",
                                  &artifact)));
    const EntryPoint &entry = *artifact.manifest->entry_points()->Get(0);
    ASSERT_TRUE(isOk(RunTimeShapes::create(*artifact.manifest, entry, &shapes)));
    input = entry.inputs()->Get(0)->buffer();
    launch = entry.steps()->size() - 1;
  }
  std::vector<uint8_t> bytes;
  Artifact artifact;
  RunTimeShapes shapes;
  uint32_t input = 0;
  size_t launch = 0;
};

TEST_F(RunTimeShapesTest, StartsAtTheLargestShape) {
  EXPECT_TRUE(shapes.ranged());
  EXPECT_EQ(shapes.values(), std::vector<int64_t>{kSampleM});
  EXPECT_EQ(shapes.outputShape(0), (std::vector<int64_t>{kSampleM, kSampleN}));
  EXPECT_EQ(shapes.bufferBytes(input), uint64_t(kSampleM * kSampleK * 4));
}

TEST_F(RunTimeShapesTest, SetsShapesWithinTheRange) {
  int64_t three[] = {3, kSampleK};
  ASSERT_TRUE(isOk(shapes.setInputShape(0, three, 2)));
  EXPECT_EQ(shapes.inputShape(0), (std::vector<int64_t>{3, kSampleK}));
  EXPECT_EQ(shapes.outputShape(0), (std::vector<int64_t>{3, kSampleN}));
  EXPECT_EQ(shapes.bufferBytes(input), uint64_t(3 * kSampleK * 4));
  EXPECT_TRUE(shapes.hasLaunchExtents(launch));
  EXPECT_FALSE(shapes.hasLaunchExtents(0)); // The Gemm.
  EXPECT_EQ(shapes.launchDims(launch), std::vector<long long>{3});
  EXPECT_EQ(shapes.launchChoice(launch).gridX, 1u); // 48 elements, 256 a block.
  EXPECT_EQ(shapes.launchChoice(launch).bucket, -1);
  EXPECT_EQ(shapes.describeValues(), "batch = 3");
}

TEST(RunTimeShapesBucketsTest, LaunchesTheFirstBucketThatAdmitsTheCount) {
  ArtifactBuilder builder;
  buildSample(builder);
  makeRanged(builder.model);
  // batch*16 elements: batch 1 in the first bucket, 2 in the second, 3 and
  // 4 in the step's own configuration (256 a block, its grid of 1).
  launch(builder.model).buckets.push_back(bucketUpTo(builder.model, 16));
  launch(builder.model).buckets.push_back(bucketUpTo(builder.model, 32));
  launch(builder.model).buckets.back()->units_per_block = 8;
  launch(builder.model).buckets.back()->grid = 3;
  std::vector<uint8_t> bytes = builder.finish(builder.model.format_version);
  Artifact artifact;
  ASSERT_TRUE(
      isOk(readArtifact(bytes.data(), bytes.size(), "test.kiln", &artifact)));
  const EntryPoint &entry = *artifact.manifest->entry_points()->Get(0);
  RunTimeShapes shapes;
  ASSERT_TRUE(isOk(RunTimeShapes::create(*artifact.manifest, entry, &shapes)));
  size_t step = entry.steps()->size() - 1;
  auto at = [&](int64_t batch) {
    int64_t shape[] = {batch, kSampleK};
    EXPECT_TRUE(isOk(shapes.setInputShape(0, shape, 2)));
    RunTimeShapes::LaunchChoice choice = shapes.launchChoice(step);
    return std::make_pair(choice.bucket, choice.gridX);
  };
  EXPECT_EQ(at(1), std::make_pair(0, 1u)); // 16 elements, 16 a block.
  EXPECT_EQ(at(2), std::make_pair(1, 3u)); // 32 elements, 8 a block: 4, capped.
  EXPECT_EQ(at(3), std::make_pair(-1, 1u));
  EXPECT_EQ(at(4), std::make_pair(-1, 1u));
  EXPECT_EQ(shapes.launchChoice(0).bucket, -1); // The Gemm has none.
}

TEST_F(RunTimeShapesTest, RangeViolationsNameTheInputTheDimAndTheRange) {
  int64_t seven[] = {7, kSampleK};
  EXPECT_TRUE(isError(shapes.setInputShape(0, seven, 2),
                      KILN_STATUS_INVALID_ARGUMENT,
                      "input 'x': dim 0 ('batch') is 7, outside its range "
                      "1..4"));
  int64_t zero[] = {0, kSampleK};
  EXPECT_TRUE(isError(shapes.setInputShape(0, zero, 2),
                      KILN_STATUS_INVALID_ARGUMENT,
                      "dim 0 ('batch') is 0, outside its range 1..4"));
  int64_t wide[] = {3, 9};
  EXPECT_TRUE(isError(shapes.setInputShape(0, wide, 2),
                      KILN_STATUS_INVALID_ARGUMENT,
                      "input 'x': dim 1 is 9 but the artifact's is 8 (at "
                      "batch = 3)"));
  EXPECT_TRUE(isError(shapes.setInputShape(0, seven, 1),
                      KILN_STATUS_INVALID_ARGUMENT,
                      "input 'x': a shape of rank 1 for a tensor of rank 2"));
  // A refused shape changes nothing.
  EXPECT_EQ(shapes.values(), std::vector<int64_t>{kSampleM});
}

} // namespace
