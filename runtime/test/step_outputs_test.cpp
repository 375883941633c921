// Tests of which buffers each kind of plan step writes (stepOutputBuffers) and
// the step-output C API's argument checks; none needs a GPU.
#include "step_outputs.h"
#include "test_util.h"

#include "kiln/runtime.h"

using namespace kiln::testing;
using namespace kiln::runtime;
using namespace kiln::artifact;

namespace {

/// The buffers |step| writes, through a packed FlatBuffer as the runtime
/// reads it.
std::vector<uint32_t> outputsOf(const StepT &step) {
  flatbuffers::FlatBufferBuilder builder;
  builder.Finish(Step::Pack(builder, &step));
  return stepOutputBuffers(
      *flatbuffers::GetRoot<Step>(builder.GetBufferPointer()));
}

TEST(StepOutputsTest, LaunchWritesItsLastArguments) {
  StepT launch;
  launch.kind = StepKind_Launch;
  launch.args = {3, 7, 4, 9};
  launch.outputs = 1;
  EXPECT_EQ(outputsOf(launch), (std::vector<uint32_t>{9}));
  launch.outputs = 2;
  EXPECT_EQ(outputsOf(launch), (std::vector<uint32_t>{4, 9}));
  // Written before Step.outputs existed: every argument may be written.
  launch.outputs = 0;
  EXPECT_EQ(outputsOf(launch), (std::vector<uint32_t>{3, 7, 4, 9}));
}

TEST(StepOutputsTest, LibraryCopyAndEventSteps) {
  StepT gemm;
  gemm.kind = StepKind_Gemm;
  gemm.gemm = std::make_unique<GemmT>();
  gemm.gemm->a = 1;
  gemm.gemm->b = 2;
  gemm.gemm->c = 5;
  gemm.gemm->out = 6;
  EXPECT_EQ(outputsOf(gemm), (std::vector<uint32_t>{6}));

  StepT conv;
  conv.kind = StepKind_Conv;
  conv.conv = std::make_unique<ConvT>();
  conv.conv->x = 1;
  conv.conv->w = 2;
  conv.conv->residual = 3;
  conv.conv->out = 8;
  EXPECT_EQ(outputsOf(conv), (std::vector<uint32_t>{8}));

  StepT copy;
  copy.kind = StepKind_Copy;
  copy.args = {2, 0};
  EXPECT_EQ(outputsOf(copy), (std::vector<uint32_t>{0}));

  StepT wait;
  wait.kind = StepKind_WaitEvent;
  wait.event = 1;
  EXPECT_TRUE(outputsOf(wait).empty());
}

TEST(StepOutputsTest, CApiChecksItsArguments) {
  EXPECT_TRUE(isError(kiln_session_set_step_callback(nullptr, nullptr, nullptr),
                      KILN_STATUS_INVALID_ARGUMENT, "session is NULL"));
  EXPECT_EQ(kiln_session_step_output_count(nullptr, 0), 0u);
  kiln_step_output_t output;
  EXPECT_TRUE(isError(kiln_session_step_output(nullptr, 0, 0, &output),
                      KILN_STATUS_INVALID_ARGUMENT, "NULL argument"));
}

} // namespace
