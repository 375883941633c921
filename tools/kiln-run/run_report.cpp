// kiln-run --json: the report's JSON text and its file.
#include "run_report.h"
#include "json_text.h"

#include <fstream>

namespace kiln::run {

std::string runReportJson(const RunReport &report) {
  std::string json = "{\n  \"command\": [";
  for (size_t i = 0; i < report.commandLine.size(); ++i)
    json += (i ? ", " : "") + jsonString(report.commandLine[i]);
  json += "],\n";
  const RunReport::Device &device = report.device;
  json +=
      "  \"device\": {\"ordinal\": " + std::to_string(device.ordinal) +
      ", \"name\": " + jsonString(device.name) +
      ", \"compute_capability\": " + std::to_string(device.computeCapability) +
      ", \"cuda_driver\": " + jsonString(device.driver) +
      ", \"cuda_runtime\": " + jsonString(device.runtime) + "},\n";
  const RunReport::Versions &versions = report.versions;
  json += "  \"versions\": {\"kiln\": " + jsonString(versions.kiln) +
          ", \"runtime\": " + jsonString(versions.runtime) +
          ", \"runtime_api\": " + std::to_string(versions.runtimeApi) +
          ", \"artifact_format\": " + std::to_string(versions.artifactFormat) +
          ", \"artifact_cuda\": " + jsonString(versions.artifactCuda) + "},\n";
  json += "  \"model\": " + jsonString(report.model) + ",\n";
  json += "  \"entry_point\": " + jsonString(report.entryPoint) + ",\n";
  json += "  \"inputs\": [";
  for (size_t i = 0; i < report.inputs.size(); ++i) {
    const RunReport::Tensor &input = report.inputs[i];
    json += std::string(i ? ",\n    " : "\n    ") +
            "{\"name\": " + jsonString(input.name) +
            ", \"dtype\": " + jsonString(input.dtype) +
            ", \"shape\": " + jsonString(input.shape) +
            ", \"source\": " + jsonString(input.source) + "}";
  }
  json += report.inputs.empty() ? "],\n" : "\n  ],\n";
  json += "  \"seed\": " + std::to_string(report.seed) + ",\n";
  json += "  \"outputs\": [";
  for (size_t i = 0; i < report.outputs.size(); ++i) {
    const RunReport::OutputCheck &output = report.outputs[i];
    json += std::string(i ? ",\n    " : "\n    ") +
            "{\"name\": " + jsonString(output.name) +
            ", \"pass\": " + (output.pass ? "true" : "false") +
            ", \"max_abs\": " + jsonNumber(output.maxAbs) +
            ", \"max_rel\": " + jsonNumber(output.maxRel) +
            ", \"rel_l2\": " + jsonNumber(output.relL2) +
            ", \"peak_error\": " + jsonNumber(output.peakError) + "}";
  }
  json += report.outputs.empty() ? "],\n" : "\n  ],\n";
  if (report.benchmarked) {
    const LatencyStats &latency = report.latency;
    json += "  \"latency_ms\": {\"runs\": " + std::to_string(latency.runs) +
            ", \"warmup\": " + std::to_string(latency.warmup) +
            ", \"min\": " + jsonNumber(latency.minMs) +
            ", \"median\": " + jsonNumber(latency.medianMs) +
            ", \"mean\": " + jsonNumber(latency.meanMs) +
            ", \"p90\": " + jsonNumber(latency.p90Ms) +
            ", \"p95\": " + jsonNumber(latency.p95Ms) +
            ", \"p99\": " + jsonNumber(latency.p99Ms) +
            ", \"max\": " + jsonNumber(latency.maxMs) +
            ", \"stddev\": " + jsonNumber(latency.stddevMs) + "},\n";
    json += "  \"throughput\": {\"inferences_per_second\": " +
            jsonNumber(latency.inferencesPerSecond) +
            ", \"gpu_seconds\": " + jsonNumber(latency.gpuSeconds) +
            ", \"wall_seconds\": " + jsonNumber(latency.wallSeconds) + "},\n";
  } else {
    json += "  \"latency_ms\": null,\n  \"throughput\": null,\n";
  }
  json += "  \"exit_code\": " + std::to_string(report.exitCode) + "\n}\n";
  return json;
}

bool writeRunReport(const std::string &path, const RunReport &report,
                    std::string *error) {
  std::ofstream file(path);
  file << runReportJson(report);
  file.close();
  if (!file) {
    *error = "cannot write '" + path + "'";
    return false;
  }
  return true;
}

} // namespace kiln::run
