// kiln-run --json: the results of a run as one JSON document.
#ifndef KILN_RUN_RUN_REPORT_H
#define KILN_RUN_RUN_REPORT_H

#include "benchmark.h"

#include <cstdint>
#include <string>
#include <vector>

namespace kiln::run {

struct RunReport {
  std::vector<std::string> commandLine;
  std::string model, entryPoint;
  struct Device {
    int ordinal = 0;
    std::string name;
    int computeCapability = 0;   // 90 for sm_90.
    std::string driver, runtime; // CUDA versions, "13.0".
  } device;
  struct Versions {
    std::string kiln, runtime, artifactCuda;
    uint32_t runtimeApi = 0, artifactFormat = 0;
  } versions;
  struct Tensor {
    std::string name, dtype, shape, source; // source: a file or "generated".
  };
  std::vector<Tensor> inputs;
  uint64_t seed = 0; // Of the generated inputs.
  struct OutputCheck {
    std::string name;
    bool pass = false;
    double maxAbs = 0, maxRel = 0, relL2 = 0;
    double peakError = 0; // maxAbs over the reference's largest |value|.
  };
  std::vector<OutputCheck> outputs; // Empty without --expect.
  bool benchmarked = false;
  LatencyStats latency;
  int exitCode = 0;
};

/// The report as JSON: {"command", "device", "versions", "model",
/// "entry_point", "inputs", "outputs", "latency_ms", "throughput",
/// "exit_code"} (docs/tools.md describes each field).
std::string runReportJson(const RunReport &report);

/// Writes runReportJson to |path|; false with |*error| set when it cannot.
bool writeRunReport(const std::string &path, const RunReport &report,
                    std::string *error);

} // namespace kiln::run

#endif // KILN_RUN_RUN_REPORT_H
