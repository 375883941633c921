// GPU tests of session failures, debug mode and profile mode: failing launches
// named by step, NaN checks, the step callback, step timings and a missing
// arch.
#include "artifact_builder.h"
#include "gpu_kernels.h"
#include "session.h"
#include "session_fixture.h"
#include "test_util.h"

#include <cmath>

using namespace kiln::testing;
using namespace kiln::artifact;

namespace {

TEST_F(SessionTest, ProfileModeWithoutSteps) {
  ArtifactBuilder builder;
  buildSample(builder, deviceSample());
  builder.model.entry_points[0]->steps.clear(); // Written as a NULL vector.
  std::vector<uint8_t> bytes = builder.finish();
  kiln_model_t *model = nullptr;
  ASSERT_TRUE(isOk(kiln_model_load_from_memory(bytes.data(), bytes.size(),
                                               nullptr, &model)));
  kiln_session_options_t sessionOptions;
  kiln_session_options_init(&sessionOptions);
  sessionOptions.profile = 1;
  kiln_session_t *session = nullptr;
  ASSERT_TRUE(isOk(kiln_session_create(model, &sessionOptions, &session)));
  EXPECT_EQ(kiln_session_step_count(session), 0u);
  bindDevice(session, y);
  EXPECT_TRUE(isOk(kiln_session_run(session, stream)));
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  kiln_session_release(session);
  kiln_model_release(model);
}

TEST_F(SessionTest, AFailedRunStillCoversItsHostCallbacks) {
  kiln_model_t *model = nullptr;
  ASSERT_TRUE(isOk(load(deviceSample(), &model)));
  kiln_session_options_t sessionOptions;
  kiln_session_options_init(&sessionOptions);
  sessionOptions.debug = 1;
  kiln_session_t *session = nullptr;
  ASSERT_TRUE(isOk(kiln_session_create(model, &sessionOptions, &session)));
  std::vector<float> input = sampleInput(1), output(kOut, NAN);
  kiln_tensor_t in = kiln_host_tensor(input.data(), kIn * 4);
  kiln_tensor_t out = kiln_host_tensor(output.data(), kOut * 4);
  ASSERT_TRUE(isOk(kiln_session_bind_input(session, "x", &in)));
  ASSERT_TRUE(isOk(kiln_session_bind_output(session, "y", &out)));
  // The run fails after its first step, with host staging already enqueued.
  ASSERT_TRUE(isOk(kiln_session_set_step_callback(
      session,
      [](void *, kiln_session_t *, size_t, cudaStream_t) { return 1; },
      nullptr)));
  EXPECT_TRUE(isError(kiln_session_run(session, stream), KILN_STATUS_CANCELLED,
                      "after step 0"));
  // runDone covers the input callback, so a rebind waits for it.
  EXPECT_TRUE(session->hasRun);
  ASSERT_EQ(cudaEventSynchronize(session->runDone), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  std::vector<float> other(kIn, 0.0f);
  in = kiln_host_tensor(other.data(), kIn * 4);
  EXPECT_TRUE(isOk(kiln_session_bind_input(session, "x", &in)));
  kiln_session_release(session);
  kiln_model_release(model);
}

TEST_F(SessionTest, SessionCreationRejectsABlockTheKernelCannotRun) {
  // A valid manifest whose launch CUDA would refuse: 64 threads of a kernel
  // compiled for at most 32. Session creation finds it (debug mode or not),
  // naming the step, its ONNX nodes and the kernel, before any run.
  SampleOptions options = deviceSample();
  options.kernelSymbol = "bounded_scale_add";
  kiln_model_t *model = nullptr;
  ASSERT_TRUE(isOk(load(options, &model)));
  for (int debug : {1, 0}) {
    kiln_session_options_t sessionOptions;
    kiln_session_options_init(&sessionOptions);
    sessionOptions.debug = debug;
    kiln_session_t *session = nullptr;
    EXPECT_TRUE(isError(
        kiln_session_create(model, &sessionOptions, &session),
        KILN_STATUS_INCOMPATIBLE,
        "step 1 'kernel_scale_add' (launch; ONNX nodes: /post/Mul, /post/Add): "
        "a block of 64 threads, but kernel 'bounded_scale_add' allows at most "
        "32"));
    EXPECT_EQ(session, nullptr);
  }
  kiln_model_release(model);
  // The context is still usable afterwards.
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

TEST_F(SessionTest, DebugModeFindsNaN) {
  SampleOptions options = deviceSample();
  options.kernelSymbol = "make_nan";
  kiln_model_t *model = nullptr;
  ASSERT_TRUE(isOk(load(options, &model)));
  kiln_session_options_t sessionOptions;
  kiln_session_options_init(&sessionOptions);
  sessionOptions.debug = 1;
  sessionOptions.check_nan_inf = 1;
  kiln_session_t *session = nullptr;
  ASSERT_TRUE(isOk(kiln_session_create(model, &sessionOptions, &session)));
  upload(sampleInput(0));
  bindDevice(session, y);
  EXPECT_TRUE(isError(
      kiln_session_run(session, stream), KILN_STATUS_NUMERIC_ERROR,
      "step 1 'kernel_scale_add' (launch; ONNX nodes: /post/Mul, /post/Add): "
      "buffer 4 has a NaN or Inf at element 0"));
  kiln_session_release(session);
  kiln_model_release(model);
}

/// What a step callback saw of one step's outputs.
struct SeenOutput {
  size_t step;
  uint32_t buffer;
  kiln_dtype_t dtype;
  std::vector<int64_t> dims;
  std::vector<float> values;
};

int recordStepOutputs(void *data, kiln_session_t *session, size_t index,
                      cudaStream_t) {
  auto *seen = static_cast<std::vector<SeenOutput> *>(data);
  for (size_t i = 0; i < kiln_session_step_output_count(session, index); ++i) {
    kiln_step_output_t output;
    if (!isOk(kiln_session_step_output(session, index, i, &output)))
      return 1;
    SeenOutput copy{
        index, output.buffer, output.dtype,
        std::vector<int64_t>(output.dims, output.dims + output.rank),
        std::vector<float>(output.bytes / 4)};
    if (cudaMemcpy(copy.values.data(), output.device_data, output.bytes,
                   cudaMemcpyDeviceToHost) != cudaSuccess)
      return 2;
    seen->push_back(std::move(copy));
  }
  return 0;
}

int stopAtOnce(void *, kiln_session_t *, size_t, cudaStream_t) { return 7; }

TEST_F(SessionTest, StepCallbackSeesEachStepsOutputs) {
  kiln_model_t *model = nullptr;
  ASSERT_TRUE(isOk(load(deviceSample(), &model)));
  kiln_session_t *session = nullptr;
  ASSERT_TRUE(isOk(kiln_session_create(model, nullptr, &session)));
  if (!session->debug) { // Unless KILN_DEBUG=1 is set.
    EXPECT_TRUE(isError(
        kiln_session_set_step_callback(session, recordStepOutputs, nullptr),
        KILN_STATUS_FAILED_PRECONDITION, "not in debug mode"));
  }
  kiln_session_release(session);

  kiln_session_options_t sessionOptions;
  kiln_session_options_init(&sessionOptions);
  sessionOptions.debug = 1;
  ASSERT_TRUE(isOk(kiln_session_create(model, &sessionOptions, &session)));
  std::vector<SeenOutput> seen;
  ASSERT_TRUE(
      isOk(kiln_session_set_step_callback(session, recordStepOutputs, &seen)));
  std::vector<float> input = sampleInput(2);
  upload(input);
  poison(y);
  bindDevice(session, y);
  ASSERT_TRUE(isOk(kiln_session_run(session, stream)));
  std::vector<float> expected = reference(input);
  // Step 0, the gemm, writes the activation h = relu(x w + b); step 1, the
  // launch, writes y = h * 2 + 1 (and only y, not its input h).
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].step, 0u);
  EXPECT_EQ(seen[0].buffer, 3u);
  EXPECT_EQ(seen[0].dtype, KILN_DTYPE_F32);
  EXPECT_EQ(seen[0].dims, (std::vector<int64_t>{kSampleM, kSampleN}));
  std::vector<float> hidden(kOut);
  for (int i = 0; i < kOut; ++i)
    hidden[i] = (expected[i] - 1) / 2;
  expectNear(seen[0].values, hidden);
  EXPECT_EQ(seen[1].step, 1u);
  EXPECT_EQ(seen[1].buffer, 4u);
  expectNear(seen[1].values, expected);
  kiln_step_output_t output;
  EXPECT_TRUE(isError(kiln_session_step_output(session, 1, 1, &output),
                      KILN_STATUS_NOT_FOUND, "has no output 1"));

  // A callback that returns non-zero ends the run at that step.
  ASSERT_TRUE(
      isOk(kiln_session_set_step_callback(session, stopAtOnce, nullptr)));
  EXPECT_TRUE(isError(kiln_session_run(session, stream), KILN_STATUS_CANCELLED,
                      "after step 0 'gemm_0' (gemm; ONNX nodes: /fc/MatMul, "
                      "/fc/Add, /fc/Relu) (it returned 7)"));
  ASSERT_TRUE(isOk(kiln_session_set_step_callback(session, nullptr, nullptr)));
  EXPECT_TRUE(isOk(kiln_session_run(session, stream)));
  expectNear(download(y), expected);
  kiln_session_release(session);
  kiln_model_release(model);
}

// keep_step_outputs: a normal run (no debug mode, no callback) leaves every
// step's outputs readable afterwards, the activation h included, in memory
// of its own.
TEST_F(SessionTest, KeepStepOutputsAfterANormalRun) {
  kiln_model_t *model = nullptr;
  ASSERT_TRUE(isOk(load(deviceSample(), &model)));
  kiln_session_options_t sessionOptions;
  kiln_session_options_init(&sessionOptions);
  sessionOptions.keep_step_outputs = 1;
  kiln_session_t *session = nullptr;
  ASSERT_TRUE(isOk(kiln_session_create(model, &sessionOptions, &session)));
  std::vector<float> input = sampleInput(3);
  upload(input);
  poison(y);
  bindDevice(session, y);
  ASSERT_TRUE(isOk(kiln_session_run(session, stream)));
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  std::vector<float> expected = reference(input);
  kiln_step_output_t hidden;
  ASSERT_TRUE(isOk(kiln_session_step_output(session, 0, 0, &hidden)));
  EXPECT_EQ(hidden.buffer, 3u);
  ASSERT_EQ(hidden.bytes, sizeof(float) * kOut);
  std::vector<float> values(kOut);
  ASSERT_EQ(cudaMemcpy(values.data(), hidden.device_data, hidden.bytes,
                       cudaMemcpyDeviceToHost),
            cudaSuccess);
  std::vector<float> want(kOut);
  for (int i = 0; i < kOut; ++i)
    want[i] = (expected[i] - 1) / 2;
  expectNear(values, want);
  expectNear(download(y), expected);
  kiln_session_release(session);
  kiln_model_release(model);
}

TEST_F(SessionTest, ProfileModeTimesEachStep) {
  kiln_model_t *model = nullptr;
  ASSERT_TRUE(isOk(load(deviceSample(), &model)));
  kiln_session_options_t sessionOptions;
  kiln_session_options_init(&sessionOptions);
  sessionOptions.profile = 1;
  kiln_session_t *session = nullptr;
  ASSERT_TRUE(isOk(kiln_session_create(model, &sessionOptions, &session)));
  std::vector<float> input = sampleInput(3);
  upload(input);
  bindDevice(session, y);
  ASSERT_TRUE(isOk(kiln_session_run(session, stream)));
  ASSERT_EQ(kiln_session_step_count(session), 2u);
  for (size_t i = 0; i < 2; ++i) {
    kiln_step_profile_t profile;
    ASSERT_TRUE(isOk(kiln_session_step_profile(session, i, &profile)));
    EXPECT_GE(profile.duration_ms, 0.0f);
    EXPECT_GE(profile.start_ms, 0.0f);
  }
  kiln_step_profile_t profile;
  ASSERT_TRUE(isOk(kiln_session_step_profile(session, 0, &profile)));
  EXPECT_STREQ(profile.kind, "gemm");
  EXPECT_STREQ(profile.onnx_nodes, "/fc/MatMul, /fc/Add, /fc/Relu");
  expectNear(download(y), reference(input));
  kiln_session_release(session);
  kiln_model_release(model);
}

TEST_F(SessionTest, MissingArchIsAPlainMessage) {
  SampleOptions options = deviceSample();
  options.arch = "sm_10";
  kiln_model_t *model = nullptr;
  EXPECT_TRUE(
      isError(load(options, &model), KILN_STATUS_INCOMPATIBLE,
              "kernel 'scale_add' has cubins for sm_10 and no PTX; this GPU"));
  EXPECT_EQ(model, nullptr);
}

} // namespace
