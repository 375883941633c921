// GPU test: a session whose activation arena cannot fit fails with a status
// naming the bytes asked for and the bytes free, and the device stays usable.
#include "artifact_builder.h"
#include "gpu_kernels.h"
#include "session_fixture.h"
#include "test_util.h"

using namespace kiln::testing;

namespace {

TEST_F(SessionTest, ImpossibleArenaNamesRequestedAndFreeBytes) {
  ArtifactBuilder builder;
  buildSample(builder, deviceSample());
  builder.model.entry_points[0]->activation_arena_bytes = uint64_t(1) << 47;
  std::vector<uint8_t> bytes = builder.finish();
  kiln_model_t *model = nullptr;
  ASSERT_TRUE(isOk(kiln_model_load_from_memory(bytes.data(), bytes.size(),
                                               nullptr, &model)));
  kiln_session_t *session = nullptr;
  kiln_status_t status = kiln_session_create(model, nullptr, &session);
  EXPECT_EQ(session, nullptr);
  StatusHolder holder(status);
  EXPECT_EQ(holder.code(), KILN_STATUS_RESOURCE_EXHAUSTED) << holder.message();
  EXPECT_NE(holder.message().find("activation arena: out of memory on device "
                                  "0: asked for 140737"),
            std::string::npos)
      << holder.message();
  EXPECT_NE(holder.message().find(" free of "), std::string::npos)
      << holder.message();
  kiln_model_release(model);

  // The failure left the device usable: the ordinary sample still runs.
  ASSERT_TRUE(isOk(load(deviceSample(), &model)));
  ASSERT_TRUE(isOk(kiln_session_create(model, nullptr, &session)));
  std::vector<float> input = sampleInput(2);
  upload(input);
  poison(y);
  bindDevice(session, y);
  ASSERT_TRUE(isOk(kiln_session_run(session, stream)));
  expectNear(download(y), reference(input));
  kiln_session_release(session);
  kiln_model_release(model);
}

} // namespace
