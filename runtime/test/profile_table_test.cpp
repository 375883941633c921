// Tests of kiln-run's --profile table: the header line that benchmarks/
// kernels.py and compare_torch.py parse, and the rates from kernel times.
#include "bench_profile.h"

#include <gtest/gtest.h>

using namespace kiln::run;

namespace {

kiln_step_profile_t step(const char *name, const char *kind, float kernelMs,
                         float replayMs, int32_t kernels, uint64_t bytes,
                         uint64_t flops) {
  kiln_step_profile_t profile = {};
  profile.name = name;
  profile.kind = kind;
  profile.onnx_nodes = "/a/MatMul";
  profile.algorithm = "";
  profile.duration_ms = replayMs;
  profile.kernel_ms = kernelMs;
  profile.kernel_count = kernels;
  profile.kernel_span_ms = kernelMs;
  profile.bytes = bytes;
  profile.flops = flops;
  return profile;
}

std::vector<std::string> lines(const std::string &text) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t end; (end = text.find('\n', start)) != std::string::npos;
       start = end + 1)
    out.push_back(text.substr(start, end - start));
  return out;
}

TEST(ProfileTableTest, CuptiKernelTimesComeFirstAndSetTheRates) {
  std::vector<kiln_step_profile_t> steps = {
      step("kernel_small", "launch", 0.005f, 0.009f, 2, 1000000, 0),
      step("event_0", "record_event", 0, 0.001f, 0, 0, 0),
      step("gemm_0", "gemm", 0.010f, 0.014f, 1, 1000000, 2000000000)};
  std::vector<std::string> table = lines(profileTable(steps, "cupti"));
  ASSERT_EQ(table.size(), 4u);
  EXPECT_EQ(table[0], "profile: 2 kernel steps, 0.0150 ms kernel time "
                      "(cupti), 0.0230 ms step replays");
  // Slowest first; time(us), replay(us), kernels, share, GB/s, TFLOP/s.
  EXPECT_EQ(table[2].substr(0, 100),
            "  gemm_0                             gemm         10.0       14.0 "
            "      1  66.7%     100.0    200.00");
  EXPECT_NE(table[3].find("   5.0        9.0       2  33.3%     200.0      "
                          "0.00  -"),
            std::string::npos)
      << table[3];
}

TEST(ProfileTableTest, WithoutCuptiTheReplaysAreTheTime) {
  std::vector<kiln_step_profile_t> steps = {
      step("gemm_0", "gemm", -1, 0.014f, -1, 1000000, 2000000000),
      step("kernel_small", "launch", -1, 0.009f, -1, 1000000, 0)};
  std::vector<std::string> table =
      lines(profileTable(steps, "events: KILN_CUPTI=0"));
  ASSERT_EQ(table.size(), 4u);
  EXPECT_EQ(table[0], "profile: 2 kernel steps, 0.0230 ms step replays "
                      "(events: KILN_CUPTI=0)");
  EXPECT_NE(table[2].find("gemm         14.0       14.0       -  60.9%      "
                          "71.4    142.86"),
            std::string::npos)
      << table[2];
}

} // namespace
