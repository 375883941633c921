// GPU test of an artifact with run-time extents (format 3, issue 18): one
// ranged artifact (batch 1..64) run at batch 1, 7, 32 and 64 through
// kiln_session_set_input_shape, each output checked against the CPU and
// the rows past the batch left untouched; the range check, the binding
// check and a CUDA graph kept per shape; a cuBLASLt Gemm with a run-time M
// (a plan per batch, kept).
#include "artifact_builder.h"
#include "gpu_kernels.h"
#include "session.h"
#include "test_util.h"

#include "kiln/artifact_format.h"
#include "kiln/runtime.h"

#include <cuda_runtime.h>

#include <cmath>

using namespace kiln::testing;
using namespace kiln::artifact;
using kiln::runtime::GraphStatistics;

namespace {

constexpr int64_t kMaxBatch = 64, kRow = 16;

/// y[batch, 16] = x[batch, 16] * 2 + 1 by ranged_affine, batch in 1..64:8;
/// blocks of 64 threads, so the grid is 1 block at batch 1 and 16 at 64.
/// The artifacts' one ranged dim: batch in 1..kMaxBatch (opt 8).
void addBatchRange(ModelT &model) {
  auto range = std::make_unique<DimRangeT>();
  range->name = "batch";
  range->lo = 1;
  range->hi = kMaxBatch;
  range->opt = 8;
  model.dim_ranges.push_back(std::move(range));
}

/// With |bucket|, the launch has a bucket for batch 1 and 2 (32 elements)
/// that runs ranged_affine_bucket (x * 4 + 1: exact, as x * 2 + 1 is, so that
/// the GPU's fused multiply-add gives the host's result) in blocks of 32.
std::vector<uint8_t> rangedArtifact(bool bucket = false) {
  ArtifactBuilder builder;
  ModelT &model = builder.model;
  model.format_version = kDynamicShapesFormatVersion;
  model.archs = {compiledKernels().arch};
  uint32_t cubin = builder.addSection(
      "cubin:" + compiledKernels().arch + ":ranged_affine",
      std::vector<uint8_t>(compiledKernels().cubin.begin(),
                           compiledKernels().cubin.end()));
  for (const char *symbol : {"ranged_affine", "ranged_affine_bucket"}) {
    auto kernel = std::make_unique<KernelT>();
    kernel->symbol = symbol;
    auto image = std::make_unique<KernelImageT>();
    image->arch = compiledKernels().arch;
    image->section = cubin;
    kernel->images.push_back(std::move(image));
    model.kernels.push_back(std::move(kernel));
  }
  addBatchRange(model);

  auto entry = std::make_unique<EntryPointT>();
  entry->name = "main";
  entry->buffers.push_back(
      makeBuffer(BufferKind_Input, {kMaxBatch, kRow}, 0, 0));
  entry->buffers.push_back(
      makeBuffer(BufferKind_Output, {kMaxBatch, kRow}, 0, 0));
  for (auto &buffer : entry->buffers)
    buffer->dim_exprs = {"batch", std::to_string(kRow)};
  for (auto [name, buffer] : {std::pair<const char *, uint32_t>{"x", 0},
                              std::pair<const char *, uint32_t>{"y", 1}}) {
    auto tensor = std::make_unique<TensorSignatureT>();
    tensor->name = name;
    tensor->dtype = DType_F32;
    tensor->shape = {kMaxBatch, kRow};
    tensor->dim_exprs = {"batch", std::to_string(kRow)};
    tensor->buffer = buffer;
    (buffer == 0 ? entry->inputs : entry->outputs).push_back(std::move(tensor));
  }
  entry->num_streams = 1;
  auto launch = std::make_unique<StepT>();
  launch->kind = StepKind_Launch;
  launch->name = "ranged_affine_0";
  launch->kernel = 0;
  launch->grid = {16, 1, 1}; // At batch 64: 1024 elements / 64.
  launch->block = {64, 1, 1};
  launch->args = {0, 1};
  launch->outputs = 1;
  launch->run_time_extents = std::make_unique<LaunchExtentsT>();
  launch->run_time_extents->element_count = "batch*16";
  launch->run_time_extents->dim_args = {"batch"};
  launch->run_time_extents->units_per_block = 64;
  if (bucket) {
    auto small = std::make_unique<LaunchBucketT>();
    small->max_count = 2 * kRow;
    small->kernel = 1;
    small->grid = 1;
    small->block = 32;
    small->units_per_block = 32;
    launch->run_time_extents->buckets.push_back(std::move(small));
  }
  entry->steps.push_back(std::move(launch));
  model.entry_points.push_back(std::move(entry));
  return builder.finish(kDynamicShapesFormatVersion);
}

/// y[batch, 16] = relu(x[batch, 8] w + bias) * 2 + 1: the sample's
/// cuBLASLt Gemm (BiasRelu) with a run-time M (m_expr "batch") into h,
/// then ranged_affine, batch in 1..64.
std::vector<uint8_t> rangedGemmArtifact() {
  ArtifactBuilder builder;
  SampleOptions options;
  options.arch = compiledKernels().arch;
  options.cubin = compiledKernels().cubin;
  options.kernelSymbol = "ranged_affine";
  buildSample(builder, options);
  ModelT &model = builder.model;
  model.format_version = kDynamicShapesFormatVersion;
  addBatchRange(model);
  EntryPointT &entry = *model.entry_points[0];
  for (uint32_t id : {0u, 3u, 4u}) { // x, h, y: rows of the batch.
    BufferT &buffer = *entry.buffers[id];
    buffer.shape[0] = kMaxBatch;
    buffer.bytes = kMaxBatch * buffer.shape[1] * 4;
    buffer.dim_exprs = {"batch", std::to_string(buffer.shape[1])};
  }
  for (auto *list : {&entry.inputs, &entry.outputs})
    for (auto &tensor : *list) {
      tensor->shape[0] = kMaxBatch;
      tensor->dim_exprs = entry.buffers[tensor->buffer]->dim_exprs;
    }
  entry.activation_arena_bytes = kMaxBatch * kSampleN * 4;
  GemmT &gemm = *entry.steps.front()->gemm;
  gemm.m = kMaxBatch;
  gemm.m_expr = "batch";
  StepT &launch = *entry.steps.back();
  launch.grid = {16, 1, 1};
  launch.run_time_extents = std::make_unique<LaunchExtentsT>();
  launch.run_time_extents->element_count = "batch*16";
  launch.run_time_extents->dim_args = {"batch"};
  launch.run_time_extents->units_per_block = 64;
  return builder.finish(kDynamicShapesFormatVersion);
}

/// Runs |session| at |batch| rows: sets x's shape (rows of |inRow|), copies
/// |input| to |x|, fills |y| (rows of |outRow|, kMaxBatch of them) with NaN,
/// binds both at the batch's bytes, runs and reads all of |y| back.
::testing::AssertionResult
runBatch(kiln_session_t *session, cudaStream_t stream, float *x, float *y,
         int64_t batch, int64_t inRow, int64_t outRow,
         const std::vector<float> &input, std::vector<float> *result) {
  int64_t shape[] = {batch, inRow};
  result->assign(kMaxBatch * outRow, 0.0f);
  kiln_tensor_t in = kiln_device_tensor(x, batch * inRow * sizeof(float));
  kiln_tensor_t out = kiln_device_tensor(y, batch * outRow * sizeof(float));
  if (!isOk(kiln_session_set_input_shape(session, "x", shape, 2)) ||
      cudaMemcpy(x, input.data(), batch * inRow * sizeof(float),
                 cudaMemcpyHostToDevice) != cudaSuccess ||
      cudaMemset(y, 0xff, result->size() * sizeof(float)) != cudaSuccess ||
      !isOk(kiln_session_bind_input(session, "x", &in)) ||
      !isOk(kiln_session_bind_output(session, "y", &out)) ||
      !isOk(kiln_session_run(session, stream)) ||
      cudaStreamSynchronize(stream) != cudaSuccess ||
      cudaMemcpy(result->data(), y, result->size() * sizeof(float),
                 cudaMemcpyDeviceToHost) != cudaSuccess)
    return ::testing::AssertionFailure()
           << "the run at batch " << batch << " failed";
  return ::testing::AssertionSuccess();
}

class RunTimeExtentsGPUTest : public ::testing::Test {
protected:
  void SetUp() override {
    if (!hasCudaDevice())
      GTEST_SKIP() << "no CUDA device";
    ASSERT_TRUE(compiledKernels().error.empty()) << compiledKernels().error;
    std::vector<uint8_t> bytes = rangedArtifact();
    ASSERT_TRUE(isOk(kiln_model_load_from_memory(bytes.data(), bytes.size(),
                                                 nullptr, &model)));
    ASSERT_TRUE(isOk(kiln_session_create(model, nullptr, &session)));
    ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
    size_t largest = kMaxBatch * kRow * sizeof(float);
    ASSERT_EQ(cudaMalloc(&x, largest), cudaSuccess);
    ASSERT_EQ(cudaMalloc(&y, largest), cudaSuccess);
  }
  void TearDown() override {
    cudaFree(x);
    cudaFree(y);
    if (stream)
      cudaStreamDestroy(stream);
    kiln_session_release(session);
    kiln_model_release(model);
  }
  kiln_status_t bind(int64_t rows) {
    size_t bytes = rows * kRow * sizeof(float);
    kiln_tensor_t in = kiln_device_tensor(x, bytes);
    kiln_tensor_t out = kiln_device_tensor(y, bytes);
    kiln_status_t status = kiln_session_bind_input(session, "x", &in);
    return status ? status : kiln_session_bind_output(session, "y", &out);
  }

  kiln_model_t *model = nullptr;
  kiln_session_t *session = nullptr;
  cudaStream_t stream = nullptr;
  float *x = nullptr, *y = nullptr;
};

TEST_F(RunTimeExtentsGPUTest, RunsOneArtifactAtEveryBatch) {
  int captures = 0;
  for (int64_t batch : {1, 7, 32, 64, 7}) {
    SCOPED_TRACE("batch " + std::to_string(batch));
    int64_t shape[] = {batch, kRow};
    ASSERT_TRUE(isOk(kiln_session_set_input_shape(session, "x", shape, 2)));
    int64_t out[2] = {0, 0};
    size_t rank = 0;
    ASSERT_TRUE(isOk(kiln_session_tensor_shape(session, "y", out, 2, &rank)));
    EXPECT_EQ(rank, 2u);
    EXPECT_EQ(out[0], batch);
    EXPECT_EQ(out[1], kRow);
    std::vector<float> input(kMaxBatch * kRow), result;
    for (size_t i = 0; i < input.size(); ++i)
      input[i] = std::sin(0.37f * float(i) + float(batch)) * 1.5f;
    ASSERT_TRUE(
        runBatch(session, stream, x, y, batch, kRow, kRow, input, &result));
    for (int64_t i = 0; i < batch * kRow; ++i)
      ASSERT_EQ(result[i], input[i] * 2.0f + 1.0f) << "element " << i;
    for (int64_t i = batch * kRow; i < kMaxBatch * kRow; ++i)
      ASSERT_TRUE(std::isnan(result[i])) << "element " << i << " past the batch";
    ++captures;
  }
  // A graph per shape: the last run, back at batch 7, replays the graph
  // captured for it (the cache keeps 16 shapes).
  EXPECT_EQ(session->graphStatistics.captures, captures - 1);
  EXPECT_EQ(session->graphStatistics.instantiations, captures - 1);
  EXPECT_EQ(session->graphStatistics.launches, captures);
}

TEST(RunTimeExtentsBucketGPUTest, LaunchesTheBucketsKernelForItsCounts) {
  if (!hasCudaDevice())
    GTEST_SKIP() << "no CUDA device";
  ASSERT_TRUE(compiledKernels().error.empty()) << compiledKernels().error;
  std::vector<uint8_t> bytes = rangedArtifact(/*bucket=*/true);
  kiln_model_t *model = nullptr;
  kiln_session_t *session = nullptr;
  cudaStream_t stream = nullptr;
  float *x = nullptr, *y = nullptr;
  ASSERT_TRUE(isOk(kiln_model_load_from_memory(bytes.data(), bytes.size(),
                                               nullptr, &model)));
  ASSERT_TRUE(isOk(kiln_session_create(model, nullptr, &session)));
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&x, kMaxBatch * kRow * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&y, kMaxBatch * kRow * sizeof(float)), cudaSuccess);
  // Batch 1 and 2 (up to 32 elements) run the bucket's kernel, the others
  // the step's own; back at 2, the graph captured for it replays.
  for (int64_t batch : {1, 2, 3, 64, 2}) {
    SCOPED_TRACE("batch " + std::to_string(batch));
    std::vector<float> input(kMaxBatch * kRow), result;
    for (size_t i = 0; i < input.size(); ++i)
      input[i] = std::cos(0.29f * float(i) + float(batch));
    ASSERT_TRUE(
        runBatch(session, stream, x, y, batch, kRow, kRow, input, &result));
    float scale = batch <= 2 ? 4.0f : 2.0f;
    for (int64_t i = 0; i < batch * kRow; ++i)
      ASSERT_EQ(result[i], input[i] * scale + 1.0f) << "element " << i;
    for (int64_t i = batch * kRow; i < kMaxBatch * kRow; ++i)
      ASSERT_TRUE(std::isnan(result[i]))
          << "element " << i << " past the batch";
  }
  EXPECT_EQ(session->graphStatistics.captures, 4);
  cudaFree(x);
  cudaFree(y);
  cudaStreamDestroy(stream);
  kiln_session_release(session);
  kiln_model_release(model);
}

TEST_F(RunTimeExtentsGPUTest, KeepsAGraphForEachOfTheLast16Shapes) {
  auto runAt = [&](int64_t batch) {
    int64_t shape[] = {batch, kRow};
    return isOk(kiln_session_set_input_shape(session, "x", shape, 2)) &&
           isOk(bind(batch)) && isOk(kiln_session_run(session, stream));
  };
  for (int64_t batch = 1; batch <= 17; ++batch)
    ASSERT_TRUE(runAt(batch));
  const GraphStatistics &statistics = session->graphStatistics;
  EXPECT_EQ(statistics.captures, 17);
  // The 17th shape took over the graph of the least recently used (batch 1).
  EXPECT_EQ(statistics.instantiations + statistics.updates, 17);
  EXPECT_EQ(session->graphs.size(), 16u);
  ASSERT_TRUE(runAt(17)); // Kept: replayed.
  EXPECT_EQ(statistics.captures, 17);
  ASSERT_TRUE(runAt(1)); // Evicted: captured again.
  EXPECT_EQ(statistics.captures, 18);
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
}

TEST_F(RunTimeExtentsGPUTest, RangeAndBindingErrorsNameTheInput) {
  int64_t tooMany[] = {65, kRow};
  EXPECT_TRUE(isError(kiln_session_set_input_shape(session, "x", tooMany, 2),
                      KILN_STATUS_INVALID_ARGUMENT,
                      "input 'x': dim 0 ('batch') is 65, outside its range "
                      "1..64"));
  int64_t seven[] = {7, kRow};
  ASSERT_TRUE(isOk(kiln_session_set_input_shape(session, "x", seven, 2)));
  ASSERT_TRUE(isOk(bind(kMaxBatch)));
  EXPECT_TRUE(isError(kiln_session_run(session, stream),
                      KILN_STATUS_INVALID_ARGUMENT,
                      "input 'x' is bound with 4096 bytes but this run "
                      "(batch = 7) needs 448"));
}

// The Gemm step takes its M per shape: a cuBLASLt plan per batch, chosen
// at the first run with it and kept, so going back to batch 7 replays the
// graph captured with batch 7's plan.
TEST(RunTimeExtentsGemmGPUTest, RunsTheGemmAtEveryBatch) {
  if (!hasCudaDevice())
    GTEST_SKIP() << "no CUDA device";
  ASSERT_TRUE(compiledKernels().error.empty()) << compiledKernels().error;
  std::vector<uint8_t> bytes = rangedGemmArtifact();
  kiln_model_t *model = nullptr;
  kiln_session_t *session = nullptr;
  ASSERT_TRUE(isOk(kiln_model_load_from_memory(bytes.data(), bytes.size(),
                                               nullptr, &model)));
  ASSERT_TRUE(isOk(kiln_session_create(model, nullptr, &session)));
  cudaStream_t stream = nullptr;
  float *x = nullptr, *y = nullptr;
  ASSERT_EQ(cudaStreamCreate(&stream), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&x, kMaxBatch * kSampleK * 4), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&y, kMaxBatch * kSampleN * 4), cudaSuccess);
  for (int64_t batch : {1, 7, 32, 64, 7}) {
    SCOPED_TRACE("batch " + std::to_string(batch));
    std::vector<float> input(batch * kSampleK), result;
    for (size_t i = 0; i < input.size(); ++i)
      input[i] = std::cos(0.21f * float(i) + float(batch)) * 1.25f;
    ASSERT_TRUE(runBatch(session, stream, x, y, batch, kSampleK, kSampleN,
                         input, &result));
    for (int64_t m = 0; m < batch; ++m)
      for (int n = 0; n < kSampleN; ++n) {
        double sum = sampleBias(n);
        for (int k = 0; k < kSampleK; ++k)
          sum += double(input[m * kSampleK + k]) * sampleWeight(k, n);
        double want = std::max(sum, 0.0) * 2.0 + 1.0;
        ASSERT_NEAR(result[m * kSampleN + n], want, 1e-4 * (1 + std::abs(want)))
            << "row " << m << " column " << n;
      }
    for (int64_t i = batch * kSampleN; i < kMaxBatch * kSampleN; ++i)
      ASSERT_TRUE(std::isnan(result[i]))
          << "element " << i << " past the batch";
  }
  // Batch 7 again: its plan was kept (4 shapes seen, 4 captures).
  EXPECT_EQ(session->graphStatistics.captures, 4);
  EXPECT_EQ(session->steps.front().otherLibraryPlans.size(), 3u);
  cudaFree(x);
  cudaFree(y);
  cudaStreamDestroy(stream);
  kiln_session_release(session);
  kiln_model_release(model);
}

} // namespace
