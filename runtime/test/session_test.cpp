// GPU tests of sessions: load and run a tiny artifact (NVRTC kernel + cuBLASLt
// gemm), graphs, rebinding, streams, bindings and external weights.
#include "artifact_builder.h"
#include "gpu_kernels.h"
#include "session.h"
#include "session_fixture.h"
#include "test_util.h"

#include "kiln/runtime.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>

using namespace kiln::testing;
using namespace kiln::artifact;

namespace {

TEST_F(SessionTest, LoadsRunsAndReplaysTheGraph) {
  std::vector<uint8_t> bytes = sampleArtifact(deviceSample());
  kiln::Model model;
  kiln::Status status =
      kiln::Model::loadFromMemory(bytes.data(), bytes.size(), &model);
  ASSERT_TRUE(status.ok()) << status.toString();
  ASSERT_EQ(model.inputs().size(), 1u);
  EXPECT_STREQ(model.inputs()[0].name, "x");
  EXPECT_EQ(model.inputs()[0].dtype, KILN_DTYPE_F32);
  ASSERT_EQ(model.inputs()[0].rank, 2u);
  EXPECT_EQ(model.inputs()[0].dims[1], kSampleK);
  EXPECT_EQ(model.outputs()[0].bytes, size_t(kOut * 4));
  kiln::Session session;
  status = kiln::Session::create(model, &session);
  ASSERT_TRUE(status.ok()) << status.toString();
  bindDevice(session.get(), y);
  for (int run = 0; run < 3; ++run) {
    std::vector<float> input = sampleInput(float(run));
    upload(input);
    poison(y);
    status = session.run(stream);
    ASSERT_TRUE(status.ok()) << status.toString();
    expectNear(download(y), reference(input));
  }
  // KILN_DEBUG=1 in the environment runs step by step, without a graph.
  const auto &statistics = session.get()->graphStatistics;
  EXPECT_EQ(statistics.captures, session.get()->debug ? 0 : 1);
  EXPECT_EQ(statistics.instantiations, session.get()->debug ? 0 : 1);
  EXPECT_EQ(statistics.launches, session.get()->debug ? 0 : 3);
}

TEST_F(SessionTest, RebindingAPointerUpdatesTheGraph) {
  kiln_model_t *model = nullptr;
  ASSERT_TRUE(isOk(load(deviceSample(), &model)));
  kiln_session_t *session = nullptr;
  ASSERT_TRUE(isOk(kiln_session_create(model, nullptr, &session)));
  kiln_model_release(model); // The session keeps it alive.
  std::vector<float> input = sampleInput(0.5f);
  upload(input);
  bindDevice(session, y);
  ASSERT_TRUE(isOk(kiln_session_run(session, stream)));
  expectNear(download(y), reference(input));
  poison(y);
  poison(y2);
  bindDevice(session, y2);
  ASSERT_TRUE(isOk(kiln_session_run(session, stream)));
  expectNear(download(y2), reference(input));
  EXPECT_TRUE(std::isnan(download(y)[0])) << "the old output was written";
  if (!session->debug) {
    EXPECT_EQ(session->graphStatistics.captures, 2);
    EXPECT_EQ(session->graphStatistics.updates +
                  session->graphStatistics.instantiations,
              2);
  }
  kiln_session_release(session);
}

TEST_F(SessionTest, TwoStreamsWithEvents) {
  SampleOptions options = deviceSample();
  options.twoStreams = true;
  kiln_model_t *model = nullptr;
  ASSERT_TRUE(isOk(load(options, &model)));
  for (int debug = 0; debug < 2; ++debug) {
    kiln_session_options_t sessionOptions;
    kiln_session_options_init(&sessionOptions);
    sessionOptions.debug = debug;
    kiln_session_t *session = nullptr;
    ASSERT_TRUE(isOk(kiln_session_create(model, &sessionOptions, &session)));
    std::vector<float> input = sampleInput(2.0f + debug);
    upload(input);
    poison(y);
    bindDevice(session, y);
    ASSERT_TRUE(isOk(kiln_session_run(session, stream)));
    expectNear(download(y), reference(input));
    kiln_session_release(session);
  }
  kiln_model_release(model);
}

TEST_F(SessionTest, EachStreamHasItsOwnWorkspace) {
  SampleOptions options = deviceSample();
  options.twoStreams = true;
  kiln_model_t *model = nullptr;
  ASSERT_TRUE(isOk(load(options, &model)));
  kiln_session_t *session = nullptr;
  ASSERT_TRUE(isOk(kiln_session_create(model, nullptr, &session)));
  ASSERT_EQ(session->workspaces.size(), 2u);
  EXPECT_EQ(session->workspaceBytes, size_t(1) << 20);
  auto address = [&](size_t stream) {
    return reinterpret_cast<uintptr_t>(session->workspaces[stream]);
  };
  ASSERT_NE(session->workspaces[0], nullptr);
  ASSERT_NE(session->workspaces[1], nullptr);
  EXPECT_EQ(address(0) % 256, 0u);
  EXPECT_EQ(address(1) % 256, 0u);
  EXPECT_GE(address(1) - address(0), session->workspaceBytes)
      << "the streams' workspaces overlap";
  kiln_session_release(session);
  kiln_model_release(model);
}

TEST_F(SessionTest, OverlappingBindingsAreRejectedAtRun) {
  kiln_model_t *model = nullptr;
  ASSERT_TRUE(isOk(load(deviceSample(), &model)));
  kiln_session_t *session = nullptr;
  ASSERT_TRUE(isOk(kiln_session_create(model, nullptr, &session)));
  kiln_tensor_t in = kiln_device_tensor(y + 16, kIn * 4),
                out = kiln_device_tensor(y, kOut * 4);
  ASSERT_TRUE(isOk(kiln_session_bind_input(session, "x", &in)));
  ASSERT_TRUE(isOk(kiln_session_bind_output(session, "y", &out)));
  EXPECT_TRUE(isError(kiln_session_run(session, stream),
                      KILN_STATUS_INVALID_ARGUMENT,
                      "input 'x' and output 'y' are bound to overlapping"));
  bindDevice(session, y);
  EXPECT_TRUE(isOk(kiln_session_run(session, stream)));
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  kiln_session_release(session);
  kiln_model_release(model);
}

TEST_F(SessionTest, HostBuffersGoThroughPinnedStaging) {
  kiln_model_t *model = nullptr;
  ASSERT_TRUE(isOk(load(deviceSample(), &model)));
  kiln_session_t *session = nullptr;
  ASSERT_TRUE(isOk(kiln_session_create(model, nullptr, &session)));
  std::vector<float> input = sampleInput(1.25f), output(kOut, NAN);
  kiln_tensor_t in = kiln_host_tensor(input.data(), kIn * 4);
  kiln_tensor_t out = kiln_host_tensor(output.data(), kOut * 4);
  ASSERT_TRUE(isOk(kiln_session_bind_input(session, "x", &in)));
  ASSERT_TRUE(isOk(kiln_session_bind_output(session, "y", &out)));
  ASSERT_TRUE(isOk(kiln_session_run(session, stream)));
  ASSERT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  expectNear(output, reference(input));
  kiln_session_release(session);
  kiln_model_release(model);
}

TEST_F(SessionTest, BindingChecksShapeAlignmentAndNames) {
  kiln_model_t *model = nullptr;
  ASSERT_TRUE(isOk(load(deviceSample(), &model)));
  kiln_session_t *session = nullptr;
  ASSERT_TRUE(isOk(kiln_session_create(model, nullptr, &session)));
  int64_t dims[2] = {8, 4};
  kiln_tensor_t tensor = kiln_device_tensor(x, kIn * 4);
  tensor.dims = dims;
  tensor.rank = 2;
  EXPECT_TRUE(isError(
      kiln_session_bind_input(session, "x", &tensor),
      KILN_STATUS_INVALID_ARGUMENT,
      "input 'x': bound with shape [8, 4] but the artifact's shape is [4, 8]"));
  tensor = kiln_device_tensor(reinterpret_cast<char *>(x) + 4, kIn * 4);
  EXPECT_TRUE(isError(kiln_session_bind_input(session, "x", &tensor),
                      KILN_STATUS_INVALID_ARGUMENT, "not 16-byte aligned"));
  tensor = kiln_device_tensor(x, 12);
  EXPECT_TRUE(isError(kiln_session_bind_input(session, "x", &tensor),
                      KILN_STATUS_INVALID_ARGUMENT,
                      "bound with 12 bytes but it needs 128"));
  std::vector<float> host(kIn);
  tensor = kiln_device_tensor(host.data(), kIn * 4);
  EXPECT_TRUE(isError(kiln_session_bind_input(session, "x", &tensor),
                      KILN_STATUS_INVALID_ARGUMENT, "not device memory"));
  tensor = kiln_device_tensor(x, kIn * 4);
  EXPECT_TRUE(isError(kiln_session_bind_input(session, "nope", &tensor),
                      KILN_STATUS_NOT_FOUND, "no input named 'nope'"));
  EXPECT_TRUE(isError(kiln_session_run(session, stream),
                      KILN_STATUS_FAILED_PRECONDITION,
                      "input 'x' is not bound"));
  kiln_session_release(session);
  kiln_model_release(model);
}

TEST_F(SessionTest, ExternalWeightsAreCheckedByHash) {
  ArtifactBuilder builder;
  buildSample(builder, deviceSample());
  // Move w into an external file.
  std::string dir = ::testing::TempDir();
  std::vector<float> w(kSampleK * kSampleN);
  for (int k = 0; k < kSampleK; ++k)
    for (int n = 0; n < kSampleN; ++n)
      w[k * kSampleN + n] = sampleWeight(k, n);
  std::string prefix(100, 'p');
  {
    std::ofstream file(dir + "kiln_weights.bin", std::ios::binary);
    file.write(prefix.data(), 100);
    file.write(reinterpret_cast<const char *>(w.data()), long(w.size() * 4));
  }
  WeightT &weight = *builder.model.weights[0];
  weight.section = -1;
  weight.external_file = "kiln_weights.bin";
  weight.external_offset = 100;
  weight.external_length = w.size() * 4;
  std::vector<uint8_t> bytes = builder.finish();
  std::string path = dir + "kiln_external.kiln";
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char *>(bytes.data()), long(bytes.size()));
  kiln_model_t *model = nullptr;
  ASSERT_TRUE(isOk(kiln_model_load(path.c_str(), nullptr, &model)));
  kiln_session_t *session = nullptr;
  ASSERT_TRUE(isOk(kiln_session_create(model, nullptr, &session)));
  std::vector<float> input = sampleInput(4);
  upload(input);
  bindDevice(session, y);
  ASSERT_TRUE(isOk(kiln_session_run(session, stream)));
  expectNear(download(y), reference(input));
  kiln_session_release(session);
  kiln_model_release(model);
  // A modified weight file is named.
  {
    std::fstream file(dir + "kiln_weights.bin",
                      std::ios::binary | std::ios::in | std::ios::out);
    file.seekp(150);
    file.put('x');
  }
  EXPECT_TRUE(isError(kiln_model_load(path.c_str(), nullptr, &model),
                      KILN_STATUS_DATA_LOSS,
                      "kiln_weights.bin' does not match the artifact"));
  std::remove((dir + "kiln_weights.bin").c_str());
  EXPECT_TRUE(isError(kiln_model_load(path.c_str(), nullptr, &model),
                      KILN_STATUS_NOT_FOUND, "kiln_weights.bin"));
  std::remove(path.c_str());
}

} // namespace
