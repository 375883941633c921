// Tests of kiln-run's benchmark statistics, its printed lines, the --json
// report and the generated inputs (no GPU needed for any of them).
#include "benchmark.h"
#include "generated_inputs.h"
#include "run_report.h"

#include <gtest/gtest.h>

#include <cstring>
#include <regex>

using namespace kiln::run;

namespace {

TEST(BenchmarkTest, PercentilesByNearestRank) {
  std::vector<float> latencies;
  for (int i = 100; i >= 1; --i)
    latencies.push_back(float(i) / 100); // 0.01 .. 1.00, reversed.
  LatencyStats stats = summarizeLatencies(latencies, 2.0);
  EXPECT_EQ(stats.runs, 100u);
  EXPECT_FLOAT_EQ(stats.minMs, 0.01f);
  EXPECT_FLOAT_EQ(stats.maxMs, 1.0f);
  EXPECT_NEAR(stats.medianMs, 0.505, 1e-6); // Between 0.50 and 0.51.
  EXPECT_FLOAT_EQ(stats.p90Ms, 0.90f);
  EXPECT_FLOAT_EQ(stats.p95Ms, 0.95f);
  EXPECT_FLOAT_EQ(stats.p99Ms, 0.99f);
  EXPECT_NEAR(stats.meanMs, 0.505, 1e-6);
  EXPECT_NEAR(stats.stddevMs, 0.288661, 1e-5);
  EXPECT_DOUBLE_EQ(stats.inferencesPerSecond, 50.0);

  LatencyStats one = summarizeLatencies({0.25f}, 0.001);
  EXPECT_FLOAT_EQ(one.medianMs, 0.25f);
  EXPECT_FLOAT_EQ(one.p99Ms, 0.25f);
  EXPECT_DOUBLE_EQ(one.inferencesPerSecond, 1000.0);
  EXPECT_EQ(summarizeLatencies({}, 1.0).runs, 0u);
}

TEST(BenchmarkTest, TextKeepsTheLineScriptsParse) {
  LatencyStats stats = summarizeLatencies({0.5f, 0.25f, 1.0f}, 0.003);
  stats.warmup = 10;
  std::string text = benchmarkText(stats);
  // benchmarks/*.py and scripts/real-models-run.py read these.
  EXPECT_TRUE(std::regex_search(
      text, std::regex("bench: 3 runs after 10 warm-up, median 0.5000 ms, "
                       "p90 1.0000 ms, min 0.2500 ms")))
      << text;
  EXPECT_NE(text.find("throughput: 1000.0 inferences/s (3 runs"),
            std::string::npos)
      << text;
}

TEST(RunReportTest, JsonHasEveryField) {
  RunReport report;
  report.commandLine = {"kiln-run", "m.kiln", "--json", "r \"1\".json"};
  report.model = "m.kiln";
  report.entryPoint = "main";
  report.device.name = "NVIDIA H200";
  report.device.computeCapability = 90;
  report.versions.kiln = "0.1.0";
  report.versions.runtimeApi = 1;
  report.inputs.push_back({"x", "f32", "[8, 64]", "generated"});
  report.outputs.push_back({"y", true, 1e-7, 2e-6, 3e-7});
  report.benchmarked = true;
  report.latency = summarizeLatencies({0.5f, 0.25f}, 0.00075);
  std::string json = runReportJson(report);
  for (const char *field :
       {"\"command\": [\"kiln-run\", \"m.kiln\", \"--json\", \"r "
        "\\\"1\\\".json\"]",
        "\"name\": \"NVIDIA H200\"", "\"compute_capability\": 90",
        "\"runtime_api\": 1", "\"entry_point\": \"main\"",
        "\"source\": \"generated\"", "\"pass\": true", "\"median\": 0.375",
        "\"p99\": 0.5", "\"inferences_per_second\": 2666.66667",
        "\"exit_code\": 0"})
    EXPECT_NE(json.find(field), std::string::npos) << "no " << field << " in\n"
                                                   << json;
  report.benchmarked = false;
  EXPECT_NE(runReportJson(report).find("\"latency_ms\": null"),
            std::string::npos);
}

TEST(GeneratedInputsTest, SeededPerDtypeAndNeverZeroFloats) {
  int64_t dims[] = {4, 33};
  kiln_tensor_info_t info = {"x", KILN_DTYPE_F32, 2, dims, 4 * 33 * 4};
  HostTensor a = generateInput(info, 1, 0), b = generateInput(info, 1, 0);
  HostTensor other = generateInput(info, 2, 0),
             next = generateInput(info, 1, 1);
  ASSERT_EQ(a.data.size(), info.bytes);
  EXPECT_EQ(a.data, b.data);
  EXPECT_NE(a.data, other.data);
  EXPECT_NE(a.data, next.data);
  double lowest = 1, highest = -1;
  for (size_t i = 0; i < a.elementCount(); ++i) {
    EXPECT_NE(a.at(i), 0.0);
    lowest = std::min(lowest, a.at(i));
    highest = std::max(highest, a.at(i));
  }
  EXPECT_GE(lowest, -1.0);
  EXPECT_LT(highest, 1.0);
  EXPECT_LT(lowest, -0.5); // Spread over the range.
  EXPECT_GT(highest, 0.5);

  info.dtype = KILN_DTYPE_F16;
  info.bytes = 4 * 33 * 2;
  HostTensor half = generateInput(info, 1, 0);
  ASSERT_EQ(half.data.size(), info.bytes);
  EXPECT_NEAR(half.at(5), a.at(5), 1e-3); // The same draw, rounded.

  info.dtype = KILN_DTYPE_I64;
  info.bytes = 4 * 33 * 8;
  HostTensor integers = generateInput(info, 1, 0);
  ASSERT_EQ(integers.data.size(), info.bytes);
  bool varied = false;
  for (size_t i = 0; i < integers.elementCount(); ++i) {
    EXPECT_GE(integers.at(i), 0);
    EXPECT_LT(integers.at(i), 16);
    varied |= integers.at(i) != integers.at(0);
  }
  EXPECT_TRUE(varied);

  info.dtype = KILN_DTYPE_BOOL;
  info.bytes = 4 * 33;
  HostTensor bools = generateInput(info, 1, 0);
  for (uint8_t byte : bools.data)
    EXPECT_LE(byte, 1);
}

} // namespace
